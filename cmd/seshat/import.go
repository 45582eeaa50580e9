package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/importers"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

func newImportCmd(g *globals) *cobra.Command {
	var o pipeline.ImportOptions
	cmd := &cobra.Command{
		Use:   "import FORMAT INPUT...",
		Short: "Turn results other tools wrote (Go and Google benchmarks, pytest-benchmark, hyperfine, criterion, asv, JMH, MLPerf, Thoth) into artifact directories",
		Long: "Turn results other tools wrote into artifact directories (docs/import.md).\n\nFORMAT is one of: " +
			strings.Join(importers.Formats(), ", ") + ".\nAn input is a file of that format; for criterion also a directory,\n" +
			"target/criterion: every <benchmark>/new/ below it.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: name a format and at least one input", cmd.CommandPath())
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.Format, o.Inputs = args[0], args[1:]
			return pipeline.Import(g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "write the run directories under DIR/<expe>/")
	f.StringVar(&o.Expe, "expe", "", "experiment directory name (default: the first input's name)")
	f.StringVar(&o.Time, "time", "", "start time of the runs when the input has none (RFC 3339; default: the input's modification time)")
	f.StringVar(&o.Build.ID, "build-id", "", "build.json id: what was under test")
	f.StringVar(&o.Build.Commit, "commit", "", "build.json commit")
	f.StringVar(&o.Build.Ref, "ref", "", "build.json ref (branch or tag)")
	f.StringVar(&o.BuildTime, "build-time", "", "build.json time (RFC 3339)")
	f.StringVar(&o.CIEngine, "ci-engine", "", "build.json ci.engine")
	f.StringVar(&o.CIRunID, "ci-run-id", "", "build.json ci.run_id")
	f.StringVar(&o.CIURL, "ci-url", "", "build.json ci.url")
	return cmd
}
