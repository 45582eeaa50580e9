package opensearchtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensearch-project/opensearch-go/v2"
	"github.com/opensearch-project/opensearch-go/v2/opensearchapi"
)

// These tests drive the server with the client the OpenSearch store uses,
// to show the two agree on the wire.

func newClient(t *testing.T, ts *TestServer, cfg opensearch.Config) *opensearch.Client {
	t.Helper()
	cfg.Addresses = []string{ts.URL}
	c, err := opensearch.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// okBody returns a function reading a successful response's body, so that
// okBody(t)(client.Info()) reads as one step.
func okBody(t *testing.T) func(*opensearchapi.Response, error) []byte {
	return func(res *opensearchapi.Response, err error) []byte {
		t.Helper()
		return readOK(t, res, err)
	}
}

func readOK(t *testing.T, res *opensearchapi.Response, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError() {
		t.Fatalf("%s: %s", res.Status(), b)
	}
	return b
}

func TestOpenSearchGoSmoke(t *testing.T) {
	t.Parallel()
	ts := StartTLS(t, Config{Username: "admin", Password: "s3cret", Seed: 11})
	client := newClient(t, ts, opensearch.Config{Username: "admin", Password: "s3cret", CACert: ts.CACertPEM})
	ctx := context.Background()

	var info struct {
		Version struct{ Distribution, Number string }
	}
	if err := json.Unmarshal(okBody(t)(client.Info()), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version.Distribution != "opensearch" || !strings.HasPrefix(info.Version.Number, "2.") {
		t.Fatalf("info = %+v", info)
	}

	res, err := opensearchapi.IndicesExistsIndexTemplateRequest{Name: "payloads"}.Do(ctx, client)
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("template exists before creation: %v %v", res, err)
	}
	okBody(t)(opensearchapi.IndicesPutIndexTemplateRequest{
		Name: "payloads",
		Body: strings.NewReader(`{"index_patterns":["payloads*"],"template":{"mappings":{"properties":{"@timestamp":{"type":"date"},"test_uuid":{"type":"keyword"}}}}}`),
	}.Do(ctx, client))

	// 25,000 payloads in bulk requests of 500, timestamps repeating so that
	// only the test_uuid tie-breaker orders them.
	const n, batch = 25000, 500
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var want []string
	var buf bytes.Buffer
	for i := range n {
		uuid := fmt.Sprintf("%08x", (i*7919)%n)
		stamp := base.Add(time.Duration(i/3) * time.Second).Format(time.RFC3339)
		want = append(want, stamp+" "+uuid)
		fmt.Fprintf(&buf, "{\"index\":{\"_index\":\"payloads\",\"_id\":%q}}\n{\"@timestamp\":%q,\"test_uuid\":%q,\"labels\":{\"backend\":\"cuda\"}}\n", uuid, stamp, uuid)
		if (i+1)%batch == 0 {
			var br struct{ Errors bool }
			body := okBody(t)(opensearchapi.BulkRequest{Body: bytes.NewReader(buf.Bytes())}.Do(ctx, client))
			if err := json.Unmarshal(body, &br); err != nil || br.Errors {
				t.Fatalf("bulk: %v %s", err, body[:min(len(body), 300)])
			}
			buf.Reset()
		}
	}
	slices.Sort(want)
	if got := len(ts.BulkRequests()); got != n/batch {
		t.Errorf("%d bulk requests for %d documents", got, n)
	}
	for _, st := range ts.BulkRequests() {
		if st.Actions != batch {
			t.Errorf("bulk request with %d actions", st.Actions)
		}
	}
	okBody(t)(opensearchapi.IndicesRefreshRequest{Index: []string{"payloads"}}.Do(ctx, client))

	var count struct{ Count int }
	_ = json.Unmarshal(okBody(t)(opensearchapi.CountRequest{Index: []string{"payloads"}}.Do(ctx, client)), &count)
	if count.Count != n {
		t.Errorf("count = %d", count.Count)
	}

	type searchResult struct {
		Hits struct {
			Total struct {
				Value    int
				Relation string
			}
			Hits []struct {
				Source struct {
					Timestamp string `json:"@timestamp"`
					TestUUID  string `json:"test_uuid"`
				} `json:"_source"`
				Sort []any `json:"sort"`
			}
		}
	}
	var first searchResult
	_ = json.Unmarshal(okBody(t)(opensearchapi.SearchRequest{Index: []string{"payloads"}}.Do(ctx, client)), &first)
	if first.Hits.Total.Value != 10000 || first.Hits.Total.Relation != "gte" {
		t.Errorf("default total = %+v, want OpenSearch's 10000/gte", first.Hits.Total)
	}

	var got []string
	var after []any
	searches := ts.Requests(EndpointSearch)
	for {
		req := map[string]any{
			"size":             1000,
			"track_total_hits": false,
			"query":            map[string]any{"bool": map[string]any{"filter": []any{map[string]any{"term": map[string]any{"labels.backend": "cuda"}}}}},
			"sort":             []any{map[string]any{"@timestamp": "asc"}, map[string]any{"test_uuid": "asc"}},
		}
		if after != nil {
			req["search_after"] = after
		}
		body, _ := json.Marshal(req)
		var page searchResult
		if err := json.Unmarshal(okBody(t)(opensearchapi.SearchRequest{Index: []string{"payloads*"}, Body: bytes.NewReader(body)}.Do(ctx, client)), &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Hits.Hits) == 0 {
			break
		}
		for _, h := range page.Hits.Hits {
			got = append(got, h.Source.Timestamp+" "+h.Source.TestUUID)
		}
		after = page.Hits.Hits[len(page.Hits.Hits)-1].Sort
	}
	if !slices.Equal(got, want) {
		t.Errorf("search_after paging returned %d documents, want all %d in order", len(got), n)
	}
	if pages := ts.Requests(EndpointSearch) - searches; pages != n/1000+1 {
		t.Errorf("%d search requests", pages)
	}
}

func TestOpenSearchGoTLSAndAuth(t *testing.T) {
	t.Parallel()
	ts := StartTLS(t, Config{Username: "admin", Password: "s3cret"})

	untrusting := newClient(t, ts, opensearch.Config{Username: "admin", Password: "s3cret", DisableRetry: true})
	if _, err := untrusting.Info(); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: err = %v, want a certificate error", err)
	}

	wrong := newClient(t, ts, opensearch.Config{Username: "admin", Password: "nope", CACert: ts.CACertPEM})
	res, err := wrong.Info()
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong password: %d", res.StatusCode)
	}
}

func TestOpenSearchGoRetriesGatewayErrors(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	client := newClient(t, ts, opensearch.Config{})
	ts.Inject(Rule{Endpoint: EndpointBulk, Times: 2, Fault: Fault{Status: 502}})
	// opensearch-go retries 502/503/504 itself (three times by default); a
	// store's own retry loop sits on top of that.
	okBody(t)(opensearchapi.BulkRequest{Body: strings.NewReader(ndjson(`{"index":{"_index":"r","_id":"1"}}`, `{}`))}.Do(context.Background(), client))
	if got := ts.Requests(EndpointBulk); got != 3 {
		t.Errorf("%d bulk requests, want 3", got)
	}
	if ts.DocCount("r") != 1 {
		t.Errorf("document not stored")
	}
}
