package opensearchtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// call sends one request and decodes its JSON answer (nil when it has
// none, as for HEAD).
func call(t *testing.T, ts *TestServer, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if len(data) > 0 && json.Unmarshal(data, &m) != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, data)
	}
	return res.StatusCode, m
}

// errorType is the error.type of an error answer.
func errorType(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	typ, _ := e["type"].(string)
	return typ
}

// bulkLines is an NDJSON body.
func bulkLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// itemsOf lists a bulk answer's items as "action status result" strings.
func itemsOf(m map[string]any) []string {
	var out []string
	for _, it := range m["items"].([]any) {
		for action, r := range it.(map[string]any) {
			r := r.(map[string]any)
			out = append(out, fmt.Sprintf("%s %v %v %s", action, r["status"], r["result"], errorType(r)))
		}
	}
	return out
}

// runsTemplate maps the fields the search tests use as the store's
// payload template does: a date, keywords, and labels by dynamic template.
const runsTemplate = `{"index_patterns":["runs"],"priority":100,"template":{"mappings":{
	"dynamic_templates":[{"labels":{"path_match":"labels.*","mapping":{"type":"keyword"}}}],
	"properties":{"start":{"type":"date"},"test_uuid":{"type":"keyword"},"n":{"type":"long"},
	"results":{"type":"object","enabled":false}}}}}`

// startRuns starts a server with n runs indexed and refreshed: run-00 ...,
// starting every minute but in pairs sharing a start (ties), labelled
// device=cpu for even n and gpu for odd.
func startRuns(t *testing.T, n int) *TestServer {
	t.Helper()
	ts := Start(t, Config{Seed: 1})
	if code, m := call(t, ts, http.MethodPut, "/_index_template/runs", runsTemplate); code != 200 {
		t.Fatalf("PUT template: %d %v", code, m)
	}
	var lines []string
	for i := range n {
		id := fmt.Sprintf("run-%02d", i)
		start := time.Date(2024, 1, 1, 0, i/2, 0, 0, time.UTC).Format(time.RFC3339Nano)
		device := []string{"cpu", "gpu"}[i%2]
		lines = append(lines, `{"index":{"_index":"runs","_id":"`+id+`"}}`,
			fmt.Sprintf(`{"test_uuid":%q,"start":%q,"n":%d,"labels":{"device":%q},"results":{"x":[1,"a"]},"title":"Run %d of MatMul-64"}`, id, start, i, device, i))
	}
	if code, m := call(t, ts, http.MethodPost, "/_bulk", bulkLines(lines...)); code != 200 || m["errors"] != false {
		t.Fatalf("bulk: %d %v", code, m)
	}
	if code, m := call(t, ts, http.MethodPost, "/runs/_refresh", ""); code != 200 {
		t.Fatalf("refresh: %d %v", code, m)
	}
	return ts
}

// hitIDs runs a search and lists the hits' ids.
func hitIDs(t *testing.T, ts *TestServer, body string) ([]string, []any) {
	t.Helper()
	code, m := call(t, ts, http.MethodPost, "/runs/_search", body)
	if code != 200 {
		t.Fatalf("search %s: %d %v", body, code, m)
	}
	var ids []string
	var last any
	for _, h := range m["hits"].(map[string]any)["hits"].([]any) {
		h := h.(map[string]any)
		ids = append(ids, h["_id"].(string))
		last = h["sort"]
	}
	sortVals, _ := last.([]any)
	return ids, sortVals
}

