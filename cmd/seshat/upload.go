package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/lts"
)

func newUploadCmd(g *globals) *cobra.Command {
	var o pipeline.UploadOptions
	cmd := &cobra.Command{
		Use:   "upload",
		Short: "Store the LTS payloads of a results directory (or an LTS file) in the LTS store",
		Long: `Parse a results directory (cached) and/or read the payloads parse
--output-lts wrote (given both, a run in both, by test_uuid, counts once),
validate every payload strictly and store the valid ones in the LTS
store: the embedded SQLite file by default, or OpenSearch (payload index and
KPI index, bulk requests, retries). Re-uploading is idempotent: payloads are
keyed by test_uuid. Invalid payloads are named (entry and field) and not
stored; the command then exits 4 after storing the others. A store that
loses documents exits 1, invalid payloads or not. Nothing to upload exits 3.
A sqlite:PATH store in a directory that does not exist exits 4 unless
--create is given (a mistyped directory would start a new, empty store).
OpenSearch credentials come from SESHAT_OPENSEARCH_USERNAME,
SESHAT_OPENSEARCH_PASSWORD and --password-file, over those written in the
store URL (see --password-file), and are never printed.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			g.credentials(&o.Connection)
			return pipeline.Upload(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "results directory to parse and upload")
	f.StringVar(&o.LTSFile, "lts", "", "upload the payloads of this LTS file (parse --output-lts), with those of --results-dir if given")
	f.StringVar(&o.Workload, "workload", "", "parse every entry with this workload instead of its `workload` setting")
	f.StringVar(&o.Filters, "filters", "", "select entries by setting: key=v1:v2,key2=v (values read as YAML: 512 matches the number)")
	addNoCacheFlag(f, &o.NoCache)
	f.StringVar(&o.Store, "store", lts.DefaultStoreURL, "LTS store: sqlite:PATH or http(s)://host:port (OpenSearch)")
	f.BoolVar(&o.DryRun, "dry-run", false, "list what would be stored, store nothing")
	f.BoolVar(&o.Create, "create", false, "create the missing directories of a sqlite:PATH store (those of the default store, .seshat, always are)")
	f.BoolVar(&o.Export, "opensearch-export", false, "also upload to the OpenSearch at --opensearch-url")
	f.StringVar(&o.ExportURL, "opensearch-url", "", "OpenSearch of the export: http(s)://host:port")
	f.BoolVar(&o.FailOnError, "fail-on-error", true, "a failed OpenSearch export fails the command (else a warning)")
	addConnectionFlags(f, &o.Connection)
	f.IntVar(&o.Connection.BulkBytes, "bulk-bytes", lts.DefaultMaxBulkBytes,
		"most bytes of one OpenSearch bulk request (a server refusing one as too large, 413, gets smaller ones all the same)")
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	config.BindKey(f, "filters", "parse.filters")
	config.BindKey(f, "store", "lts.store")
	config.BindKey(f, "opensearch-export", "lts.opensearch.export.enabled")
	config.BindKey(f, "opensearch-url", "lts.opensearch.url")
	config.BindKey(f, "fail-on-error", "lts.opensearch.fail_on_error")
	config.BindKey(f, "bulk-bytes", "lts.opensearch.bulk_bytes")
	return cmd
}

// credentials gives a connection the OpenSearch credentials of the
// environment (SESHAT_OPENSEARCH_USERNAME, SESHAT_OPENSEARCH_PASSWORD).
func (g *globals) credentials(c *pipeline.StoreConnection) {
	c.Username, c.Password = g.settings.OpenSearchUsername, lts.Secret(g.settings.OpenSearchPassword)
}

// addConnectionFlags declares how to reach an OpenSearch store, for upload
// and history alike.
func addConnectionFlags(f *pflag.FlagSet, c *pipeline.StoreConnection) {
	f.StringVar(&c.Index.Index, "index", lts.DefaultIndex, "OpenSearch payload index")
	f.StringVar(&c.Index.Prefix, "index-prefix", "", "prefix of both OpenSearch indices")
	f.StringVar(&c.Index.KPISuffix, "kpi-index-suffix", lts.DefaultKPIIndexSuffix, "suffix of the KPI index after the payload index")
	f.StringVar(&c.CACert, "ca-cert", "", "PEM file of the certificate authorities to trust for OpenSearch")
	f.BoolVar(&c.InsecureSkipVerify, "insecure-skip-verify", false, "do not verify OpenSearch's TLS certificate (unsafe)")
	f.StringVar(&c.PasswordFile, "password-file", "", "file whose first line is the OpenSearch password. "+
		"The user is SESHAT_OPENSEARCH_USERNAME, else the store URL's (https://user:password@host:9200); "+
		"the password is this file's, else SESHAT_OPENSEARCH_PASSWORD, else the URL's when its user is the one used")
	f.DurationVar(&c.RetryTimeout, "retry-timeout", lts.DefaultRetryTimeout, "give up once this long has been spent retrying OpenSearch without progress")
	config.BindKey(f, "index", "lts.opensearch.index")
	config.BindKey(f, "index-prefix", "lts.opensearch.index_prefix")
	config.BindKey(f, "kpi-index-suffix", "lts.opensearch.kpi_index_suffix")
	config.BindKey(f, "ca-cert", "lts.opensearch.ca_cert")
	config.BindKey(f, "password-file", "lts.opensearch.password_file")
}
