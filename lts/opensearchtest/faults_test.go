package opensearchtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends a bulk body with a plain client, returning the status or the
// transport error.
func post(ts *TestServer, client *http.Client, path, body string) (int, string, error) {
	req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type"), nil
}

func TestStatusStorm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status   int
		ctype    string
		bodyType string // error type in a JSON body; "" for a proxy page
	}{
		{429, contentTypeJSON, "rejected_execution_exception"},
		{500, contentTypeJSON, "exception"},
		{502, "text/html", ""},
		{503, contentTypeJSON, "cluster_block_exception"},
		{504, "text/html", ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			ts := Start(t, Config{})
			in := ts.Inject(Rule{Endpoint: EndpointBulk, Times: 3, Fault: Fault{Status: tc.status}})
			for i := range 4 {
				r := call(t, ts, "POST", "/_bulk", ndjson(fmt.Sprintf(`{"index":{"_index":"s","_id":"d%d"}}`, i), `{"a":1}`))
				if i < 3 {
					r.mustStatus(t, tc.status)
					if got := r.header.Get("Content-Type"); got != tc.ctype {
						t.Errorf("Content-Type %q, want %q", got, tc.ctype)
					}
					if tc.bodyType != "" {
						if _, typ, _ := r.errorOf(t); typ != tc.bodyType {
							t.Errorf("error type %q, want %q", typ, tc.bodyType)
						}
					} else if !strings.Contains(string(r.body), http.StatusText(tc.status)) {
						t.Errorf("proxy body %q", r.body)
					}
					continue
				}
				r.mustStatus(t, http.StatusOK)
			}
			if got := ts.DocIDs("s"); strings.Join(got, ",") != "d3" {
				t.Errorf("stored %v: a faulted request must not be applied", got)
			}
			if in.Fired() != 3 || ts.Requests(EndpointBulk) != 4 {
				t.Errorf("fired %d, bulk requests %d", in.Fired(), ts.Requests(EndpointBulk))
			}
			stats := ts.BulkRequests()
			if len(stats) != 4 || !stats[0].Faulted || stats[0].Status != tc.status || stats[0].Actions != 1 || stats[3].Faulted {
				t.Errorf("BulkRequests = %+v", stats)
			}
		})
	}
}

func TestRuleSkipAndEndpoint(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	ts.Inject(Rule{Endpoint: EndpointSearch, Skip: 1, Times: 1, Fault: Fault{Status: 503}})
	call(t, ts, "POST", "/_bulk?refresh=true", ndjson(`{"index":{"_index":"k"}}`, `{}`)).mustStatus(t, 200)
	want := []int{200, 503, 200}
	for i, w := range want {
		if r := call(t, ts, "POST", "/k/_search", `{}`); r.status != w {
			t.Errorf("search %d: %d, want %d", i, r.status, w)
		}
	}
	ts.ClearFaults()
	ts.Inject(Rule{Fault: Fault{Status: 500}})
	call(t, ts, "GET", "/", "").mustStatus(t, 500)
	ts.ClearFaults()
	call(t, ts, "GET", "/", "").mustStatus(t, 200)
}

