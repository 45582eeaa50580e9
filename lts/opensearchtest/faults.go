package opensearchtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Endpoint names a kind of request, for request counters and fault rules.
type Endpoint string

// The endpoints the server routes.
const (
	EndpointInfo          Endpoint = "info"           // GET|HEAD /
	EndpointClusterHealth Endpoint = "cluster_health" // GET /_cluster/health
	EndpointIndexTemplate Endpoint = "index_template" // /_index_template[/{name}]
	EndpointIndex         Endpoint = "index"          // HEAD|GET|PUT|DELETE /{index}
	EndpointMapping       Endpoint = "mapping"        // GET /{index}/_mapping
	EndpointBulk          Endpoint = "bulk"           // POST|PUT [/{index}]/_bulk
	EndpointSearch        Endpoint = "search"         // GET|POST [/{index}]/_search
	EndpointCount         Endpoint = "count"          // GET|POST [/{index}]/_count
	EndpointRefresh       Endpoint = "refresh"        // GET|POST [/{index}]/_refresh
	EndpointDoc           Endpoint = "doc"            // /{index}/_doc[/{id}], /{index}/_create/{id}
	EndpointOther         Endpoint = "other"          // anything not modelled
)

// Fault is what happens to a request a Rule picks. Fields combine: Delay
// then Status, for instance, is a slow error.
type Fault struct {
	// Status answers with this HTTP status instead of handling the request,
	// with the body OpenSearch (429, 500, 503) or a proxy in front of it
	// (502, 504) would send. Body replaces that body when set.
	Status int
	Body   []byte
	// Drop closes the connection without any response.
	Drop bool
	// Delay holds the request this long before anything else happens. A
	// request whose client gives up meanwhile is still handled afterwards,
	// as OpenSearch carries on with a bulk request whose client has gone.
	Delay time.Duration
	// AfterApply handles the request first, so its writes take effect, and
	// only then answers with Status or Drop: the response is lost, the
	// documents are stored. Retrying clients must not duplicate them.
	AfterApply bool
	// Items fails chosen items of a bulk request, leaving the others applied
	// and the request itself successful (200, "errors": true).
	Items *ItemFault
}

// ItemFault picks bulk items to fail. With neither Match nor Probability
// set, every item fails.
type ItemFault struct {
	Status      int                 // the item's status; 429 when zero
	Probability float64             // chance per item, drawn from the server's seeded source
	Match       func(BulkItem) bool // picks items; both must agree when both are set
}

// Rule injects a Fault into requests to one endpoint.
type Rule struct {
	Endpoint Endpoint // empty: any endpoint
	// Skip lets this many matching requests through before the rule starts.
	Skip int
	// Times is how many requests the rule fires on; zero: no limit.
	Times int
	// Probability is the chance the rule fires on a matching request, drawn
	// from the server's seeded source; zero: always.
	Probability float64
	Fault       Fault
}

// Injection is an injected rule; it counts what it did.
type Injection struct {
	mu          sync.Mutex
	rule        Rule
	seen        int
	fired       int
	itemsFailed int
}

// Fired is how many requests the rule has fired on.
func (in *Injection) Fired() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.fired
}

// ItemsFailed is how many bulk items the rule's ItemFault has failed.
func (in *Injection) ItemsFailed() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.itemsFailed
}

// Inject adds a fault rule. Rules are tried in the order they were added;
// the first that fires decides the request's fault.
func (s *Server) Inject(r Rule) *Injection {
	in := &Injection{rule: r}
	s.faultMu.Lock()
	s.rules = append(s.rules, in)
	s.faultMu.Unlock()
	return in
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	s.faultMu.Lock()
	s.rules = nil
	s.faultMu.Unlock()
}

// pickFault returns the fault for a request, if a rule fires.
func (s *Server) pickFault(ep Endpoint) (*Fault, *Injection) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	for _, in := range s.rules {
		in.mu.Lock()
		r := in.rule
		if r.Endpoint != "" && r.Endpoint != ep {
			in.mu.Unlock()
			continue
		}
		in.seen++
		fire := in.seen > r.Skip && (r.Times == 0 || in.fired < r.Times) &&
			(r.Probability <= 0 || s.float64() < r.Probability)
		if fire {
			in.fired++
		}
		in.mu.Unlock()
		if fire {
			f := r.Fault
			return &f, in
		}
	}
	return nil, nil
}

