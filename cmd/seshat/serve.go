package main

import (
	"os"
	"os/user"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/lts"
)

func newServeCmd(g *globals) *cobra.Command {
	var o pipeline.ServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve pages and a JSON API over the LTS store: series, KPI history by build, builds",
		Long: `Serve, until interrupted, the explorer over the LTS store: a landing page of
every series with a label filter and a sparkline of its main KPI, a history
page per series (every KPI by build, runs as dots and build medians as a
line, with hover, zoom and a legend that hides series), a page per build
with its runs, settings and hardware and a comparison with another build
(as seshat compare build:A build:B), and the alerts that regression
--store-results stored, triaged with --allow-triage; and /api/series,
/api/history, /api/builds/{id}, /api/compare and /api/alerts as JSON for
scripts ([serve.md](serve.md)). The list of series is read before
listening, then every --refresh in the background. It listens on
127.0.0.1:8050 unless --addr says otherwise: the pages show everything the
store holds, so binding another address shares it with the network.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			// A server keeps its list of series and its latest comparisons
			// for hours: its memory counts more than the CPU that main's
			// 200% buys a parse. At 100%, bench/serve's peak on 100,000
			// payloads fell from 370-413 MB to 296-297 MB, its calls 5-10%
			// slower. GOGC, when set, still decides.
			if _, set := os.LookupEnv("GOGC"); !set {
				debug.SetGCPercent(100)
			}
			g.credentials(&o.Connection)
			if u, err := user.Current(); err == nil {
				o.OSUser = u.Username
			}
			return pipeline.Serve(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Store, "store", lts.DefaultStoreURL, "LTS store: sqlite:PATH or http(s)://host:port (OpenSearch)")
	f.StringArrayVar(&o.ResultsDirs, "results-dir", nil, "results directory whose run directories the build pages link to (repeatable)")
	f.StringVar(&o.Addr, "addr", explorer.DefaultAddr, "host:port to listen on")
	f.DurationVar(&o.Refresh, "refresh", explorer.DefaultMaxAge, "read the list of series from the store again this often, in the background")
	f.BoolVar(&o.AllowTriage, "allow-triage", false, "let the alerts be triaged (acknowledged, invalid, fixed) from the pages and POST /api/alerts/{id}/triage: the explorer's only write")
	f.StringVar(&o.TokenFile, "token-file", "", "file whose first line is the token a triage must bring (Authorization: Bearer), its second line, if any, the token's name (who triages); needed with --allow-triage on an address that is not loopback")
	f.StringVar(&o.TriageUser, "triage-user", "", "who the triages made here are by, kept in each alert's triage history (default: the token's name, else the user serve runs as)")
	addConnectionFlags(f, &o.Connection)
	config.BindKey(f, "store", "lts.store")
	return cmd
}
