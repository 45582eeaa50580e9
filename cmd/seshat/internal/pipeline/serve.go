package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/parsers"
)

// ServeOptions are the options of `seshat serve`.
type ServeOptions struct {
	// Store is the store's URL; lts.DefaultStoreURL when empty. It must
	// exist.
	Store      string
	Connection StoreConnection
	// ResultsDirs hold run directories the build pages link to.
	ResultsDirs []string
	// Addr is host:port to listen on; explorer.DefaultAddr when empty.
	Addr string
	// Refresh is how long the list of series is kept before the store is
	// read again (explorer.Options.MaxAge).
	Refresh time.Duration
	// AllowTriage lets the alerts be triaged from the pages and the API;
	// TokenFile holds the token each triage must bring (its first line),
	// needed when Addr is not a loopback address.
	AllowTriage bool
	TokenFile   string
	// TriageUser names who triages (--triage-user); when empty, the
	// token's name (the second line of TokenFile), else OSUser (the
	// user serve runs as, which cmd/seshat resolves).
	TriageUser, OSUser string
}

// minTokenLength bounds the token of --token-file from below.
const minTokenLength = 16

// triageToken reads the token of --token-file, which binding triage to
// an address that is not loopback requires, and the token's name: its
// second line, "" when it has none.
func triageToken(opts ServeOptions, host string) (token, name string, err error) {
	if opts.TokenFile == "" {
		ip := net.ParseIP(host)
		if opts.AllowTriage && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return "", "", exitcode.Errorf(exitcode.InvalidInput, "--allow-triage on %s, not a loopback address: give --token-file (a file holding a secret token of %d characters or more)", host, minTokenLength)
		}
		return "", "", nil
	}
	data, err := parsers.ReadLimited(opts.TokenFile, 4096)
	if err != nil {
		return "", "", exitcode.Input(fmt.Errorf("--token-file: %w", err))
	}
	token, rest, _ := strings.Cut(string(data), "\n")
	token = strings.TrimSpace(token)
	if len(token) < minTokenLength {
		return "", "", exitcode.Errorf(exitcode.InvalidInput, "--token-file %s: the token (its first line) has %d characters: want %d or more", opts.TokenFile, len(token), minTokenLength)
	}
	name, _, _ = strings.Cut(rest, "\n")
	return token, strings.TrimSpace(name), nil
}

// maxTriageUser bounds the length of a triage user's name (lts.Triage.Check).
const maxTriageUser = 256

// triageUser is who the triages of this serve are by: --triage-user, the
// token's name, or the user serve runs as.
func triageUser(opts ServeOptions, tokenName string) (string, error) {
	user := strings.TrimSpace(opts.TriageUser)
	if user == "" {
		user = tokenName
	}
	if user == "" {
		user = opts.OSUser
	}
	if len(user) > maxTriageUser || strings.ContainsFunc(user, unicode.IsControl) {
		return "", exitcode.Errorf(exitcode.InvalidInput, "--triage-user %q: want a name of at most %d characters, no control characters", user, maxTriageUser)
	}
	return user, nil
}

// Serve runs `seshat serve`: the explorer's pages and API over the store
// until ctx is done (the command's signal), then shuts down gracefully.
func Serve(ctx context.Context, env Env, opts ServeOptions) error {
	addr := opts.Addr
	if addr == "" {
		addr = explorer.DefaultAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "--addr %q: want host:port (%v)", addr, err)
	}
	token, tokenName, err := triageToken(opts, host)
	if err != nil {
		return err
	}
	user, err := triageUser(opts, tokenName)
	if err != nil {
		return err
	}
	if opts.Refresh < 0 {
		return exitcode.Errorf(exitcode.InvalidInput, "--refresh %s: must not be negative", opts.Refresh)
	}
	for _, dir := range opts.ResultsDirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return exitcode.Errorf(exitcode.InvalidInput, "--results-dir %s: not a directory", dir)
		}
	}
	s, err := openStore(ctx, env, opts.Store, opts.Connection)
	if err != nil {
		return err
	}
	defer s.Close()
	backfillSampleStats(ctx, env, s, opts.Store)
	srv, err := explorer.New(explorer.Options{Store: s, ResultsDirs: opts.ResultsDirs, Workloads: explorer.Registered(env.registry()),
		MaxAge: opts.Refresh, Log: env.logger(), Compare: compare.Options{Definition: env.kpiDefinition, Samples: env.compareSamples},
		AllowTriage: opts.AllowTriage, ReadOnly: readOnlyStore(opts.Store), Token: token, TriageUser: user})
	if err != nil {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	// The series index is read before listening, so that the first page
	// finds it, then again every --refresh in the background.
	if err := srv.Preload(ctx); err != nil {
		env.logger().Warn(fmt.Sprintf("serve: %v (the pages say so until a read succeeds)", err))
	}
	go srv.Watch(ctx)
	return explorer.Serve(ctx, addr, srv, func(url string) {
		fmt.Fprintf(env.status(), "serving %s on %s (interrupt to stop)\n", s, url)
	})
}

// backfillSampleStats gives the runs of a writable store that were
// stored without the summaries of their samples (before SQLite schema
// 10) those summaries, once, before serving: comparing their builds then
// reads no results (lts.SampleStatsBackfiller). Done here rather than
// when any command opens a store: serve is what reads them, and a
// store's first backfill decodes every old payload. A read-only store,
// or one that fails, keeps reading those runs' results.
func backfillSampleStats(ctx context.Context, env Env, s lts.Store, url string) {
	b, ok := s.(lts.SampleStatsBackfiller)
	if !ok || readOnlyStore(url) {
		return
	}
	n, err := b.BackfillSampleStats(ctx, 0)
	if n > 0 {
		fmt.Fprintf(env.status(), "kept the summaries of the samples of %d runs stored without them (once: their builds compare without reading results)\n", n)
	}
	if err != nil {
		env.logger().Warn(fmt.Sprintf("serve: %v (comparisons read those runs' results)", err))
	}
}

// readOnlyStore tells whether the store is a SQLite file this process
// cannot write: its alerts cannot be triaged.
func readOnlyStore(url string) bool {
	path, ok := strings.CutPrefix(url, "sqlite:")
	if !ok {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return errors.Is(err, fs.ErrPermission)
	}
	_ = f.Close()
	return false
}