func TestBulkItemResults(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	call(t, ts, http.MethodPut, "/_index_template/lts", `{"index_patterns":["lts"],"template":{"mappings":{"properties":{"start":{"type":"date"}}}}}`)
	code, m := call(t, ts, http.MethodPost, "/_bulk", bulkLines(
		`{"index":{"_index":"lts","_id":"a"}}`, `{"start":"2024-01-01T00:00:00Z"}`,
		`{"index":{"_index":"lts","_id":"a"}}`, `{"start":"2024-01-02T00:00:00Z","new":"field"}`,
		`{"index":{"_index":"lts","_id":"b"}}`, `{"start":"yesterday","other":"field"}`,
		``, // blank lines are skipped
		`{"delete":{"_index":"lts","_id":"c"}}`,
		`{"index":{"_index":"lts","_id":"c"}}`, `{"start":1704067200000}`,
		`{"delete":{"_index":"lts","_id":"c"}}`,
		`{"index":{"_index":"Upper","_id":"d"}}`, `{}`,
	))
	want := []string{"index 201 created ", "index 200 updated ", "index 400 <nil> mapper_parsing_exception",
		"delete 404 not_found ", "index 201 created ", "delete 200 deleted ", "index 400 <nil> invalid_index_name_exception"}
	if got := itemsOf(m); code != 200 || m["errors"] != true || !slices.Equal(got, want) {
		t.Errorf("bulk: %d errors=%v\n got %q\nwant %q", code, m["errors"], got, want)
	}
	if doc, _ := ts.Doc("lts", "a"); string(doc) != `{"start":"2024-01-02T00:00:00Z","new":"field"}` || ts.DocCount("lts") != 1 {
		t.Errorf("stored %s, %d documents", doc, ts.DocCount("lts"))
	}
	// The refused document added nothing to the mapping.
	if mp := ts.Mapping("lts"); mp["new"] != "text" || mp["new.keyword"] != "keyword" || mp["other"] != "" {
		t.Errorf("mapping %v", mp)
	}
	if got := ts.BulkRequests(); len(got) != 1 || got[0].Actions != 7 {
		t.Errorf("bulk stats %+v", got)
	}
}

func TestBulkFraming(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	for _, tt := range []struct {
		body string
		code int
		typ  string
	}{
		{`{"index":{"_index":"lts","_id":"1"}}` + "\n{}", 400, "illegal_argument_exception"},
		{`{"index":{"_index":"lts","_id":"1"}}` + "\n", 400, "illegal_argument_exception"},
		{"\n\n", 400, "action_request_validation_exception"},
		{`{"index":{"_index":"lts","_id":"1"}` + "\n{}\n", 400, "illegal_argument_exception"},
		{`{"update":{"_index":"lts","_id":"1"}}` + "\n{}\n", 501, "opensearchtest_not_implemented"},
		{`{"index":{"_index":"lts"}}` + "\n{}\n", 501, "opensearchtest_not_implemented"},
		{`{"index":{"_index":"lts","_id":"1","routing":"x"}}` + "\n{}\n", 501, "opensearchtest_not_implemented"},
		{`{"delete":{"_id":"1"}}` + "\n", 400, "action_request_validation_exception"},
	} {
		if code, m := call(t, ts, http.MethodPost, "/_bulk", tt.body); code != tt.code || errorType(m) != tt.typ {
			t.Errorf("%q: %d %v, want %d %s", tt.body, code, m, tt.code, tt.typ)
		}
	}
	if ts.DocCount("lts") != 0 {
		t.Error("a refused bulk request stored documents")
	}
}

func TestRefreshVisibility(t *testing.T) {
	t.Parallel()
	ts := startRuns(t, 4)
	call(t, ts, http.MethodPost, "/_bulk", bulkLines(`{"index":{"_index":"runs","_id":"late"}}`, `{"n":9}`, `{"delete":{"_index":"runs","_id":"run-00"}}`))
	count := func() any {
		_, m := call(t, ts, http.MethodPost, "/runs/_count", `{"query":{"match_all":{}}}`)
		return m["count"]
	}
	if ids, _ := hitIDs(t, ts, `{"size":10}`); count() != 4.0 || !slices.Contains(ids, "run-00") || slices.Contains(ids, "late") {
		t.Errorf("before refresh: %v, count %v", ids, count())
	}
	if code, m := call(t, ts, http.MethodPost, "/runs,nope/_refresh", ""); code != 404 || errorType(m) != "index_not_found_exception" {
		t.Errorf("refresh of a missing index: %d %v", code, m)
	}
	if code, _ := call(t, ts, http.MethodPost, "/runs,nope/_refresh?ignore_unavailable=true", ""); code != 200 {
		t.Errorf("refresh ignoring missing: %d", code)
	}
	if ids, _ := hitIDs(t, ts, `{"size":10}`); count() != 4.0 || slices.Contains(ids, "run-00") || !slices.Contains(ids, "late") {
		t.Errorf("after refresh: %v, count %v", ids, count())
	}
}

