package opensearchtest

import (
	"bytes"
	"compress/gzip"
	"crypto/subtle"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
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
	"time"
)

// DefaultVersion is the OpenSearch version GET / reports unless Config says
// otherwise.
const DefaultVersion = "2.11.1"

// Config configures a Server. The zero value is a server without
// authentication whose writes become searchable only on refresh.
type Config struct {
	// Username and Password, when Username is set, require HTTP basic
	// authentication on every request, as the security plugin does.
	Username string
	Password string
	// AutoRefresh makes every write searchable at once. Without it documents
	// are searchable only after a refresh (POST _refresh, ?refresh=true or
	// wait_for), which is what a client that searches right after writing
	// must cope with on a real cluster.
	AutoRefresh bool
	// Seed seeds the random source behind probabilistic faults and generated
	// ids and UUIDs.
	Seed uint64
	// Version is the version GET / reports; DefaultVersion when empty.
	Version string
	// MaxContentLength rejects larger request bodies with 413, like
	// http.max_content_length; 100 MiB when zero.
	MaxContentLength int64
	// Now is the clock behind "now" in date math; time.Now when nil.
	Now func() time.Time
}

// Server is an in-memory, single-node OpenSearch 2.x that answers the REST
// calls an LTS store makes. It is an http.Handler and safe for concurrent
// use.
type Server struct {
	cfg         Config
	nodeID      string
	clusterUUID string
	closing     chan struct{}
	closeOnce   sync.Once

	mu        sync.RWMutex // guards indices and templates
	indices   map[string]*index
	templates map[string]*indexTemplate

	rngMu sync.Mutex
	rng   *rand.Rand

	faultMu sync.Mutex
	rules   []*Injection

	statsMu  sync.Mutex
	requests map[Endpoint]int
	bulks    []BulkStat
}

// BulkStat describes one bulk request the server received.
type BulkStat struct {
	Actions     int  // operations in the body; 0 when it does not parse
	Bytes       int  // body size as sent (compressed size for gzip bodies)
	Status      int  // HTTP status answered; 0 when the connection was dropped
	FailedItems int  // items answered with an error
	Faulted     bool // a request-level fault (status or drop) was injected
}

