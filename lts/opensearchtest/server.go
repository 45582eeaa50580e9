package opensearchtest

import (
	"crypto/subtle"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"maps"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Config configures a test server. The zero value is a server without
// authentication.
type Config struct {
	// Username and Password, when Username is set, require HTTP basic
	// authentication on every request, as the security plugin does.
	Username string
	Password string
	// Seed seeds the random source behind probabilistic item faults.
	Seed uint64
	// MaxContentLength, when above 0, is OpenSearch's
	// http.max_content_length: a request whose body is longer is answered
	// 413 with an empty body, as OpenSearch's HTTP layer does (a proxy's
	// client_max_body_size answers the same status), and nothing in it is
	// applied.
	MaxContentLength int
}

// TestServer is an in-memory, single-node OpenSearch on a loopback port,
// closed when the test that started it ends. It is safe for concurrent use.
type TestServer struct {
	// URL is the base URL, http://127.0.0.1:PORT or https://...
	URL string

	cfg     Config
	http    *httptest.Server
	caPEM   []byte        // TLS only: the certificate clients must trust
	closing chan struct{} // closed on Close: releases Delay faults

	mu        sync.Mutex // guards everything below
	rng       *rand.Rand
	indices   map[string]*index
	templates map[string]*template
	rules     []*Injection
	requests  map[Endpoint]int
	// sorted are the matches of the searches made since the last request
	// that may write, by index, query and sort (see search).
	sorted map[string]*sortedHits
	bulks  []BulkStat
}

// quietLog drops net/http's server log: failed TLS handshakes and dropped
// connections are what the tests ask for.
var quietLog = log.New(io.Discard, "", 0)

// Start starts a plain-HTTP server, closed when the test ends.
func Start(tb testing.TB, cfg Config) *TestServer { return start(tb, cfg, false) }

// StartTLS starts an HTTPS server with a self-signed certificate, closed
// when the test ends. Clients verifying certificates reject it unless they
// trust the file CACertFile writes.
func StartTLS(tb testing.TB, cfg Config) *TestServer { return start(tb, cfg, true) }

func start(tb testing.TB, cfg Config, useTLS bool) *TestServer {
	tb.Helper()
	ts := &TestServer{
		cfg:       cfg,
		closing:   make(chan struct{}),
		rng:       rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		indices:   map[string]*index{},
		templates: map[string]*template{},
		requests:  map[Endpoint]int{},
	}
	ts.http = httptest.NewUnstartedServer(http.HandlerFunc(ts.serveHTTP))
	ts.http.Config.ErrorLog = quietLog
	if useTLS {
		ts.http.StartTLS()
		ts.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.http.Certificate().Raw})
	} else {
		ts.http.Start()
	}
	ts.URL = ts.http.URL
	tb.Cleanup(func() {
		close(ts.closing)
		ts.http.Close()
	})
	return ts
}

