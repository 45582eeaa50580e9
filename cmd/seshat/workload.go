package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

func newWorkloadCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Work with workload files (workload.yaml)",
	}
	strictParent(cmd)
	cmd.AddCommand(newWorkloadCheckCmd(g))
	return cmd
}

func newWorkloadCheckCmd(g *globals) *cobra.Command {
	var o pipeline.WorkloadCheckOptions
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Validate a workload file and show what it extracts from one run",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: name one workload file", cmd.CommandPath())
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			return pipeline.WorkloadCheck(cmd.Context(), g.env(), o)
		}),
	}
	cmd.Flags().StringVar(&o.ResultsDir, "results-dir", "", "show what the file extracts from the first complete run under DIR")
	return cmd
}
