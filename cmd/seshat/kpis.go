package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
)

func newKPIsCmd(g *globals) *cobra.Command {
	var o pipeline.KPIsOptions
	cmd := &cobra.Command{
		Use:   "kpis",
		Short: "Export the KPIs of a results directory as OpenMetrics or JSON documents",
		Long: `Parse a results directory (cached), compute each run's KPIs and write them:
as OpenMetrics gauges (one family per workload and KPI, the run's labels and
test_uuid as labels, the run's start as timestamp, ending with # EOF), or as
JSON KPI documents (one per KPI per run, labels flattened), the shape of the
OpenSearch KPI index. A KPI that cannot be computed is left out with a warning.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.KPIs(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "results directory to parse")
	f.StringVar(&o.Workload, "workload", "", "parse every entry with this workload instead of its `workload` setting")
	f.StringVar(&o.Filters, "filters", "", "select entries by setting: key=v1:v2,key2=v (values read as YAML: 512 matches the number)")
	addNoCacheFlag(f, &o.NoCache)
	f.StringVar(&o.Format, "format", pipeline.FormatOpenMetrics, "output format: openmetrics or json")
	f.StringVar(&o.Output, "output", "-", "write to FILE (- for stdout)")
	f.BoolVar(&o.Pretty, "pretty", false, "indent JSON output")
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	config.BindKey(f, "filters", "parse.filters")
	return cmd
}
