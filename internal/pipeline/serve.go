package pipeline

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/exitcode"
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
}

// Serve runs `seshat serve`: the explorer's pages and API over the store
// until ctx is done (the command's signal), then shuts down gracefully.
func Serve(ctx context.Context, env Env, opts ServeOptions) error {
	addr := opts.Addr
	if addr == "" {
		addr = explorer.DefaultAddr
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "--addr %q: want host:port (%v)", addr, err)
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
	srv, err := explorer.New(explorer.Options{Store: s, ResultsDirs: opts.ResultsDirs, Workloads: explorer.Registered,
		MaxAge: opts.Refresh, Log: env.logger(), Compare: compare.Options{Definition: kpiDefinition, Samples: compareSamples}})
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
