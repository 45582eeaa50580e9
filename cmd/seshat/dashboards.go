package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/dashboards"
)

func newDashboardsCmd(g *globals) *cobra.Command {
	var o pipeline.DashboardsOptions
	cmd := &cobra.Command{
		Use:   "dashboards",
		Short: "Write OpenSearch Dashboards saved objects charting the KPIs over time",
		Long: `Write OpenSearch Dashboards (2.x) saved objects as NDJSON, the file the
saved-objects import API reads: index patterns of the payload index (time
field metadata.start) and of the KPI index (@timestamp), one line chart per
KPI of every workload (the median value over time, one line per value of the
comparison keys) and one dashboard per workload holding them. Ids derive from
the index and KPI names, so importing again with overwrite replaces them.`,
		Example: `  seshat dashboards --output seshat.ndjson
  curl -X POST "$DASHBOARDS_URL/api/saved_objects/_import?overwrite=true" \
       -H "osd-xsrf: true" --form file=@seshat.ndjson`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.Dashboards(g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Output, "output", "-", "write the NDJSON saved objects to FILE (- for stdout)")
	f.StringVar(&o.Index.Index, "index", lts.DefaultIndex, "OpenSearch payload index")
	f.StringVar(&o.Index.Prefix, "index-prefix", "", "prefix of both OpenSearch indices")
	f.StringVar(&o.Index.KPISuffix, "kpi-index-suffix", lts.DefaultKPIIndexSuffix, "suffix of the KPI index after the payload index")
	f.StringSliceVar(&o.ComparisonKeys, "comparison-keys", []string{"framework_version"},
		"labels whose values each chart draws as separate lines (at most 3; comma-separated)")
	f.StringVar(&o.TimeFrom, "time-from", dashboards.DefaultTimeFrom, "start of the dashboards' time range (date math)")
	config.BindKey(f, "index", "lts.opensearch.index")
	config.BindKey(f, "index-prefix", "lts.opensearch.index_prefix")
	config.BindKey(f, "kpi-index-suffix", "lts.opensearch.kpi_index_suffix")
	config.BindKey(f, "comparison-keys", "regression_analyses.comparison_keys")
	return cmd
}
