package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/lts"
)

func newSchemaCmd(g *globals) *cobra.Command {
	var o pipeline.SchemaOptions
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Write the LTS payload's JSON Schema and the OpenSearch index templates",
		Long: `Write the JSON Schema (draft 2020-12) of the LTS payloads that
parse --output-lts writes, for every registered workload, and with
--opensearch-template the OpenSearch index templates of the payload index and
of the KPI index, keyed by template name.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.Schema(g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Output, "output", "-", "write the JSON Schema to FILE (- for stdout)")
	f.StringVar(&o.OpenSearchTemplate, "opensearch-template", "", "write the OpenSearch index templates to FILE (- for stdout)")
	f.StringVar(&o.Index.Index, "index", lts.DefaultIndex, "OpenSearch payload index")
	f.StringVar(&o.Index.Prefix, "index-prefix", "", "prefix of both OpenSearch indices")
	f.StringVar(&o.Index.KPISuffix, "kpi-index-suffix", lts.DefaultKPIIndexSuffix, "suffix of the KPI index after the payload index")
	config.BindKey(f, "index", "lts.opensearch.index")
	config.BindKey(f, "index-prefix", "lts.opensearch.index_prefix")
	config.BindKey(f, "kpi-index-suffix", "lts.opensearch.kpi_index_suffix")
	return cmd
}
