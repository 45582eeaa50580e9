package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/pipeline"
)

func newCompareCmd(g *globals) *cobra.Command {
	var o pipeline.CompareOptions
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two result sets (results directories or LTS files) as benchstat does",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: name two results directories or LTS files", cmd.CommandPath())
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.A, o.B = args[0], args[1]
			return pipeline.Compare(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", "text", "text, csv, markdown or json")
	f.StringVarP(&o.Output, "output", "o", "-", "write to FILE (- for stdout)")
	f.BoolVar(&o.NoCache, "no-cache", false, "ignore parse caches (also SESHAT_IGNORE_CACHE=1)")
	f.BoolVar(&o.FailOnWorse, "fail-on-worse", false, "exit 2 when a KPI is significantly worse in B")
	return cmd
}
