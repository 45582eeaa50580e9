package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
)

func newCompareCmd(g *globals) *cobra.Command {
	var o pipeline.CompareOptions
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two result sets (results directories, LTS files or builds of a store) as benchstat does",
		Long: `Compare puts two result sets side by side as benchstat does: per entry and
KPI, the median of each side with its confidence interval, the change from A
to B and its Mann-Whitney U p-value ("~" when p >= 0.05), in the KPI's
direction. Runs that recorded per-iteration samples (pi's samples_ms) are
compared on every run and sample by a hierarchical bootstrap: the ratio B/A
of geometric means, its interval and p. A side is a results directory
(parsed, cached), an LTS file (parse --output-lts), or build:ID, the runs of
one build (metadata.build.id) in the store --store names. It exits 3 when the sides share no entry x KPI
or a build has no run, 2 with --fail-on-worse when a KPI got worse in B.`,
		Example: `  seshat compare results-main/ results-branch/
  seshat compare --store sqlite:.seshat/lts.db build:3f2a9c1 build:8e41d07
  seshat compare build:nightly-2026-01-04 results/ --fail-on-worse`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: name two results directories, LTS files or build:ID", cmd.CommandPath())
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.A, o.B = args[0], args[1]
			g.credentials(&o.Connection)
			return pipeline.Compare(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", "text", "text, csv, markdown or json")
	f.StringVarP(&o.Output, "output", "o", "-", "write to FILE (- for stdout)")
	f.BoolVar(&o.NoCache, "no-cache", false, "ignore parse caches (also SESHAT_IGNORE_CACHE=1)")
	f.BoolVar(&o.FailOnWorse, "fail-on-worse", false, "exit 2 when a KPI is significantly worse in B")
	f.StringVar(&o.Store, "store", lts.DefaultStoreURL, "LTS store of the build:ID sides: sqlite:PATH or http(s)://host:port (OpenSearch)")
	addConnectionFlags(f, &o.Connection)
	config.BindKey(f, "store", "lts.store")
	cmd.ValidArgsFunction = completeSides(g, &o.Store, &o.Connection)
	return cmd
}