// CACertFile writes the PEM certificate of a TLS server to a file in the
// test's temporary directory and returns its path: what --ca-cert takes.
func (ts *TestServer) CACertFile(tb testing.TB) string {
	tb.Helper()
	if ts.caPEM == nil {
		tb.Fatal("opensearchtest: CACertFile on a server without TLS")
	}
	path := filepath.Join(tb.TempDir(), "opensearchtest-ca.pem")
	if err := os.WriteFile(path, ts.caPEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Client is an *http.Client that trusts the server (its TLS certificate
// included), for requests a test sends itself.
func (ts *TestServer) Client() *http.Client { return ts.http.Client() }

// ---- errors and answers

// apiError is an error answer with OpenSearch's shape:
// {"error":{"root_cause":[...],"type":...,"reason":...},"status":...}.
type apiError struct {
	status int
	typ    string
	reason string
}

func errorf(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, reason: fmt.Sprintf(format, args...)}
}

func (e *apiError) Error() string { return e.typ + ": " + e.reason }

// body is what the item or request answer carries under "error".
func (e *apiError) body() map[string]any {
	cause := map[string]any{"type": e.typ, "reason": e.reason}
	return map[string]any{"root_cause": []any{cause}, "type": e.typ, "reason": e.reason}
}

// notSupported answers what the fake does not model: a store change that
// sends something new shows up as this failure, not as a silent success.
func notSupported(format string, args ...any) *apiError {
	return errorf(http.StatusNotImplemented, "opensearchtest_not_implemented", "opensearchtest: "+format, args...)
}

func badRequest(typ, format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, typ, format, args...)
}

func indexNotFound(name string) *apiError {
	return errorf(http.StatusNotFound, "index_not_found_exception", "no such index [%s]", name)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"opensearchtest: cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, map[string]any{"error": e.body(), "status": e.status})
}

// ---- routing

// request is one request as the handlers see it.
type request struct {
	target string            // index expression or template name from the path
	params map[string]string // URL parameters
	body   []byte
	items  *itemFaults // bulk only: items to fail
}

// handler answers a request with a status and a value to encode, or an
// error. It runs with the server's lock held.
type handler func(ts *TestServer, rq *request) (int, any, *apiError)

// route finds the endpoint of a request, the handler and the URL
// parameters it accepts. Anything else is not modelled.
func route(method string, segs []string) (Endpoint, handler, []string) {
	n := len(segs)
	switch {
	case n == 1 && segs[0] == "_bulk" && method == http.MethodPost:
		return EndpointBulk, (*TestServer).bulk, nil
	case n == 2 && segs[0] == "_index_template" && method == http.MethodHead:
		return EndpointIndexTemplate, (*TestServer).templateExists, nil
	case n == 2 && segs[0] == "_index_template" && method == http.MethodPut:
		return EndpointIndexTemplate, (*TestServer).putTemplate, nil
	case n == 2 && segs[1] == "_search" && (method == http.MethodPost || method == http.MethodGet):
		return EndpointSearch, (*TestServer).search, nil
	case n == 2 && segs[1] == "_count" && (method == http.MethodPost || method == http.MethodGet):
		return EndpointCount, (*TestServer).count, nil
	case n == 2 && segs[1] == "_field_caps" && (method == http.MethodPost || method == http.MethodGet):
		return EndpointFieldCaps, (*TestServer).fieldCaps, []string{"fields"}
	case n == 2 && segs[1] == "_refresh" && (method == http.MethodPost || method == http.MethodGet):
		return EndpointRefresh, (*TestServer).refresh, []string{"ignore_unavailable"}
	}
	return EndpointOther, nil, nil
}

// serveHTTP counts a request, authenticates it, applies the first fault
// rule that fires and hands it to its handler.
func (ts *TestServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	var segs []string
	for _, s := range strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/") {
		if u, err := url.PathUnescape(s); err == nil && u != "" {
			segs = append(segs, u)
		}
	}
	ep, h, known := route(r.Method, segs)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, badRequest("parse_exception", "cannot read the request body: %v", err))
		return
	}
	ts.mu.Lock()
	ts.requests[ep]++
	if ep == EndpointBulk {
		actions, _ := parseBulk(body)
		ts.bulks = append(ts.bulks, BulkStat{Actions: len(actions), Bytes: len(body)})
	}
	ts.mu.Unlock()
	if ts.cfg.MaxContentLength > 0 && len(body) > ts.cfg.MaxContentLength {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		return
	}
	if !ts.authorized(w, r) {
		return
	}
	rq := &request{params: map[string]string{}, body: body}
	if len(segs) > 0 {
		rq.target = segs[0]
		if segs[0] == "_index_template" && len(segs) > 1 {
			rq.target = segs[1]
		}
	}
	for k, v := range r.URL.Query() {
		rq.params[k] = v[len(v)-1]
	}
	serve := func(w http.ResponseWriter) {
		ts.mu.Lock()
		status, v, e := ts.handle(ep, h, known, r, rq)
		ts.mu.Unlock()
		switch {
		case e != nil:
			writeError(w, e)
		case v == nil: // HEAD
			w.WriteHeader(status)
		default:
			writeJSON(w, status, v)
		}
	}
	if f, in := ts.pickFault(ep); f != nil {
		if ts.applyFault(w, r, rq, f, in, serve) {
			return
		}
	}
	serve(w)
}

