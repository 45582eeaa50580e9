package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
)

func newParseCmd(g *globals) *cobra.Command {
	var o pipeline.ParseOptions
	cmd := &cobra.Command{
		Use:   "parse",
		Short: "Parse a results directory (cached) and write the matrix",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.Parse(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "results directory to parse")
	f.StringVar(&o.Workload, "workload", "", "parse every entry with this workload instead of its `workload` setting")
	f.StringVar(&o.Filters, "filters", "", "select entries by setting: key=v1:v2,key2=v (values read as YAML: 512 matches the number)")
	f.StringVar(&o.OutputMatrix, "output-matrix", "", "write the matrix document to FILE (- for stdout)")
	f.StringVar(&o.OutputLTS, "output-lts", "", "write the LTS payloads of the complete entries, strictly validated, to FILE (- for stdout)")
	f.BoolVar(&o.Pretty, "pretty", false, "indent JSON output")
	addNoCacheFlag(f, &o.NoCache)
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	config.BindKey(f, "filters", "parse.filters")
	return cmd
}
