package explorer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/lts"
)

// DefaultAddr is where Serve listens when no address is given: the
// loopback only, so that nothing outside the machine reads the store.
const DefaultAddr = "127.0.0.1:8050"

// DefaultMaxAge is how long the series index is kept before the store is
// read again, when the command does not say.
const DefaultMaxAge = 30 * time.Second

// Workload is what the explorer knows of a registered workload.
type Workload struct {
	// Keys cut its runs into series as regression analysis does: a series
	// is the labels minus the comparison, ignored and meta keys.
	Keys regression.Keys
	// KPIs are its KPI names in the workload's order; the first one a
	// series has is its main KPI (the sparkline's).
	KPIs []string
	// Samples tells that its runs' results may hold per-iteration samples
	// (workloads.SampleProvider): comparing builds then reads its runs'
	// whole payloads for Options.Compare.Samples, and only their records
	// otherwise.
	Samples bool
}

// Options configure a Server.
type Options struct {
	// Store is read, never written.
	Store lts.Store
	// ResultsDirs are searched for the run directories (by their .uuid)
	// that the build pages link to.
	ResultsDirs []string
	// Workloads describes a workload by name; nil or false: its series
	// are its whole label sets and its KPIs ordered by name.
	Workloads func(name string) (Workload, bool)
	// MaxAge is how long the series index is reused before the store is
	// read again; 0 reads it for every request that needs it.
	MaxAge time.Duration
	// Compare says how builds are compared (its Definition and Samples:
	// what `seshat compare` passes); Keys is the explorer's own, the
	// labels that are not a series'.
	Compare compare.Options
	// Log receives the store errors answered with 503; nil discards.
	Log *slog.Logger
	// AllowTriage lets the alerts be triaged (POST
	// /api/alerts/{id}/triage), unless ReadOnly; Token, when set, must
	// come with each triage as "Authorization: Bearer TOKEN".
	AllowTriage, ReadOnly bool
	Token                 string
	// TriageUser is who the triages made here are by (lts.Triage.User):
	// `seshat serve --triage-user`, the token's name, or the user serve
	// runs as.
	TriageUser string
}

// Server is the explorer's http.Handler.
type Server struct {
	opts    Options
	mux     *http.ServeMux
	pages   pages
	runDirs map[string]string // test_uuid -> run directory

	mu        sync.Mutex // guards the index and its reads
	snap      *snapshot
	loading   chan struct{} // closed when the read under way ends; nil: none
	loadErr   error         // the last read's error; nil when it succeeded
	loadErrAt time.Time
	watching  bool // Watch reads the index on its timer

	compares snapshotCache[[2]string, *Comparison] // the last comparisons made, by build ids
	builds   snapshotCache[string, buildRunsOf]    // the last builds' runs read, by build id
}

//go:embed assets/app.js assets/alerts.js assets/style.css
var assets embed.FS

// New returns the server of the store opts.Store. The results
// directories are searched for run directories once, here; one that cannot
// be read is an error naming it.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("explorer: no store")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), pages: parsePages(),
		compares: snapshotCache[[2]string, *Comparison]{max: maxCachedComparisons}, builds: snapshotCache[string, buildRunsOf]{max: maxCachedBuilds}}
	var err error
	if s.runDirs, err = findRunDirs(opts.ResultsDirs); err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	s.mux.Handle("GET /assets/charts/", http.StripPrefix("/assets/charts/", http.FileServerFS(charts.FS())))
	s.mux.HandleFunc("GET /{$}", s.page(s.landingPage))
	s.mux.HandleFunc("GET /series/{id}", s.page(s.seriesPage))
	s.mux.HandleFunc("GET /builds/{id}", s.page(s.buildPage))
	s.mux.HandleFunc("GET /builds/{id}/compare", s.page(s.comparePage))
	s.mux.HandleFunc("GET /runs/{uuid}/{path...}", s.runFiles)
	s.mux.HandleFunc("GET /api/series", s.api(s.apiSeries))
	s.mux.HandleFunc("GET /api/history", s.api(s.apiHistory))
	s.mux.HandleFunc("GET /api/builds/{id}", s.api(s.apiBuild))
	s.mux.HandleFunc("GET /api/runs/{uuid}", s.api(s.apiRun))
	s.mux.HandleFunc("GET /api/compare", s.api(s.apiCompare))
	s.mux.HandleFunc("GET /alerts", s.page(s.alertsPage))
	s.mux.HandleFunc("GET /api/alerts", s.api(s.apiAlerts))
	s.mux.HandleFunc("POST /api/alerts/{id}/triage", s.api(s.apiTriage))
	s.mux.HandleFunc("/api/", s.api(func(r *http.Request) (any, error) {
		return nil, notFound("no endpoint %s %s", r.Method, r.URL.Path)
	}))
	s.mux.HandleFunc("/", s.page(func(r *http.Request) (string, any, error) {
		return "", nil, notFound("no page %s %s", r.Method, r.URL.Path)
	}))
	return s, nil
}

// ServeHTTP serves the pages, the API and the assets.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The pages load nothing from elsewhere and run only their own
	// scripts: a string from the store that escaped its escaping would
	// still not run.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// Timeouts of the HTTP server: a slow or stalled client cannot hold a
// connection for long, and a page over a large store has time to be made.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 10 * time.Second
)

// Serve serves h on addr (DefaultAddr when empty) until ctx is done, then
// shuts down gracefully: requests in flight get shutdownTimeout to finish.
// listening is called with the server's URL once it accepts connections.
func Serve(ctx context.Context, addr string, h http.Handler, listening func(url string)) error {
	if addr == "" {
		addr = DefaultAddr
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
	}
	failed := make(chan struct{})
	stopped := make(chan error, 1)
	go func() {
		select {
		case <-failed:
			stopped <- nil
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
			defer cancel()
			stopped <- srv.Shutdown(sctx)
		}
	}()
	if listening != nil {
		listening("http://" + ln.Addr().String() + "/")
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		close(failed)
		<-stopped
		return err
	}
	return <-stopped
}