// TestSearchAfterPaging pages as the store does: sorted on (date, keyword)
// with ties on the date; every hit comes once, in order.
func TestSearchAfterPaging(t *testing.T) {
	t.Parallel()
	ts := startRuns(t, 11)
	for _, order := range []string{"asc", "desc"} {
		var all []string
		after := ""
		for page := 0; page < 10; page++ {
			ids, last := hitIDs(t, ts, `{"size":3,"query":{"match_all":{}},"sort":[{"start":{"order":"`+order+`"}},{"test_uuid":{"order":"`+order+`"}}]`+after+`}`)
			all = append(all, ids...)
			if len(ids) < 3 {
				break
			}
			b, _ := json.Marshal(last)
			after = `,"search_after":` + string(b)
		}
		want := []string{"run-00", "run-01", "run-02", "run-03", "run-04", "run-05", "run-06", "run-07", "run-08", "run-09", "run-10"}
		if order == "desc" {
			slices.Reverse(want)
		}
		if !slices.Equal(all, want) {
			t.Errorf("%s: %v", order, all)
		}
	}
	// Sort values are what search_after takes back: epoch milliseconds for
	// a date.
	if _, last := hitIDs(t, ts, `{"size":1,"sort":[{"start":{"order":"asc"}},{"test_uuid":{"order":"asc"}}]}`); len(last) != 2 || last[0] != 1704067200000.0 || last[1] != "run-00" {
		t.Errorf("sort values %v", last)
	}
}

func TestQueries(t *testing.T) {
	t.Parallel()
	ts := startRuns(t, 6)
	for _, tt := range []struct{ query, want string }{
		{`{"terms":{"labels.device":["gpu"]}}`, "run-01 run-03 run-05"},
		{`{"terms":{"labels.device":["GPU"]}}`, ""},
		{`{"terms":{"test_uuid":["run-02","run-04","nope"]}}`, "run-02 run-04"},
		// A text field holds lowercased tokens; its .keyword the value.
		{`{"terms":{"title":["Run 1 of MatMul-64"]}}`, ""},
		{`{"terms":{"title":["matmul"]}}`, "run-00 run-01 run-02 run-03 run-04 run-05"},
		{`{"terms":{"title.keyword":["Run 1 of MatMul-64"]}}`, "run-01"},
		{`{"terms":{"unmapped":["x"]}}`, ""},
		{`{"terms":{"n":[3,"4"]}}`, "run-03 run-04"},
		{`{"range":{"start":{"gte":"2024-01-01T00:01:00.000Z","lt":"2024-01-01T00:02:00.000Z"}}}`, "run-02 run-03"},
		{`{"range":{"n":{"gt":3}}}`, "run-04 run-05"},
		{`{"bool":{"filter":[{"terms":{"labels.device":["cpu"]}}],"must_not":[{"ids":{"values":["run-02"]}}]}}`, "run-00 run-04"},
		{`{"bool":{"should":[{"terms":{"n":[1]}},{"terms":{"n":[2]}}],"minimum_should_match":1}}`, "run-01 run-02"},
		{`{"bool":{"filter":{"terms":{"n":[1,2]}},"should":[{"terms":{"n":[2]}}]}}`, "run-01 run-02"},
		{`{"bool":{"filter":{"terms":{"n":[1,2]}},"should":[{"terms":{"n":[2]}}],"minimum_should_match":"1"}}`, "run-02"},
	} {
		ids, _ := hitIDs(t, ts, `{"size":100,"query":`+tt.query+`}`)
		if got := strings.Join(ids, " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.query, got, tt.want)
		}
		if _, m := call(t, ts, http.MethodPost, "/runs/_count", `{"query":`+tt.query+`}`); m["count"] != float64(len(ids)) {
			t.Errorf("%s: count %v, %d hits", tt.query, m["count"], len(ids))
		}
	}
}

