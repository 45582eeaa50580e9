package opensearchtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"
)

// Endpoint names a kind of request, for request counters and fault rules.
type Endpoint string

// The endpoints the server routes; EndpointOther counts the requests it
// refuses as not modelled.
const (
	EndpointIndexTemplate Endpoint = "index_template" // HEAD|PUT /_index_template/{name}
	EndpointBulk          Endpoint = "bulk"           // POST /_bulk
	EndpointSearch        Endpoint = "search"         // GET|POST /{index}/_search
	EndpointCount         Endpoint = "count"          // GET|POST /{index}/_count
	EndpointRefresh       Endpoint = "refresh"        // GET|POST /{indices}/_refresh
	EndpointFieldCaps     Endpoint = "field_caps"     // GET|POST /{index}/_field_caps?fields=
	EndpointOther         Endpoint = "other"          // anything else: 501
)

// Fault is what happens to a request a Rule picks. Fields combine: Delay
// then Status, for instance, is a slow error.
type Fault struct {
	// Status answers with this HTTP status instead of handling the request,
	// with the body OpenSearch (429, 503) or a proxy in front of it (502,
	// 504) would send.
	Status int
	// Drop closes the connection without any response.
	Drop bool
	// Delay holds the request this long, or until its client gives up,
	// before anything else happens; a request whose client has gone is
	// still handled, as OpenSearch carries on with it.
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
	Fault Fault
}

// Injection is an injected rule; it counts what it did.
type Injection struct {
	ts          *TestServer
	rule        Rule
	seen        int
	fired       int
	itemsFailed int
}

// Fired is how many requests the rule has fired on.
func (in *Injection) Fired() int {
	in.ts.mu.Lock()
	defer in.ts.mu.Unlock()
	return in.fired
}

// ItemsFailed is how many bulk items the rule's ItemFault has failed.
func (in *Injection) ItemsFailed() int {
	in.ts.mu.Lock()
	defer in.ts.mu.Unlock()
	return in.itemsFailed
}

// Inject adds a fault rule. Rules are tried in the order they were added;
// the first that fires decides the request's fault.
func (ts *TestServer) Inject(r Rule) *Injection {
	in := &Injection{ts: ts, rule: r}
	ts.mu.Lock()
	ts.rules = append(ts.rules, in)
	ts.mu.Unlock()
	return in
}

// pickFault returns the fault of the first rule that fires on a request.
func (ts *TestServer) pickFault(ep Endpoint) (*Fault, *Injection) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, in := range ts.rules {
		if in.rule.Endpoint != "" && in.rule.Endpoint != ep {
			continue
		}
		in.seen++
		if in.seen > in.rule.Skip && (in.rule.Times == 0 || in.fired < in.rule.Times) {
			in.fired++
			f := in.rule.Fault
			return &f, in
		}
	}
	return nil, nil
}

// itemFaults is an ItemFault at work on one bulk request.
type itemFaults struct {
	*ItemFault
	in *Injection
}

// fail decides whether one bulk item fails; it runs under the server's
// lock.
func (f *itemFaults) fail(ts *TestServer, it BulkItem) *apiError {
	if f == nil || (f.Match != nil && !f.Match(it)) || (f.Probability > 0 && ts.rng.Float64() >= f.Probability) {
		return nil
	}
	f.in.itemsFailed++
	switch f.Status {
	case 0, http.StatusTooManyRequests:
		return errorf(http.StatusTooManyRequests, "rejected_execution_exception",
			"rejected execution of primary operation [shard_detail=[%s][0][P]]", it.Index)
	case http.StatusServiceUnavailable:
		return errorf(f.Status, "unavailable_shards_exception", "[%s][0] primary shard is not active", it.Index)
	}
	return errorf(f.Status, "opensearchtest_injected_failure", "injected item failure with status %d", f.Status)
}

// applyFault runs a request-level fault; it reports whether the response
// has been dealt with (false: serve the request as usual).
func (ts *TestServer) applyFault(w http.ResponseWriter, r *http.Request, rq *request, f *Fault, in *Injection, serve func(http.ResponseWriter)) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-ts.closing:
			return true
		}
	}
	if f.Items != nil {
		rq.items = &itemFaults{ItemFault: f.Items, in: in}
	}
	if f.Status == 0 && !f.Drop {
		return false
	}
	if f.AfterApply {
		serve(httptest.NewRecorder())
	}
	if f.Drop {
		// net/http closes the connection without a response.
		panic(http.ErrAbortHandler)
	}
	switch f.Status {
	case http.StatusTooManyRequests:
		writeError(w, errorf(f.Status, "rejected_execution_exception", "rejected execution of coordinating operation"))
	case http.StatusServiceUnavailable:
		writeError(w, errorf(f.Status, "cluster_block_exception", "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];"))
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		t := fmt.Sprintf("%d %s", f.Status, http.StatusText(f.Status))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		_, _ = fmt.Fprintf(w, "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n</body>\r\n</html>\r\n", t, t)
	default:
		writeError(w, errorf(f.Status, "opensearchtest_injected_failure", "injected failure with status %d", f.Status))
	}
	return true
}
