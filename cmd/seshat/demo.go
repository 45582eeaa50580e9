package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
)

// demoBenchmark, when set, is the benchmark the demo runs in place of the
// one it embeds: TestDemo's smaller matrices. Nil outside tests.
var demoBenchmark []byte

func newDemoCmd(g *globals) *cobra.Command {
	o := pipeline.DemoOptions{Benchmark: demoBenchmark}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole job on this machine: PIs, parse, store, regression, reports",
		Long: `Demo runs a small gonum matmul matrix on two "stacks" that differ in the
comparison label dtype (float32, then float64), uploads both to an embedded SQLite store in the
work directory, analyses the second stack against the stored history, and
draws the reports. Running it again in the same directory appends history.
It needs no server and no Python.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.Demo(cmd.Context(), g.env(), o)
		}),
	}
	cmd.Flags().StringVar(&o.Workdir, "workdir", "seshat-demo", "directory receiving the demo's files")
	return cmd
}