func TestSourceFiltering(t *testing.T) {
	t.Parallel()
	ts := startRuns(t, 1)
	for body, want := range map[string]string{
		`{}`:                `{"test_uuid":"run-00","start":"2024-01-01T00:00:00Z","n":0,"labels":{"device":"cpu"},"results":{"x":[1,"a"]},"title":"Run 0 of MatMul-64"}`,
		`{"_source":false}`: ``,
		`{"_source":{"excludes":["results","labels.device"]}}`: `{"labels":{},"n":0,"start":"2024-01-01T00:00:00Z","test_uuid":"run-00","title":"Run 0 of MatMul-64"}`,
	} {
		_, m := call(t, ts, http.MethodPost, "/runs/_search", body)
		hit := m["hits"].(map[string]any)["hits"].([]any)[0].(map[string]any)
		got := ""
		if src, ok := hit["_source"]; ok {
			b, _ := json.Marshal(src)
			got = string(b)
			var w any
			_ = json.Unmarshal([]byte(want), &w)
			b, _ = json.Marshal(w)
			want = string(b)
		}
		if got != want {
			t.Errorf("%s: _source %s, want %s", body, got, want)
		}
	}
}

// TestRefusals: what a real cluster refuses, and what the fake does not
// model, fail with a clear status and type.
func TestRefusals(t *testing.T) {
	t.Parallel()
	ts := startRuns(t, 2)
	for _, tt := range []struct {
		method, path, body string
		code               int
		typ                string
	}{
		{"POST", "/runs/_search", `{"sort":[{"title":{"order":"asc"}}]}`, 400, "illegal_argument_exception"},
		{"POST", "/runs/_search", `{"sort":[{"unmapped":{"order":"asc"}}]}`, 400, "query_shard_exception"},
		{"POST", "/runs/_search", `{"size":10001}`, 400, "illegal_argument_exception"},
		{"POST", "/runs/_search", `{"search_after":["x"]}`, 400, "illegal_argument_exception"},
		{"POST", "/runs/_search", `{"sort":[{"n":{"order":"asc"}}],"search_after":[1,2]}`, 400, "illegal_argument_exception"},
		{"POST", "/runs/_search", `{"query":{"match_all":{}`, 400, "parse_exception"},
		{"POST", "/runs/_search", `{"query":{"range":{"start":{"gte":"now-1d"}}}}`, 400, "parse_exception"},
		{"POST", "/nope/_search", `{}`, 404, "index_not_found_exception"},
		{"POST", "/nope/_count", `{}`, 404, "index_not_found_exception"},
		{"POST", "/runs/_search", `{"aggs":{}}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_search", `{"query":{"match":{"title":"run"}}}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_search", `{"query":{"terms":{"n":[1],"boost":2}}}`, 400, "parsing_exception"},
		{"POST", "/runs/_search", `{"query":{"range":{"start":{"gte":"2024-01-01","format":"yyyy"}}}}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_search", `{"sort":["n"]}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_search", `{"_source":{"includes":["n"]}}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/run*/_search", `{}`, 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_search?from=2", `{}`, 501, "opensearchtest_not_implemented"},
		{"GET", "/", "", 501, "opensearchtest_not_implemented"},
		{"POST", "/runs/_doc", `{}`, 501, "opensearchtest_not_implemented"},
		{"PUT", "/_index_template/t", `{"index_patterns":["t"],"composed_of":[]}`, 501, "opensearchtest_not_implemented"},
		{"PUT", "/_index_template/t", `{"index_patterns":["t"],"template":{"mappings":{"properties":{"f":{"type":"nested"}}}}}`, 501, "opensearchtest_not_implemented"},
		{"PUT", "/_index_template/t", `{"template":{}}`, 400, "action_request_validation_exception"},
	} {
		if code, m := call(t, ts, tt.method, tt.path, tt.body); code != tt.code || errorType(m) != tt.typ {
			t.Errorf("%s %s %s: %d %v, want %d %s", tt.method, tt.path, tt.body, code, m, tt.code, tt.typ)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/runs/_count", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	if res, err := ts.Client().Do(req); err != nil || res.StatusCode != http.StatusNotAcceptable {
		t.Errorf("text/plain body: %v %v", res, err)
	}
}

// TestTemplates: templates are kept as put, tell HEAD they exist, and
// the highest priority one maps a new index.
func TestTemplates(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	if code, _ := call(t, ts, http.MethodHead, "/_index_template/k", ""); code != 404 {
		t.Errorf("HEAD before PUT: %d", code)
	}
	low := `{"index_patterns":["k*"],"priority":1,"template":{"mappings":{"properties":{"test_uuid":{"type":"keyword"}}}}}`
	high := `{"index_patterns":"k","priority":500,"template":{"settings":{"number_of_replicas":0}}}`
	call(t, ts, http.MethodPut, "/_index_template/low", low)
	call(t, ts, http.MethodPut, "/_index_template/k", high)
	if code, _ := call(t, ts, http.MethodHead, "/_index_template/k", ""); code != 200 {
		t.Errorf("HEAD after PUT: %d", code)
	}
	if got, ok := ts.Template("low"); !ok || string(got) != low {
		t.Errorf("Template = %s", got)
	}
	call(t, ts, http.MethodPost, "/_bulk", bulkLines(`{"index":{"_index":"k","_id":"1"}}`, `{"test_uuid":"u-1","at":"2024-01-01T00:00:00Z","v":1.5,"ok":true}`,
		`{"index":{"_index":"kx","_id":"1"}}`, `{"test_uuid":"u-1"}`))
	want := map[string]string{"test_uuid": "text", "test_uuid.keyword": "keyword", "at": "date", "v": "float", "ok": "boolean"}
	if got := ts.Mapping("k"); !maps.Equal(got, want) {
		t.Errorf("operator's template: mapping %v, want %v", got, want)
	}
	if got := ts.Mapping("kx"); !maps.Equal(got, map[string]string{"test_uuid": "keyword"}) {
		t.Errorf("seshat's template: mapping %v", got)
	}
}

func TestBasicAuthAndTLS(t *testing.T) {
	t.Parallel()
	ts := StartTLS(t, Config{Username: "u", Password: "p"})
	if code, _ := call(t, ts, http.MethodHead, "/_index_template/x", ""); code != 401 {
		t.Errorf("no credentials: %d", code)
	}
	req, _ := http.NewRequest(http.MethodHead, ts.URL+"/_index_template/x", nil)
	req.SetBasicAuth("u", "p")
	if res, err := ts.Client().Do(req); err != nil || res.StatusCode != 404 {
		t.Errorf("with credentials: %v %v", res, err)
	}
	if _, err := http.Head(ts.URL + "/_index_template/x"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client not trusting the CA: %v", err)
	}
	if pem, err := os.ReadFile(ts.CACertFile(t)); err != nil || !strings.HasPrefix(string(pem), "-----BEGIN CERTIFICATE-----") {
		t.Errorf("CA file: %v %q", err, pem)
	}
	if n := ts.Requests(EndpointIndexTemplate); n != 2 {
		t.Errorf("%d template requests counted, want 2 (the refused one included)", n)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{Seed: 7})
	body := bulkLines(`{"index":{"_index":"lts","_id":"a"}}`, `{}`)
	storm := ts.Inject(Rule{Endpoint: EndpointBulk, Skip: 1, Times: 2, Fault: Fault{Status: 429}})
	proxy := ts.Inject(Rule{Endpoint: EndpointSearch, Times: 1, Fault: Fault{Status: 502}})
	var codes []int
	for range 4 {
		code, m := call(t, ts, http.MethodPost, "/_bulk", body)
		codes = append(codes, code)
		if code == 429 && errorType(m) != "rejected_execution_exception" {
			t.Errorf("429 body %v", m)
		}
	}
	if !slices.Equal(codes, []int{200, 429, 429, 200}) || storm.Fired() != 2 {
		t.Errorf("statuses %v, fired %d", codes, storm.Fired())
	}
	res, err := ts.Client().Post(ts.URL+"/lts/_search", "application/json", strings.NewReader(`{}`))
	if err != nil || res.StatusCode != 502 || res.Header.Get("Content-Type") != "text/html" || proxy.Fired() != 1 {
		t.Errorf("proxy 502: %v %v", res, err)
	}
	if got := ts.RequestCounts(); got[EndpointBulk] != 4 || got[EndpointSearch] != 1 || len(ts.BulkRequests()) != 4 {
		t.Errorf("counts %v, %d bulk stats", got, len(ts.BulkRequests()))
	}
	ts.ResetStats()
	if len(ts.RequestCounts()) != 0 || len(ts.BulkRequests()) != 0 {
		t.Error("ResetStats kept counts")
	}
}

// TestLostResponses: a dropped connection stores nothing; dropped after
// the write, or answered too late, the documents are stored.
func TestLostResponses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		fault  Fault
		stored int
	}{
		{"drop", Fault{Drop: true}, 0},
		{"drop after apply", Fault{Drop: true, AfterApply: true}, 1},
		{"504 after apply", Fault{Status: 504, AfterApply: true}, 1},
		{"slow", Fault{Delay: time.Second}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := Start(t, Config{})
			ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: tt.fault})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/_bulk", strings.NewReader(bulkLines(`{"index":{"_index":"lts","_id":"a"}}`, `{}`)))
			req.Header.Set("Content-Type", "application/x-ndjson")
			res, err := ts.Client().Do(req)
			if tt.fault.Status != 0 {
				if err != nil || res.StatusCode != tt.fault.Status {
					t.Errorf("%v %v", res, err)
				}
			} else if err == nil {
				t.Errorf("got an answer: %d", res.StatusCode)
			} else if tt.fault.Delay > 0 && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("slow: %v", err)
			}
			// The handler may still be running when the client gives up.
			for i := 0; i < 100 && ts.DocCount("lts") != tt.stored; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if n := ts.DocCount("lts"); n != tt.stored {
				t.Errorf("%d documents stored, want %d", n, tt.stored)
			}
		})
	}
}

