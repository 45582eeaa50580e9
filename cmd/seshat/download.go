package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/download"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

func newDownloadCmd(g *globals) *cobra.Command {
	var o pipeline.DownloadOptions
	cmd := &cobra.Command{
		Use:   "download URL",
		Short: "Fetch a CI run's artifact tree over HTTP(S) into a results directory",
		Long: `Walk the directory listings at URL (nginx or Apache autoindex, Python's
http.server, gcsweb as Prow and OpenShift CI serve it) or an S3-compatible
bucket listing (ListObjectsV2: the bucket's URL with its prefix parameter),
and fetch the files into --results-dir as matbench's download does.
--mode important fetches the files each run's workload declares, with the
settings files, exit_code and build.json; prefer-cache does the same but
keeps the files already there with the size the listing gives (it resumes
an interrupted download); all fetches everything; cache-only fetches
nothing and says what is missing. Files arrive whole (temporary file,
then rename), exit_code last, never outside --results-dir; redirects to
another host are not followed. Whatever fails (a 404, a page that is no
listing, an entry with .., an absolute path or a backslash, a redirect
elsewhere, a file over --max-file-size, a server that stalls) is named
with its URL and the rest goes on; the summary goes to stdout, and the
command exits 1 when anything is missing at the end.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: name one URL to download", cmd.CommandPath())
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.URL = args[0]
			return pipeline.Download(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "directory to download into")
	f.StringVar(&o.Mode, "mode", string(download.PreferCache), "what to fetch: "+strings.Join(download.ModeNames(), ", "))
	f.StringVar(&o.Workload, "workload", "", "take every run as this workload's instead of the one its `workload` setting names")
	f.IntVar(&o.Jobs, "jobs", download.DefaultJobs, "requests in flight at once")
	f.StringVar(&o.MaxFileSize, "max-file-size", "1GiB", "refuse files larger than this (0: no limit)")
	f.DurationVar(&o.StallTimeout, "stall-timeout", download.DefaultStallTimeout, "abandon a request that brings no data for this long")
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	return cmd
}
