package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/lts"
)

func newHistoryCmd(g *globals) *cobra.Command {
	var o pipeline.HistoryOptions
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the stored payloads in time order, with their KPIs",
		Long: `List the payloads of the LTS store whose labels match --filters and whose
run started in [--since, --until), ordered by time then test_uuid, every one
of them (the store is read page by page). --filters also takes build=ID (the
build's id, metadata.build.id) and commit=PREFIX (its commit, or at least 4
of its first characters). The table, 100 columns wide, says the labels every
payload shares once above it, then one section per KPI with a row per run:
the time, the build (id and short commit), the run (test_uuid's first 8
characters), the value, and the labels that differ between the payloads
listed (cut to fit); --format json writes one record per payload with all
its labels, build and KPI values, for scripts. No match exits 3; a filter on
a label no stored payload has exits 4, naming the nearest label names.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			g.credentials(&o.Connection)
			return pipeline.History(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Store, "store", lts.DefaultStoreURL, "LTS store: sqlite:PATH or http(s)://host:port (OpenSearch)")
	f.StringVar(&o.Filters, "filters", "", "select payloads by KPI label: label=v1:v2,label2=v (values compared as text); build=ID and commit=PREFIX select builds")
	f.StringVar(&o.Since, "since", "", "only runs started at or after this time (RFC 3339 or YYYY-MM-DD)")
	f.StringVar(&o.Until, "until", "", "only runs started before this time (RFC 3339 or YYYY-MM-DD)")
	f.StringVar(&o.Format, "format", pipeline.FormatTable, "output format: table or json")
	f.StringVar(&o.Output, "output", "-", "write to FILE (- for stdout)")
	addConnectionFlags(f, &o.Connection)
	config.BindKey(f, "store", "lts.store")
	return cmd
}