// New returns a Server.
func New(cfg Config) *Server {
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	if cfg.MaxContentLength == 0 {
		cfg.MaxContentLength = 100 << 20
	}
	s := &Server{
		cfg:       cfg,
		closing:   make(chan struct{}),
		indices:   map[string]*index{},
		templates: map[string]*indexTemplate{},
		rng:       rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		requests:  map[Endpoint]int{},
	}
	s.nodeID = s.newUUID()
	s.clusterUUID = s.newUUID()
	return s
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

func (s *Server) float64() float64 {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64()
}

func (s *Server) randomBytes(b []byte) {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	for i := range b {
		b[i] = byte(s.rng.Uint32())
	}
}

// request is one HTTP request on its way through the server.
type request struct {
	r        *http.Request
	method   string
	path     string
	endpoint Endpoint
	index    string // index expression from the path
	name     string // template name or document id
	docOp    string // "_doc" or "_create"
	query    map[string]string
	body     []byte
	rawSize  int

	status      int
	responded   bool
	onRespond   func()
	faulted     bool
	bulkActions int
	bulkFailed  int
	items       *ItemFault
	itemsInj    *Injection
}

// jsonBody parses the body; nil when there is none.
func (rq *request) jsonBody() (*jv, *apiError) {
	if len(bytes.TrimSpace(rq.body)) == 0 {
		return nil, nil
	}
	v, err := parseJSONStrict(rq.body)
	if err != nil {
		return nil, errJSON(err)
	}
	return v, nil
}

// statusRecorder tells the request the status it answers with, just before
// the status line goes out, so that what a test reads after the response
// (BulkRequests) already includes this request.
type statusRecorder struct {
	http.ResponseWriter
	rq *request
}

func (w *statusRecorder) WriteHeader(code int) {
	w.rq.responding(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	w.rq.responding(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// responding runs the request's onRespond hook once; status 0 means the
// connection is being dropped.
func (rq *request) responding(status int) {
	if rq.responded {
		return
	}
	rq.responded = true
	rq.status = status
	if rq.onRespond != nil {
		rq.onRespond()
	}
}

// ServeHTTP routes a request: classify it, count it, read its body, apply
// any injected fault, authenticate, then handle it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rq := &request{r: r, method: r.Method, path: r.URL.EscapedPath(), query: map[string]string{}}
	for k, v := range r.URL.Query() {
		rq.query[k] = v[len(v)-1]
	}
	route := s.classify(rq)
	s.count(rq.endpoint)
	rec := &statusRecorder{ResponseWriter: w, rq: rq}
	if rq.endpoint == EndpointBulk {
		rq.onRespond = func() { s.recordBulk(rq) }
	}
	if err := s.readBody(rq); err != nil {
		switch {
		case err.status == http.StatusRequestEntityTooLarge:
			rec.Header().Set("Content-Length", "0")
			rec.WriteHeader(http.StatusRequestEntityTooLarge)
		case err.typ == "":
			writeSimpleError(rec, err.status, err.reason)
		default:
			writeError(rec, err)
		}
		return
	}
	serve := func(w http.ResponseWriter) {
		if !s.authorized(w, r) {
			return
		}
		route(w, rq)
	}
	if f, in := s.pickFault(rq.endpoint); f != nil {
		if s.applyFault(rec, rq, f, in, serve) {
			return
		}
	}
	serve(rec)
}

func (s *Server) count(ep Endpoint) {
	s.statsMu.Lock()
	s.requests[ep]++
	s.statsMu.Unlock()
}

func (s *Server) recordBulk(rq *request) {
	st := BulkStat{Actions: rq.bulkActions, Bytes: rq.rawSize, Status: rq.status, FailedItems: rq.bulkFailed, Faulted: rq.faulted}
	if rq.bulkActions == 0 && len(rq.body) > 0 {
		// The handler did not run (a fault, or authentication).
		if actions, err := parseBulk(rq.body, rq.index); err == nil {
			st.Actions = len(actions)
		}
	}
	s.statsMu.Lock()
	s.bulks = append(s.bulks, st)
	s.statsMu.Unlock()
}

// readBody reads the whole body, enforcing the size limit, the content type
// OpenSearch accepts and gzip content encoding.
func (s *Server) readBody(rq *request) *apiError {
	r := rq.r
	if r.Body == nil {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxContentLength+1))
	if err != nil {
		return newError(http.StatusBadRequest, "parse_exception", "cannot read request body: %v", err)
	}
	if int64(len(raw)) > s.cfg.MaxContentLength {
		return &apiError{status: http.StatusRequestEntityTooLarge}
	}
	rq.rawSize = len(raw)
	if len(raw) == 0 {
		return nil
	}
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return newError(http.StatusBadRequest, "parse_exception", "cannot decompress request body: %v", err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, s.cfg.MaxContentLength+1)); err != nil {
			return newError(http.StatusBadRequest, "parse_exception", "cannot decompress request body: %v", err)
		}
	}
	rq.body = raw
	ct := r.Header.Values("Content-Type")
	if len(ct) == 0 {
		return &apiError{status: http.StatusNotAcceptable, reason: "Content-Type header is missing"}
	}
	mt, _, err := mime.ParseMediaType(ct[0])
	if err != nil || (mt != "application/json" && mt != "application/x-ndjson") {
		return &apiError{status: http.StatusNotAcceptable, reason: "Content-Type header [" + strings.Join(ct, ",") + "] is not supported"}
	}
	return nil
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Username == "" {
		return true
	}
	u, p, ok := r.BasicAuth()
	if ok && subtle.ConstantTimeCompare([]byte(u), []byte(s.cfg.Username)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(s.cfg.Password)) == 1 {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="OpenSearch Security"`)
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, "Unauthorized")
	return false
}

type handler func(http.ResponseWriter, *request)

// endpointDef is one REST route: its methods and the URL parameters it
// accepts besides the common ones.
type endpointDef struct {
	methods []string
	params  string // space-separated
	handle  handler
}

const commonParams = "pretty human error_trace filter_path source source_content_type"

const (
	searchParams = "allow_no_indices allow_partial_search_results analyzer analyze_wildcard batched_reduce_size ccs_minimize_roundtrips default_operator df docvalue_fields expand_wildcards explain from ignore_throttled ignore_unavailable lenient max_concurrent_shard_requests min_compatible_shard_node preference pre_filter_shard_size q request_cache rest_total_hits_as_int routing scroll search_type seq_no_primary_term size sort _source _source_excludes _source_includes stats stored_fields suggest_field suggest_mode suggest_size suggest_text terminate_after timeout track_scores track_total_hits typed_keys version search_pipeline phase_took cancel_after_time_interval include_named_queries_score"
	countParams  = "allow_no_indices analyzer analyze_wildcard default_operator df expand_wildcards ignore_throttled ignore_unavailable lenient min_score preference q routing terminate_after"
	bulkParams   = "pipeline refresh routing timeout wait_for_active_shards require_alias _source _source_excludes _source_includes batch_size"
	docParams    = "if_primary_term if_seq_no op_type pipeline refresh routing timeout version version_type wait_for_active_shards require_alias preference realtime stored_fields _source _source_excludes _source_includes"
	masterParams = "master_timeout cluster_manager_timeout timeout"
)

// classify finds the route for a request and sets its endpoint, returning
// the function that serves it (which also checks method and parameters).
func (s *Server) classify(rq *request) handler {
	segs := []string{}
	for _, p := range strings.Split(strings.Trim(rq.path, "/"), "/") {
		if p == "" {
			continue
		}
		u, err := url.PathUnescape(p)
		if err != nil {
			u = p
		}
		segs = append(segs, u)
	}
	var ep Endpoint
	var def endpointDef
	switch {
	case len(segs) == 0:
		ep, def = EndpointInfo, endpointDef{[]string{"GET", "HEAD"}, "", s.handleInfo}
	case segs[0] == "_bulk" && len(segs) == 1:
		ep, def = EndpointBulk, endpointDef{[]string{"POST", "PUT"}, bulkParams, s.handleBulk}
	case segs[0] == "_search" && len(segs) == 1:
		ep, def = EndpointSearch, endpointDef{[]string{"GET", "POST"}, searchParams, s.handleSearch}
	case segs[0] == "_count" && len(segs) == 1:
		ep, def = EndpointCount, endpointDef{[]string{"GET", "POST"}, countParams, s.handleCount}
	case segs[0] == "_refresh" && len(segs) == 1:
		ep, def = EndpointRefresh, endpointDef{[]string{"GET", "POST"}, "allow_no_indices expand_wildcards ignore_unavailable", s.handleRefresh}
	case segs[0] == "_index_template" && len(segs) == 1:
		ep, def = EndpointIndexTemplate, endpointDef{[]string{"GET"}, "flat_settings local " + masterParams, s.handleGetTemplate}
	case segs[0] == "_index_template" && len(segs) == 2:
		rq.name = segs[1]
		ep, def = EndpointIndexTemplate, endpointDef{[]string{"GET", "HEAD", "PUT", "POST", "DELETE"}, "flat_settings local create cause " + masterParams, s.handleTemplate}
	case segs[0] == "_cluster" && len(segs) >= 2 && segs[1] == "health" && len(segs) <= 3:
		ep, def = EndpointClusterHealth, endpointDef{[]string{"GET"}, "expand_wildcards level local wait_for_active_shards wait_for_nodes wait_for_events wait_for_no_relocating_shards wait_for_no_initializing_shards wait_for_status awareness_attribute ensure_node_commissioned " + masterParams, s.handleHealth}
	case strings.HasPrefix(segs[0], "_") && len(segs) > 1:
		ep = EndpointOther
	case len(segs) == 1:
		// As in OpenSearch, a lone unknown "_name" is an index name, which
		// index creation then rejects.
		ep, def = EndpointIndex, endpointDef{[]string{"HEAD", "GET", "PUT", "DELETE"}, "allow_no_indices expand_wildcards flat_settings ignore_unavailable include_defaults local wait_for_active_shards " + masterParams, s.handleIndex}
	case len(segs) == 2 && segs[1] == "_bulk":
		ep, def = EndpointBulk, endpointDef{[]string{"POST", "PUT"}, bulkParams, s.handleBulk}
	case len(segs) == 2 && segs[1] == "_search":
		ep, def = EndpointSearch, endpointDef{[]string{"GET", "POST"}, searchParams, s.handleSearch}
	case len(segs) == 2 && segs[1] == "_count":
		ep, def = EndpointCount, endpointDef{[]string{"GET", "POST"}, countParams, s.handleCount}
	case len(segs) == 2 && segs[1] == "_refresh":
		ep, def = EndpointRefresh, endpointDef{[]string{"GET", "POST"}, "allow_no_indices expand_wildcards ignore_unavailable", s.handleRefresh}
	case len(segs) == 2 && segs[1] == "_mapping":
		ep, def = EndpointMapping, endpointDef{[]string{"GET"}, "allow_no_indices expand_wildcards ignore_unavailable local " + masterParams, s.handleMapping}
	case len(segs) == 2 && segs[1] == "_doc":
		rq.docOp = "_doc"
		ep, def = EndpointDoc, endpointDef{[]string{"POST"}, docParams, s.handleDoc}
	case len(segs) == 3 && (segs[1] == "_doc" || segs[1] == "_create"):
		rq.docOp, rq.name = segs[1], segs[2]
		methods := []string{"GET", "HEAD", "PUT", "POST", "DELETE"}
		if segs[1] == "_create" {
			methods = []string{"PUT", "POST"}
		}
		ep, def = EndpointDoc, endpointDef{methods, docParams, s.handleDoc}
	default:
		ep = EndpointOther
	}
	rq.endpoint = ep
	if len(segs) > 0 && (ep == EndpointIndex || !strings.HasPrefix(segs[0], "_")) {
		rq.index = segs[0]
	}
	if len(segs) == 3 && segs[0] == "_cluster" {
		rq.index = segs[2]
	}
	if ep == EndpointOther {
		return func(w http.ResponseWriter, rq *request) {
			writeError(w, errNotImplemented("opensearchtest: [%s %s] is not modelled", rq.method, rq.path))
		}
	}
	return func(w http.ResponseWriter, rq *request) {
		if !slices.Contains(def.methods, rq.method) {
			w.Header().Set("Allow", strings.Join(def.methods, ","))
			writeSimpleError(w, http.StatusMethodNotAllowed, fmt.Sprintf("Incorrect HTTP method for uri [%s] and method [%s], allowed: [%s]", rq.r.URL.RequestURI(), rq.method, strings.Join(def.methods, ", ")))
			return
		}
		if err := checkParams(rq, def.params); err != nil {
			writeError(w, err)
			return
		}
		def.handle(w, rq)
	}
}

// checkParams rejects URL parameters the endpoint does not know, as
// BaseRestHandler does, with its "did you mean" suggestions.
func checkParams(rq *request, params string) *apiError {
	known := strings.Fields(commonParams + " " + params)
	var bad []string
	for k := range rq.query {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	var b strings.Builder
	plural := ""
	if len(bad) > 1 {
		plural = "s"
	}
	fmt.Fprintf(&b, "request [%s] contains unrecognized parameter%s: ", rq.r.URL.Path, plural)
	for i, p := range bad {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s]", p)
		var cands []string
		for _, c := range known {
			if similarity(p, c) > 0.5 {
				cands = append(cands, c)
			}
		}
		slices.SortFunc(cands, func(x, y string) int {
			dx, dy := similarity(p, x), similarity(p, y)
			if dx != dy {
				return cmpFloat(dy, dx)
			}
			return strings.Compare(x, y)
		})
		switch len(cands) {
		case 0:
		case 1:
			fmt.Fprintf(&b, " -> did you mean [%s]?", cands[0])
		default:
			fmt.Fprintf(&b, " -> did you mean any of [%s]?", strings.Join(cands, ", "))
		}
	}
	return errIllegalArgument("%s", b.String())
}

// similarity is Lucene's LevenshteinDistance: 1 - distance / longer length.
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(max(len(ra), len(rb)))
}

// rejectBody answers as OpenSearch does when an endpoint that takes no body
// got one.
func rejectBody(w http.ResponseWriter, rq *request) bool {
	if len(rq.body) == 0 {
		return false
	}
	writeError(w, errIllegalArgument("request [%s %s] does not support having a body", rq.method, rq.r.URL.Path))
	return true
}

func (s *Server) handleInfo(w http.ResponseWriter, rq *request) {
	if rejectBody(w, rq) {
		return
	}
	if rq.method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	type version struct {
		Distribution         string `json:"distribution"`
		Number               string `json:"number"`
		BuildType            string `json:"build_type"`
		BuildHash            string `json:"build_hash"`
		BuildDate            string `json:"build_date"`
		BuildSnapshot        bool   `json:"build_snapshot"`
		LuceneVersion        string `json:"lucene_version"`
		MinWireCompatibility string `json:"minimum_wire_compatibility_version"`
		MinIndexCompatibilty string `json:"minimum_index_compatibility_version"`
	}
	writeJSON(w, http.StatusOK, struct {
		Name        string  `json:"name"`
		ClusterName string  `json:"cluster_name"`
		ClusterUUID string  `json:"cluster_uuid"`
		Version     version `json:"version"`
		Tagline     string  `json:"tagline"`
	}{
		Name: "opensearchtest", ClusterName: "opensearchtest", ClusterUUID: s.clusterUUID,
		Version: version{
			Distribution: "opensearch", Number: s.cfg.Version, BuildType: "tar",
			BuildHash: "0000000000000000000000000000000000000000", BuildDate: "2023-11-21T23:56:17.545937000Z",
			LuceneVersion: "9.7.0", MinWireCompatibility: "7.10.0", MinIndexCompatibilty: "7.0.0",
		},
		Tagline: "The OpenSearch Project: https://opensearch.org/",
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, rq *request) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	indices, err := s.resolveIndices(rq.index, false)
	if err != nil {
		writeError(w, err)
		return
	}
	primaries, unassigned := 0, 0
	for _, ix := range indices {
		primaries += ix.shards()
		unassigned += ix.shards() * ix.replicas()
	}
	status := "green"
	if unassigned > 0 {
		status = "yellow"
	}
	pct := 100.0
	if primaries+unassigned > 0 {
		pct = 100 * float64(primaries) / float64(primaries+unassigned)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"cluster_name": "opensearchtest", "status": status, "timed_out": false,
		"number_of_nodes": 1, "number_of_data_nodes": 1, "discovered_master": true, "discovered_cluster_manager": true,
		"active_primary_shards": primaries, "active_shards": primaries, "relocating_shards": 0,
		"initializing_shards": 0, "unassigned_shards": unassigned, "delayed_unassigned_shards": 0,
		"number_of_pending_tasks": 0, "number_of_in_flight_fetch": 0, "task_max_waiting_in_queue_millis": 0,
		"active_shards_percent_as_number": pct,
	})
}

func (s *Server) handleGetTemplate(w http.ResponseWriter, rq *request) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	list := []any{}
	for _, n := range sortedKeys(s.templates) {
		list = append(list, map[string]any{"name": n, "index_template": renderTemplate(s.templates[n])})
	}
	writeJSON(w, http.StatusOK, map[string]any{"index_templates": list})
}

func (s *Server) handleTemplate(w http.ResponseWriter, rq *request) {
	name := rq.name
	switch rq.method {
	case http.MethodGet, http.MethodHead:
		s.mu.RLock()
		defer s.mu.RUnlock()
		list := []any{}
		for _, n := range sortedKeys(s.templates) {
			if simpleMatch(name, n) {
				list = append(list, map[string]any{"name": n, "index_template": renderTemplate(s.templates[n])})
			}
		}
		switch {
		case rq.method == http.MethodHead && len(list) == 0:
			w.WriteHeader(http.StatusNotFound)
		case rq.method == http.MethodHead:
			w.WriteHeader(http.StatusOK)
		case len(list) == 0 && !strings.Contains(name, "*"):
			writeError(w, newError(http.StatusNotFound, "resource_not_found_exception", "index template matching [%s] not found", name))
		case len(list) == 0:
			writeJSON(w, http.StatusNotFound, map[string]any{"index_templates": list})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"index_templates": list})
		}
	case http.MethodDelete:
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.templates[name]; !ok {
			writeError(w, newError(http.StatusNotFound, "index_template_missing_exception", "index_template [%s] missing", name))
			return
		}
		delete(s.templates, name)
		writeJSON(w, http.StatusOK, map[string]any{"acknowledged": true})
	default:
		body, err := rq.jsonBody()
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, exists := s.templates[name]; exists && rq.query["create"] == "true" {
			writeError(w, errIllegalArgument("index template [%s] already exists", name))
			return
		}
		t, err := s.parseTemplate(name, body)
		if err != nil {
			writeError(w, err)
			return
		}
		s.templates[name] = t
		writeJSON(w, http.StatusOK, map[string]any{"acknowledged": true})
	}
}

func (s *Server) handleIndex(w http.ResponseWriter, rq *request) {
	switch rq.method {
	case http.MethodHead:
		if rejectBody(w, rq) {
			return
		}
		s.mu.RLock()
		defer s.mu.RUnlock()
		indices, err := s.resolveIndices(rq.index, false)
		if err != nil || len(indices) == 0 {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	case http.MethodPut:
		body, err := rq.jsonBody()
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, err := s.createIndex(rq.index, body); err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"acknowledged": true, "shards_acknowledged": true, "index": rq.index})
	case http.MethodDelete:
		if rejectBody(w, rq) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
		if err != nil {
			writeError(w, err)
			return
		}
		for _, ix := range indices {
			delete(s.indices, ix.name)
		}
		writeJSON(w, http.StatusOK, map[string]any{"acknowledged": true})
	default: // GET
		s.mu.RLock()
		defer s.mu.RUnlock()
		indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
		if err != nil {
			writeError(w, err)
			return
		}
		out := map[string]any{}
		for _, ix := range indices {
			settings := map[string]string{
				"index.number_of_shards": "1", "index.number_of_replicas": "1",
				"index.uuid": ix.uuid, "index.provided_name": ix.name,
			}
			for k, v := range ix.settings {
				settings[k] = v
			}
			aliases := any(map[string]any{})
			if ix.aliases != nil {
				aliases = ix.aliases.goValue()
			}
			out[ix.name] = map[string]any{"aliases": aliases, "mappings": ix.mapping.render(), "settings": nestSettings(settings)}
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func (s *Server) handleMapping(w http.ResponseWriter, rq *request) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
	if err != nil {
		writeError(w, err)
		return
	}
	out := map[string]any{}
	for _, ix := range indices {
		out[ix.name] = map[string]any{"mappings": ix.mapping.render()}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleRefresh(w http.ResponseWriter, rq *request) {
	if rejectBody(w, rq) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
	if err != nil {
		writeError(w, err)
		return
	}
	total, ok := 0, 0
	for _, ix := range indices {
		ix.refresh()
		total += ix.shards() * (1 + ix.replicas())
		ok += ix.shards()
	}
	writeJSON(w, http.StatusOK, map[string]any{"_shards": shardCounts{Total: total, Successful: ok}})
}

// docResponse is a single-document write's response: a bulk item without
// its status.
type docResponse struct {
	Index         string       `json:"_index"`
	ID            string       `json:"_id"`
	Version       int64        `json:"_version"`
	Result        string       `json:"result"`
	ForcedRefresh bool         `json:"forced_refresh,omitempty"`
	Shards        *shardCounts `json:"_shards"`
	SeqNo         *int64       `json:"_seq_no"`
	PrimaryTerm   *int64       `json:"_primary_term"`
}

// handleDoc serves the single-document APIs.
func (s *Server) handleDoc(w http.ResponseWriter, rq *request) {
	if rq.method == http.MethodGet || rq.method == http.MethodHead {
		s.getDoc(w, rq)
		return
	}
	refresh, err := refreshParam(rq)
	if err != nil {
		writeError(w, err)
		return
	}
	a := &bulkAction{action: "index", index: rq.index, id: rq.name, ifSeqNo: unassignedSeqNo, version: matchAnyVersion, source: rq.body}
	switch {
	case rq.method == http.MethodDelete:
		a.action = "delete"
	case rq.docOp == "_create" || rq.query["op_type"] == "create":
		a.action = "create"
	}
	meta := &jv{kind: jObject}
	for _, k := range []string{"if_seq_no", "if_primary_term", "version", "version_type"} {
		if v, ok := rq.query[k]; ok {
			meta.obj = append(meta.obj, jmember{key: k, val: &jv{kind: jString, s: v}})
		}
	}
	if err := a.parseMeta(meta, 1); err != nil {
		writeError(w, err)
		return
	}
	if a.action != "delete" {
		if _, err := rq.jsonBody(); err != nil {
			writeError(w, err)
			return
		}
	}
	if p := a.validate(); len(p) > 0 {
		writeError(w, errValidation(p))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.indices[a.index]; !ok && a.action == "delete" {
		writeError(w, errIndexNotFound(a.index))
		return
	}
	res := s.write(a)
	if res.Error != nil {
		writeError(w, res.Error)
		return
	}
	if ix := s.indices[res.Index]; ix != nil && (refresh != "" || s.cfg.AutoRefresh) {
		ix.refresh()
	}
	writeJSON(w, res.Status, docResponse{
		Index: res.Index, ID: res.ID, Version: res.Version, Result: res.Result, ForcedRefresh: refresh == "true",
		Shards: res.Shards, SeqNo: res.SeqNo, PrimaryTerm: res.PrimaryTerm,
	})
}

func (s *Server) getDoc(w http.ResponseWriter, rq *request) {
	if rq.query["refresh"] == "true" || rq.query["refresh"] == "" && hasKey(rq.query, "refresh") {
		s.mu.Lock()
		if ix := s.indices[rq.index]; ix != nil {
			ix.refresh()
		}
		s.mu.Unlock()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indices[rq.index]
	if ix == nil {
		if rq.method == http.MethodHead {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		writeError(w, errIndexNotFound(rq.index))
		return
	}
	var d *docVersion
	if e := ix.docs[rq.name]; e != nil {
		d = e.latest
		if rq.query["realtime"] == "false" {
			d = e.visible
		}
	}
	if rq.method == http.MethodHead {
		if d == nil {
			w.WriteHeader(http.StatusNotFound)
		} else {
			w.WriteHeader(http.StatusOK)
		}
		return
	}
	if d == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"_index": ix.name, "_id": rq.name, "found": false})
		return
	}
	var f sourceFilter
	_ = sourceParams(&f, rq.query)
	term := int64(1)
	writeJSON(w, http.StatusOK, struct {
		Index       string          `json:"_index"`
		ID          string          `json:"_id"`
		Version     int64           `json:"_version"`
		SeqNo       int64           `json:"_seq_no"`
		PrimaryTerm int64           `json:"_primary_term"`
		Found       bool            `json:"found"`
		Source      json.RawMessage `json:"_source,omitempty"`
	}{ix.name, d.id, d.version, d.seqNo, term, true, f.apply(d.source)})
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// --- Introspection for tests ---

// Indices lists the existing indices, sorted.
func (s *Server) Indices() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return sortedKeys(s.indices)
}

// DocCount is the number of documents in an index as a get sees them,
// refreshed or not; 0 when the index does not exist.
func (s *Server) DocCount(index string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ix := s.indices[index]; ix != nil {
		return ix.live
	}
	return 0
}

// SearchableCount is the number of documents a search of the index can find.
func (s *Server) SearchableCount(index string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	if ix := s.indices[index]; ix != nil {
		for _, e := range ix.docs {
			if e.visible != nil {
				n++
			}
		}
	}
	return n
}

// Doc returns a document's _source as stored, refreshed or not.
func (s *Server) Doc(index, id string) (json.RawMessage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ix := s.indices[index]; ix != nil {
		if e := ix.docs[id]; e != nil && e.latest != nil {
			return bytes.Clone(e.latest.source), true
		}
	}
	return nil, false
}

// DocIDs lists the ids of an index's documents, sorted.
func (s *Server) DocIDs(index string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []string
	if ix := s.indices[index]; ix != nil {
		for id, e := range ix.docs {
			if e.latest != nil {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// Version is a document's _version; 0 when it does not exist.
func (s *Server) Version(index, id string) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ix := s.indices[index]; ix != nil {
		if e := ix.docs[id]; e != nil && e.latest != nil {
			return e.latest.version
		}
	}
	return 0
}

// Mapping returns an index's mapped fields as dotted path -> type
// ("object" for objects, multi-fields such as "name.keyword" included).
func (s *Server) Mapping(index string) map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ix := s.indices[index]; ix != nil {
		return ix.mapping.flatFields()
	}
	return nil
}

// Template returns an index template as GET _index_template shows it.
func (s *Server) Template(name string) (json.RawMessage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.templates[name]
	if !ok {
		return nil, false
	}
	b, _ := json.Marshal(renderTemplate(t))
	return b, true
}

// Refresh makes writes searchable in the named indices, or in all.
func (s *Server) Refresh(indices ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(indices) == 0 {
		indices = sortedKeys(s.indices)
	}
	for _, n := range indices {
		if ix := s.indices[n]; ix != nil {
			ix.refresh()
		}
	}
}

// Put indexes one document directly, as a bulk index action would, for
// seeding test data; it is searchable after a refresh (or at once with
// AutoRefresh). source is JSON bytes or a value to marshal.
func (s *Server) Put(index, id string, source any) error {
	var raw []byte
	switch v := source.(type) {
	case []byte:
		raw = v
	case json.RawMessage:
		raw = v
	case string:
		raw = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("opensearchtest: marshal %s/%s: %w", index, id, err)
		}
		raw = b
	}
	a := &bulkAction{action: "index", index: index, id: id, source: raw, ifSeqNo: unassignedSeqNo, version: matchAnyVersion}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.write(a)
	if res.Error != nil {
		return fmt.Errorf("opensearchtest: put %s/%s: %w", index, id, res.Error)
	}
	if s.cfg.AutoRefresh {
		s.indices[res.Index].refresh()
	}
	return nil
}

// Requests is how many requests an endpoint has received, faulted ones
// included.
func (s *Server) Requests(ep Endpoint) int {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.requests[ep]
}

// RequestCounts is the number of requests per endpoint.
func (s *Server) RequestCounts() map[Endpoint]int {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	out := make(map[Endpoint]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

// BulkRequests lists the bulk requests received, in arrival order.
func (s *Server) BulkRequests() []BulkStat {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return slices.Clone(s.bulks)
}

// ResetStats zeroes the request counters and the bulk request list.
func (s *Server) ResetStats() {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	clear(s.requests)
	s.bulks = nil
}

// Close releases requests held by Delay faults. TestServer.Close calls it.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
}

// --- Test servers ---

// TestServer is a Server listening on a loopback port.
type TestServer struct {
	*Server
	// URL is the base URL, http://127.0.0.1:PORT or https://...
	URL string
	// HTTP is the underlying httptest server.
	HTTP *httptest.Server
	// CACertPEM is, for a TLS server, the PEM of the self-signed certificate
	// that signs the server's certificate: what --ca-cert must point at.
	CACertPEM []byte
}

// quietLog drops net/http's server log: TLS handshakes that a test makes
// fail on purpose, and dropped connections, are not news.
var quietLog = log.New(io.Discard, "", 0)

// Start starts a plain-HTTP server, closed when the test ends.
func Start(tb testing.TB, cfg Config) *TestServer {
	tb.Helper()
	s := New(cfg)
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ErrorLog = quietLog
	hs.Start()
	ts := &TestServer{Server: s, HTTP: hs, URL: hs.URL}
	tb.Cleanup(ts.Close)
	return ts
}

// StartTLS starts an HTTPS server with a self-signed certificate, closed
// when the test ends. Clients verifying certificates reject it unless they
// trust CACertPEM.
func StartTLS(tb testing.TB, cfg Config) *TestServer {
	tb.Helper()
	s := New(cfg)
	hs := httptest.NewUnstartedServer(s)
	hs.Config.ErrorLog = quietLog
	hs.StartTLS()
	ts := &TestServer{Server: s, HTTP: hs, URL: hs.URL}
	ts.CACertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.HTTP.Certificate().Raw})
	tb.Cleanup(ts.Close)
	return ts
}

// CACertFile writes CACertPEM to a file in the test's temporary directory
// and returns its path.
func (ts *TestServer) CACertFile(tb testing.TB) string {
	tb.Helper()
	if ts.CACertPEM == nil {
		tb.Fatal("opensearchtest: CACertFile on a server without TLS")
	}
	path := filepath.Join(tb.TempDir(), "opensearchtest-ca.pem")
	if err := os.WriteFile(path, ts.CACertPEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Client is an *http.Client that trusts the server (its TLS certificate
// included).
func (ts *TestServer) Client() *http.Client { return ts.HTTP.Client() }

// Close stops the server; requests held by Delay faults are released.
func (ts *TestServer) Close() {
	ts.Server.Close()
	ts.HTTP.Close()
}