func TestProbabilityIsSeeded(t *testing.T) {
	t.Parallel()
	pattern := func(seed uint64) (string, int) {
		ts := Start(t, Config{Seed: seed})
		in := ts.Inject(Rule{Endpoint: EndpointInfo, Probability: 0.3, Fault: Fault{Status: 429}})
		var b strings.Builder
		for range 200 {
			if call(t, ts, "GET", "/", "").status == 429 {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String(), in.Fired()
	}
	a, fired := pattern(9)
	b, _ := pattern(9)
	c, _ := pattern(10)
	if a != b {
		t.Errorf("same seed, different faults:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("different seeds gave the same faults")
	}
	if fired == 0 || fired == 200 || strings.Count(a, "x") != fired {
		t.Errorf("fired %d of 200 at probability 0.3 (%s)", fired, a)
	}
}

func TestPartialBulkFailure(t *testing.T) {
	t.Parallel()
	docs := func(ids ...string) string {
		var lines []string
		for _, id := range ids {
			lines = append(lines, `{"index":{"_index":"pb","_id":"`+id+`"}}`, `{"id":"`+id+`"}`)
		}
		return ndjson(lines...)
	}
	var all []string
	for i := range 10 {
		all = append(all, fmt.Sprintf("d%d", i))
	}

	t.Run("chosen items fail, the rest are stored", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		in := ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: Fault{Items: &ItemFault{
			// Match may look at the server: it runs outside the server's lock.
			Match: func(it BulkItem) bool { return ts.DocCount("pb") >= 0 && it.Position%2 == 0 },
		}}})
		br := bulk(t, ts, "/_bulk", docs(all...))
		if !br.Errors {
			t.Error("errors = false")
		}
		var failed []string
		for i := range all {
			_, it := br.item(t, i)
			if i%2 == 0 {
				if it.Status != 429 || it.Error == nil || it.Error.Type != "rejected_execution_exception" {
					t.Errorf("item %d = %+v, want a 429 rejection", i, it)
				}
				failed = append(failed, it.ID)
			} else if it.Status != 201 {
				t.Errorf("item %d status %d", i, it.Status)
			}
		}
		if ts.DocCount("pb") != 5 || in.ItemsFailed() != 5 {
			t.Fatalf("stored %d, failed %d", ts.DocCount("pb"), in.ItemsFailed())
		}
		// Re-sending only the failed items completes the set, once each.
		bulk(t, ts, "/_bulk", docs(failed...))
		if ts.DocCount("pb") != 10 {
			t.Errorf("after retry: %d documents", ts.DocCount("pb"))
		}
		for _, id := range all {
			if v := ts.Version("pb", id); v != 1 {
				t.Errorf("%s version %d, want 1", id, v)
			}
		}
	})
	t.Run("seeded random items, retried until done", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{Seed: 5})
		in := ts.Inject(Rule{Endpoint: EndpointBulk, Fault: Fault{Items: &ItemFault{Status: 503, Probability: 0.4}}})
		pending := all
		for round := 0; len(pending) > 0; round++ {
			if round == 50 {
				t.Fatalf("still %d failing after 50 rounds", len(pending))
			}
			br := bulk(t, ts, "/_bulk", docs(pending...))
			var next []string
			for i := range pending {
				if _, it := br.item(t, i); it.Error != nil {
					if it.Status != 503 || it.Error.Type != "unavailable_shards_exception" {
						t.Fatalf("item %+v", it)
					}
					next = append(next, it.ID)
				}
			}
			pending = next
		}
		if in.ItemsFailed() == 0 {
			t.Error("no item failed")
		}
		if ts.DocCount("pb") != 10 {
			t.Errorf("%d documents", ts.DocCount("pb"))
		}
		for _, id := range all {
			if v := ts.Version("pb", id); v != 1 {
				t.Errorf("%s written %d times", id, v)
			}
		}
		failedItems := 0
		for _, st := range ts.BulkRequests() {
			failedItems += st.FailedItems
		}
		if failedItems != in.ItemsFailed() {
			t.Errorf("BulkStat.FailedItems total %d, injection says %d", failedItems, in.ItemsFailed())
		}
	})
}

func TestDroppedConnections(t *testing.T) {
	t.Parallel()
	body := ndjson(`{"index":{"_index":"dc","_id":"1"}}`, `{"a":1}`)

	t.Run("before handling", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		in := ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: Fault{Drop: true}})
		if _, _, err := post(ts, ts.Client(), "/_bulk", body); err == nil {
			t.Fatal("no error from a dropped connection")
		}
		if ts.DocCount("dc") != 0 || in.Fired() != 1 {
			t.Errorf("stored %d, fired %d", ts.DocCount("dc"), in.Fired())
		}
		if st := ts.BulkRequests()[0]; st.Status != 0 || !st.Faulted {
			t.Errorf("BulkStat %+v", st)
		}
		if status, _, err := post(ts, ts.Client(), "/_bulk", body); err != nil || status != 200 {
			t.Fatalf("after the drop: %d %v", status, err)
		}
	})
	t.Run("after applying: the response is lost, the write is not", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: Fault{Drop: true, AfterApply: true}})
		if _, _, err := post(ts, ts.Client(), "/_bulk", body); err == nil {
			t.Fatal("no error from a dropped connection")
		}
		if ts.DocCount("dc") != 1 {
			t.Fatalf("write not applied")
		}
		// A retry with the same _id overwrites rather than duplicates.
		br := bulk(t, ts, "/_bulk", body)
		if _, it := br.item(t, 0); it.Result != "updated" || ts.DocCount("dc") != 1 {
			t.Errorf("retry: %+v, %d documents", it, ts.DocCount("dc"))
		}
	})
	t.Run("after applying, a gateway timeout", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: Fault{Status: 504, AfterApply: true}})
		status, ctype, err := post(ts, ts.Client(), "/_bulk", body)
		if err != nil || status != 504 || ctype != "text/html" {
			t.Fatalf("%d %s %v", status, ctype, err)
		}
		if ts.DocCount("dc") != 1 {
			t.Errorf("write not applied")
		}
	})
}