// handle checks what every endpoint checks, then runs the handler.
func (ts *TestServer) handle(ep Endpoint, h handler, known []string, r *http.Request, rq *request) (int, any, *apiError) {
	if ep == EndpointOther {
		return 0, nil, notSupported("[%s %s] is not modelled", r.Method, r.URL.Path)
	}
	if ep != EndpointSearch && ep != EndpointCount && ep != EndpointFieldCaps {
		ts.sorted = nil // a request that may write: searches look again
	}
	for _, p := range slices.Sorted(maps.Keys(rq.params)) {
		if !slices.Contains(known, p) {
			return 0, nil, notSupported("parameter [%s] of [%s %s] is not modelled", p, r.Method, r.URL.Path)
		}
	}
	if len(rq.body) > 0 {
		// OpenSearch refuses bodies of other types with 406.
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "application/json" && mt != "application/x-ndjson") {
			return 0, nil, errorf(http.StatusNotAcceptable, "content_type_exception", "Content-Type header [%s] is not supported", r.Header.Get("Content-Type"))
		}
	}
	return h(ts, rq)
}

// authorized answers 401 as the security plugin does unless the request
// carries the configured credentials.
func (ts *TestServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	if ts.cfg.Username == "" {
		return true
	}
	u, p, ok := r.BasicAuth()
	if ok && subtle.ConstantTimeCompare([]byte(u), []byte(ts.cfg.Username)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(ts.cfg.Password)) == 1 {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="OpenSearch Security"`)
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, "Unauthorized")
	return false
}

// ---- what tests inspect

// DocCount is the number of documents in an index, refreshed or not; 0
// when the index does not exist.
func (ts *TestServer) DocCount(index string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ix := ts.indices[index]; ix != nil {
		return len(ix.docs)
	}
	return 0
}

// Doc returns a document's _source as stored, refreshed or not.
func (ts *TestServer) Doc(index, id string) (json.RawMessage, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ix := ts.indices[index]; ix != nil {
		if d := ix.docs[id]; d != nil {
			return slices.Clone(d.source), true
		}
	}
	return nil, false
}

// Mapping returns an index's mapped fields as dotted path -> type ("object"
// for objects, sub-fields such as "name.keyword" included); nil when the
// index does not exist.
func (ts *TestServer) Mapping(index string) map[string]string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ix := ts.indices[index]; ix != nil {
		return maps.Clone(ix.mapping.types)
	}
	return nil
}

// Template returns an index template's body as it was put.
func (ts *TestServer) Template(name string) (json.RawMessage, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.templates[name]; t != nil {
		return slices.Clone(t.body), true
	}
	return nil, false
}

// Requests is how many requests an endpoint has received, faulted and
// unauthorised ones included.
func (ts *TestServer) Requests(ep Endpoint) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.requests[ep]
}

// RequestCounts is the number of requests per endpoint.
func (ts *TestServer) RequestCounts() map[Endpoint]int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return maps.Clone(ts.requests)
}

// BulkStat describes one bulk request the server received.
type BulkStat struct {
	Actions int // operations in the body; 0 when it does not parse
	Bytes   int // body size
}

// BulkRequests lists the bulk requests received, in arrival order.
func (ts *TestServer) BulkRequests() []BulkStat {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.bulks)
}

// ResetStats zeroes the request counters and the bulk request list.
func (ts *TestServer) ResetStats() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	clear(ts.requests)
	ts.bulks = nil
}