// itemFault decides whether one bulk item is to fail, and how.
func (rq *request) itemFault(s *Server, it BulkItem, ix string) *apiError {
	f := rq.items
	if f == nil {
		return nil
	}
	if f.Match != nil && !f.Match(it) {
		return nil
	}
	if f.Probability > 0 && s.float64() >= f.Probability {
		return nil
	}
	rq.itemsInj.mu.Lock()
	rq.itemsInj.itemsFailed++
	rq.itemsInj.mu.Unlock()
	status := f.Status
	if status == 0 {
		status = http.StatusTooManyRequests
	}
	switch status {
	case http.StatusTooManyRequests:
		return newError(status, "rejected_execution_exception",
			"rejected execution of primary operation [shard_detail=[%s][0][P], shard_coordinating_and_primary_bytes=0, shard_operation_bytes=%d, shard_max_coordinating_and_primary_bytes=0]", ix, 1024)
	case http.StatusServiceUnavailable:
		return newError(status, "unavailable_shards_exception",
			"[%s][0] primary shard is not active Timeout: [1m], request: [BulkShardRequest [[%s][0]] containing [1] requests]", ix, ix).
			with("index_uuid", "_na_").with("shard", "0").with("index", ix)
	default:
		return newError(status, "exception", "opensearchtest: injected item failure with status %d", status)
	}
}

// faultBody is what OpenSearch, or the proxy in front of it, answers with.
func faultBody(status int) (contentType string, body []byte) {
	switch status {
	case http.StatusTooManyRequests:
		e := newError(status, "rejected_execution_exception",
			"rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1024, max_coordinating_and_primary_bytes=0]")
		return contentTypeJSON, e.body()
	case http.StatusServiceUnavailable:
		e := newError(status, "cluster_block_exception", "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];")
		return contentTypeJSON, e.body()
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		t := fmt.Sprintf("%d %s", status, http.StatusText(status))
		return "text/html", []byte("<html>\r\n<head><title>" + t + "</title></head>\r\n<body>\r\n<center><h1>" + t + "</h1></center>\r\n</body>\r\n</html>\r\n")
	default:
		if status >= 400 {
			e := newError(status, "exception", "opensearchtest: injected failure with status %d", status)
			return contentTypeJSON, e.body()
		}
		return contentTypeJSON, []byte("{}")
	}
}

// applyFault runs the request-level part of a fault; handled reports
// whether the response has been dealt with.
func (s *Server) applyFault(w http.ResponseWriter, rq *request, f *Fault, in *Injection, serve func(http.ResponseWriter)) (handled bool) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-rq.r.Context().Done():
			t.Stop()
		case <-s.closing:
			t.Stop()
			return true
		}
	}
	if f.Items != nil && rq.endpoint == EndpointBulk {
		rq.items, rq.itemsInj = f.Items, in
	}
	if f.Status == 0 && !f.Drop {
		return false
	}
	rq.faulted = true
	if f.AfterApply {
		serve(httptest.NewRecorder())
	}
	if f.Drop {
		rq.responding(0)
		dropConnection(w)
		return true
	}
	ct, body := faultBody(f.Status)
	if f.Body != nil {
		body = f.Body
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(f.Status)
	_, _ = w.Write(body)
	return true
}

// dropConnection closes the client connection with nothing written.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := unwrapHijacker(w); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// Without hijacking, aborting the handler makes net/http close the
	// connection (or reset the stream) without a response.
	panic(http.ErrAbortHandler)
}

func unwrapHijacker(w http.ResponseWriter) (http.Hijacker, bool) {
	for {
		if hj, ok := w.(http.Hijacker); ok {
			return hj, true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil, false
		}
		w = u.Unwrap()
	}
}
