package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// KPI export formats.
const (
	FormatOpenMetrics = "openmetrics"
	FormatJSON        = "json"
)

// KPIsOptions are the options of `seshat kpis`.
type KPIsOptions struct {
	ResultsDir string
	Workload   string
	Filters    string
	NoCache    bool
	// Format is FormatOpenMetrics (default) or FormatJSON.
	Format string
	// Output is a file, or "-" (default) for stdout.
	Output string
	Pretty bool
}

// KPIs runs `seshat kpis`: parse, build payloads leniently (what can be
// computed is exported, the rest is a warning), and write the KPIs as
// OpenMetrics or as KPI documents (JSON, one per KPI per run, labels
// flattened: the OpenSearch KPI index shape).
func KPIs(ctx context.Context, env Env, opts KPIsOptions) error {
	format := opts.Format
	if format == "" {
		format = FormatOpenMetrics
	}
	if format != FormatOpenMetrics && format != FormatJSON {
		return exitcode.Errorf(exitcode.InvalidInput, "--format: %q is not %s or %s", opts.Format, FormatOpenMetrics, FormatJSON)
	}
	m, err := LoadMatrix(ctx, &env, opts.ResultsDir, opts.Workload, opts.Filters, opts.NoCache)
	if err != nil {
		return err
	}
	payloads := lts.Payloads(buildPayloads(env, m))
	n := 0
	for _, p := range payloads {
		n += len(p.KPIs)
	}
	if n == 0 {
		return exitcode.Errorf(exitcode.NoData, "no KPI could be computed from the %d entries under %s", len(m.Entries), opts.ResultsDir)
	}
	err = atomicfile.WriteOutput(opts.Output, env.Stdout, func(w io.Writer) error {
		if format == FormatJSON {
			return writeKPIDocuments(w, payloads, opts.Pretty)
		}
		warnings, err := kpi.WriteOpenMetrics(w, payloads)
		for _, warning := range warnings {
			env.logger().Warn(warning)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}

// writeKPIDocuments writes one JSON array of KPI documents, by entry path
// then KPI name.
func writeKPIDocuments(w io.Writer, payloads []*models.Payload, pretty bool) error {
	docs := []models.KPIDocument{}
	for _, p := range payloads {
		docs = append(docs, p.KPIDocuments()...)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(docs)
}