func TestSlowResponses(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	ts.Inject(Rule{Endpoint: EndpointBulk, Times: 1, Fault: Fault{Delay: time.Hour}})
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	_, _, err := post(ts, impatient, "/_bulk", ndjson(`{"index":{"_index":"slow"}}`, `{}`))
	if err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("err = %v, want a client timeout", err)
	}
	// A short delay alone is a slow success.
	ts.Inject(Rule{Endpoint: EndpointInfo, Times: 1, Fault: Fault{Delay: time.Millisecond}})
	call(t, ts, "GET", "/", "").mustStatus(t, 200)
}

func TestRequestCounters(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	call(t, ts, "GET", "/", "")
	call(t, ts, "HEAD", "/x", "")
	call(t, ts, "PUT", "/_index_template/t", `{"index_patterns":["x*"]}`)
	for range 3 {
		call(t, ts, "POST", "/_bulk", ndjson(`{"index":{"_index":"x"}}`, `{}`))
	}
	call(t, ts, "POST", "/x/_refresh", "")
	call(t, ts, "POST", "/x/_search", `{}`)
	call(t, ts, "GET", "/_cat/indices", "")
	want := map[Endpoint]int{
		EndpointInfo: 1, EndpointIndex: 1, EndpointIndexTemplate: 1, EndpointBulk: 3,
		EndpointRefresh: 1, EndpointSearch: 1, EndpointOther: 1,
	}
	if got := ts.RequestCounts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if n := len(ts.BulkRequests()); n != 3 {
		t.Errorf("%d bulk stats", n)
	}
	ts.ResetStats()
	if len(ts.RequestCounts()) != 0 || len(ts.BulkRequests()) != 0 {
		t.Error("ResetStats left counts")
	}
}

func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{Seed: 2})
	ts.Inject(Rule{Endpoint: EndpointBulk, Probability: 0.2, Fault: Fault{Items: &ItemFault{Probability: 0.3}}})
	const writers, perWriter = 8, 40
	errs := make(chan error, writers*2)
	for w := range writers {
		go func() {
			pending := make([]string, perWriter)
			for i := range pending {
				pending[i] = fmt.Sprintf("w%d-%d", w, i)
			}
			for len(pending) > 0 {
				var lines []string
				for _, id := range pending {
					lines = append(lines, `{"index":{"_index":"cc","_id":"`+id+`"}}`, `{"w":`+fmt.Sprint(w)+`}`)
				}
				req, _ := http.NewRequest("POST", ts.URL+"/_bulk", strings.NewReader(ndjson(lines...)))
				req.Header.Set("Content-Type", "application/json")
				resp, err := ts.Client().Do(req)
				if err != nil {
					errs <- err
					return
				}
				var br bulkResponse
				err = json.NewDecoder(resp.Body).Decode(&br)
				resp.Body.Close()
				if err != nil {
					errs <- err
					return
				}
				var next []string
				for _, item := range br.Items {
					for _, it := range item {
						if it.Error != nil {
							next = append(next, it.ID)
						}
					}
				}
				pending = next
			}
			errs <- nil
		}()
		go func() {
			for range 20 {
				req, _ := http.NewRequest("POST", ts.URL+"/cc/_search?ignore_unavailable=true", strings.NewReader(`{"size":5,"sort":["_id"]}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := ts.Client().Do(req)
				if err != nil {
					errs <- err
					return
				}
				resp.Body.Close()
				ts.Refresh()
			}
			errs <- nil
		}()
	}
	for range writers * 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := ts.DocCount("cc"); n != writers*perWriter {
		t.Errorf("%d documents, want %d", n, writers*perWriter)
	}
}