// TestItemFaults: items fail by match or by a seeded draw; the others are
// applied; the injection counts the failed items.
func TestItemFaults(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 50 {
		lines = append(lines, fmt.Sprintf(`{"index":{"_index":"lts","_id":"%d"}}`, i), `{}`)
	}
	failedItems := func(seed uint64, f *ItemFault) ([]string, *Injection, *TestServer) {
		ts := Start(t, Config{Seed: seed})
		in := ts.Inject(Rule{Endpoint: EndpointBulk, Fault: Fault{Items: f}})
		_, m := call(t, ts, http.MethodPost, "/_bulk", bulkLines(lines...))
		var failed []string
		for i, it := range itemsOf(m) {
			if !strings.HasPrefix(it, "index 201") {
				failed = append(failed, fmt.Sprintf("%d %s", i, it))
			}
		}
		return failed, in, ts
	}
	a, in, ts := failedItems(3, &ItemFault{Status: 503, Probability: 0.3})
	b, _, _ := failedItems(3, &ItemFault{Status: 503, Probability: 0.3})
	if len(a) < 5 || len(a) > 30 || !slices.Equal(a, b) || in.ItemsFailed() != len(a) || ts.DocCount("lts") != 50-len(a) {
		t.Errorf("seeded draw: %d failed, %d counted, %d stored; again: %d", len(a), in.ItemsFailed(), ts.DocCount("lts"), len(b))
	}
	if !strings.HasSuffix(a[0], "index 503 <nil> unavailable_shards_exception") {
		t.Errorf("item %q", a[0])
	}
	c, _, _ := failedItems(1, &ItemFault{Match: func(it BulkItem) bool {
		return it.ID == "7" && it.Position == 7 && it.Action == "index" && it.Index == "lts"
	}})
	if !slices.Equal(c, []string{"7 index 429 <nil> rejected_execution_exception"}) {
		t.Errorf("matched: %q", c)
	}
}

// TestMaxContentLength: a body longer than the limit is answered 413 with
// no body and nothing applied; one at the limit is served.
func TestMaxContentLength(t *testing.T) {
	t.Parallel()
	one := bulkLines(`{"index":{"_index":"lts","_id":"a"}}`, `{}`)
	ts := Start(t, Config{MaxContentLength: len(one)})
	if code, m := call(t, ts, http.MethodPost, "/_bulk", one); code != 200 || m["errors"] != false {
		t.Errorf("a body at the limit: %d %v", code, m)
	}
	two := bulkLines(`{"index":{"_index":"lts","_id":"b"}}`, `{}`, `{"index":{"_index":"lts","_id":"c"}}`, `{}`)
	if code, m := call(t, ts, http.MethodPost, "/_bulk", two); code != http.StatusRequestEntityTooLarge || m != nil {
		t.Errorf("a body over the limit: %d %v, want 413 without a body", code, m)
	}
	if n := ts.DocCount("lts"); n != 1 {
		t.Errorf("%d documents stored, want the first only", n)
	}
	if b := ts.BulkRequests(); len(b) != 2 || b[1].Bytes != len(two) {
		t.Errorf("bulk stats %v: the refused request is counted", b)
	}
}
