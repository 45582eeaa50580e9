package pipeline

import (
	"fmt"
	"io"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/dashboards"
)

// DashboardsOptions are the options of `seshat dashboards`.
type DashboardsOptions struct {
	// Output receives the NDJSON saved objects; "-" or empty for stdout.
	Output string
	Index  lts.IndexNames
	// ComparisonKeys split every chart into one line per value.
	ComparisonKeys []string
	// TimeFrom starts the dashboards' time range (date math, now-90d).
	TimeFrom string
}

// Dashboards runs `seshat dashboards`: OpenSearch Dashboards saved objects
// for the KPIs of every registered workload, ready for the import API.
func Dashboards(env Env, opts DashboardsOptions) error {
	objects, warnings, err := dashboards.Build(env.ltsWorkloads(), dashboards.Options{
		Index: opts.Index, ComparisonKeys: opts.ComparisonKeys, TimeFrom: opts.TimeFrom,
	})
	if err != nil {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	for _, w := range warnings {
		env.logger().Warn(w)
	}
	out := opts.Output
	if out == "" {
		out = "-"
	}
	if err := atomicfile.WriteOutput(out, env.Stdout, func(w io.Writer) error { return dashboards.Write(w, objects) }); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}
