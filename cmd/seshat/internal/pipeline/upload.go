package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// StoreConnection says how to reach a store beyond its URL: OpenSearch
// index names, TLS, credentials and retry bounds. SQLite ignores it.
type StoreConnection struct {
	Index lts.IndexNames
	// CACert is a PEM file of CAs to trust; InsecureSkipVerify turns TLS
	// verification off (explicitly only).
	CACert             string
	InsecureSkipVerify bool
	// Username and Password authenticate to OpenSearch (the command layer
	// reads them from SESHAT_OPENSEARCH_USERNAME and
	// SESHAT_OPENSEARCH_PASSWORD); PasswordFile, when set, holds the
	// password instead (first line). The store weighs them against the
	// credentials of its URL.
	Username     string
	Password     lts.Secret
	PasswordFile string
	// RetryTimeout bounds the time spent retrying (lts.DefaultRetryTimeout
	// when 0).
	RetryTimeout time.Duration
	// BulkBytes bounds the body of one bulk request (uploads only;
	// lts.DefaultMaxBulkBytes when 0).
	BulkBytes int
}

// storeOptions turns the connection into lts.StoreOptions.
func (c StoreConnection) storeOptions(env Env) lts.StoreOptions {
	return lts.StoreOptions{
		Index:              c.Index,
		Workloads:          env.ltsWorkloads(),
		CACertFile:         c.CACert,
		InsecureSkipVerify: c.InsecureSkipVerify,
		Username:           c.Username,
		Password:           c.Password,
		PasswordFile:       c.PasswordFile,
		Retry:              lts.RetryPolicy{Timeout: c.RetryTimeout},
		MaxBulkBytes:       c.BulkBytes,
		Log:                env.logger(),
		// The stores keep the summaries of each run's samples: seshat
		// serve compares builds on them without reading the results.
		Samples: env.compareSamples,
	}
}

// openStore opens the store of url, to read it, with the connection
// settings: it must exist (else an error wrapping lts.ErrNoStore).
func openStore(ctx context.Context, env Env, url string, conn StoreConnection) (lts.Store, error) {
	opts := conn.storeOptions(env)
	opts.MustExist = true
	return lts.Open(ctx, url, opts)
}

// UploadOptions are the options of `seshat upload`.
type UploadOptions struct {
	// ResultsDir is parsed (cached) for payloads, LTSFile (the output of
	// `parse --output-lts`) is read; with both, both are uploaded, a run in
	// both once (CurrentRuns).
	ResultsDir string
	LTSFile    string
	Workload   string
	Filters    string
	NoCache    bool
	// Store is the store's URL; lts.DefaultStoreURL when empty.
	Store string
	// Export also uploads to the OpenSearch at ExportURL (the
	// lts.opensearch section of seshat.yaml). With FailOnError false a
	// failed export is a warning.
	Export      bool
	ExportURL   string
	FailOnError bool
	Connection  StoreConnection
	// DryRun lists what would be stored (stdout) and stores nothing.
	DryRun bool
	// Create creates the missing directories of a store file's path
	// (sqlite:PATH); the default store's are created regardless.
	Create bool
}

// Upload runs `seshat upload`: payloads from one parse and/or an LTS file,
// validated strictly; the valid ones are stored, in one upload per store,
// and the invalid ones named, entry and field, after which the command
// exits 4 — or 1 when a store failed: documents lost win. Nothing to
// upload exits 3.
func Upload(ctx context.Context, env Env, opts UploadOptions) error {
	if opts.Connection.BulkBytes < 0 {
		return exitcode.Errorf(exitcode.InvalidInput, "--bulk-bytes %d: must be a number of bytes above 0", opts.Connection.BulkBytes)
	}
	if opts.LTSFile != "" && opts.ResultsDir == "" && (opts.Filters != "" || opts.Workload != "") {
		return exitcode.Errorf(exitcode.InvalidInput, "--filters and --workload apply to --results-dir, not to --lts")
	}
	set, err := CurrentRuns{ResultsDir: opts.ResultsDir, LTSFile: opts.LTSFile, Workload: opts.Workload, Filters: opts.Filters, NoCache: opts.NoCache}.Read(ctx, &env)
	if err != nil {
		return err
	}
	if set.Stats != "" {
		fmt.Fprintln(env.status(), set.Stats)
	}
	records := set.Records
	if len(records) == 0 {
		return exitcode.Errorf(exitcode.NoData, "nothing to upload: no complete run in %s", set.From)
	}
	valid, invalid := lts.SplitValid(records)
	if invalid != nil {
		invalid = fmt.Errorf("%d of %d payload(s) not uploaded: %w", len(records)-len(valid), len(records), invalid)
	}
	payloads := lts.Payloads(valid)
	targets, err := uploadTargets(opts)
	if err != nil {
		return err
	}
	if len(payloads) == 0 {
		return invalid
	}
	if opts.DryRun {
		kpis := 0
		for _, r := range valid {
			fmt.Fprintf(env.Stdout, "%s\t%s\t%d KPIs\n", r.Path, r.Payload.Metadata.TestUUID, len(r.Payload.KPIs))
			kpis += len(r.Payload.KPIs)
		}
		fmt.Fprintf(env.status(), "dry run: %d payload(s) with %d KPI(s) would be stored in %s\n",
			len(payloads), kpis, strings.Join(targetNames(targets), " and "))
		return invalid
	}
	for _, t := range targets {
		done, err := putAll(ctx, env, t, opts.Connection, opts.Create, payloads)
		if done != "" {
			fmt.Fprintln(env.status(), done)
		}
		if err != nil {
			if t.export && !opts.FailOnError {
				env.logger().Warn("OpenSearch export failed (fail_on_error is false)", "error", err)
				continue
			}
			// Documents lost outweigh invalid ones: the store's failure
			// (exit 1, unless it has a status of its own) comes first.
			return errors.Join(exitcode.With(exitcode.Of(err), err), invalid)
		}
	}
	return invalid
}

// uploadTarget is one store an upload writes to.
type uploadTarget struct {
	url    string
	export bool // the OpenSearch export of the config file
}

func uploadTargets(opts UploadOptions) ([]uploadTarget, error) {
	primary := opts.Store
	if primary == "" {
		primary = lts.DefaultStoreURL
	}
	targets := []uploadTarget{{url: primary}}
	if opts.Export {
		if opts.ExportURL == "" {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "the OpenSearch export is enabled but has no URL (lts.opensearch.url, --opensearch-url)")
		}
		if opts.ExportURL != primary {
			targets = append(targets, uploadTarget{url: opts.ExportURL, export: true})
		}
	}
	return targets, nil
}

func targetNames(targets []uploadTarget) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = redact.URL(t.url)
	}
	return out
}

// putAll stores the payloads in the target (creating the missing
// directories of its path when create) and says what it did: also when it
// fails, if part of the upload was stored.
func putAll(ctx context.Context, env Env, t uploadTarget, conn StoreConnection, create bool, payloads []*models.Payload) (string, error) {
	opts := conn.storeOptions(env)
	opts.CreateDirs = create
	s, err := lts.Open(ctx, t.url, opts)
	if err != nil {
		return "", err
	}
	defer s.Close()
	env.logger().Debug("uploading", "store", s.String(), "payloads", len(payloads))
	stats, err := s.Put(ctx, payloads)
	if err != nil && stats.Payloads == 0 && stats.KPIDocuments == 0 {
		return "", err
	}
	return lts.DescribePut(s, redact.URL(t.url), stats), err
}
