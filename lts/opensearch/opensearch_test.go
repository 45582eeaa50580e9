package opensearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearch"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// checkAllStoredOnce fails unless the server holds exactly the payloads ps
// and their KPI documents, each once, with the source the store sent.
func checkAllStoredOnce(t *testing.T, ts *opensearchtest.TestServer, names lts.IndexNames, ps []*models.Payload) {
	t.Helper()
	kpis := 0
	for _, p := range ps {
		if _, ok := ts.Doc(names.Payloads(), p.Metadata.TestUUID); !ok {
			t.Errorf("payload %s missing", p.Metadata.TestUUID)
		}
		for _, d := range p.KPIDocuments() {
			kpis++
			got, ok := ts.Doc(names.KPIs(), d.ID())
			if !ok {
				t.Errorf("KPI document %s missing", d.ID())
				continue
			}
			want, _ := json.Marshal(d)
			if ltstest.Canonical(t, json.RawMessage(got)) != ltstest.Canonical(t, json.RawMessage(want)) {
				t.Errorf("KPI document %s is %s, want %s (as seshat kpis --format json writes it)", d.ID(), got, want)
			}
		}
	}
	if n := ts.DocCount(names.Payloads()); n != len(ps) {
		t.Errorf("%d payload documents, want %d", n, len(ps))
	}
	if n := ts.DocCount(names.KPIs()); n != kpis {
		t.Errorf("%d KPI documents, want %d", n, kpis)
	}
}

// fastRetries are retry bounds for tests: short delays, seeded jitter.
func fastRetries(seed uint64) lts.RetryPolicy {
	return lts.RetryPolicy{Initial: time.Millisecond, Max: 20 * time.Millisecond, Timeout: 10 * time.Second,
		Rand: rand.New(rand.NewPCG(seed, seed))}
}

// budgeted is fastRetries with a retry budget of d.
func budgeted(seed uint64, d time.Duration) lts.RetryPolicy {
	r := fastRetries(seed)
	r.Timeout = d
	return r
}

func toyWorkload() lts.Workload { return workloadtest.Toy{} }

// piWorkload is the workload of the test stores but the conformance
// tests' (the toy's, ltstest): the tests of bulk requests, their faults
// and their document counts upload pi payloads (pitest: production's
// size, five KPI documents each).
func piWorkload() lts.Workload { return pi.Workload{} }

// openOpenSearch opens a store on the test server ts with test defaults.
func openOpenSearch(t testing.TB, ts *opensearchtest.TestServer, opts lts.StoreOptions) lts.Store {
	t.Helper()
	if opts.Workloads == nil {
		opts.Workloads = []lts.Workload{piWorkload()}
	}
	if opts.Retry.Rand == nil {
		opts.Retry = fastRetries(1)
	}
	return ltstest.Open(t, ts.URL, opts)
}

// TestConformance: the OpenSearch store answers as every store does (against
// the test server).
func TestConformance(t *testing.T) {
	t.Parallel()
	ltstest.Conformance(t, func(t testing.TB, opts lts.StoreOptions) lts.Store {
		opts.Workloads = []lts.Workload{toyWorkload()}
		return openOpenSearch(t, opensearchtest.Start(t, opensearchtest.Config{Seed: 1}), opts)
	})
}

// The line upload prints says what was written where: indices, KPI
// documents, those of earlier uploads removed because the runs no longer
// have those KPIs, requests and retries.
func TestDescribePut(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 1})
	s := openOpenSearch(t, ts, lts.StoreOptions{Index: lts.IndexNames{Index: "perf"}})
	for _, tt := range []struct {
		stats lts.PutStats
		want  string
	}{
		{lts.PutStats{Payloads: 3, Created: 3, KPIDocuments: 15, Requests: 2},
			"stored 3 payload(s) in https://u:xxxxx@search:9200 index perf: 3 new, 0 replaced; 15 KPI document(s) in index perf-kpis; 2 request(s), 0 document(s) retried"},
		{lts.PutStats{Payloads: 3, Replaced: 3, KPIDocuments: 12, StaleKPIDocuments: 3, Requests: 3, Retries: 1},
			"stored 3 payload(s) in https://u:xxxxx@search:9200 index perf: 0 new, 3 replaced; 12 KPI document(s) in index perf-kpis (3 no longer computed removed); 3 request(s), 1 document(s) retried"},
	} {
		if got := lts.DescribePut(s, redact.URL("https://u:secret@search:9200"), tt.stats); got != tt.want {
			t.Errorf("\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestOpenSearchIndicesAndTemplates(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 1})
	names := lts.IndexNames{Prefix: "ci-", Index: "perf", KPISuffix: "-k"}
	// An operator's own template for the KPI index is kept as it is.
	custom := `{"index_patterns":["ci-perf-k"],"priority":500,"template":{"settings":{"number_of_replicas":0}}}`
	put, _ := http.NewRequest(http.MethodPut, ts.URL+"/_index_template/ci-perf-k", strings.NewReader(custom))
	put.Header.Set("Content-Type", "application/json")
	if res, err := ts.Client().Do(put); err != nil || res.StatusCode != 200 {
		t.Fatalf("PUT template: %v %v", res, err)
	}
	before, _ := ts.Template("ci-perf-k")

	s := openOpenSearch(t, ts, lts.StoreOptions{Index: names})
	ps := pitest.Payloads(12, ltstest.Options{Series: 2, Seed: 11})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Payloads != 12 || stats.Created != 12 || stats.KPIDocuments != 60 || stats.Retries != 0 {
		t.Errorf("stats %+v", stats)
	}
	checkAllStoredOnce(t, ts, names, ps)
	if _, ok := ts.Template("ci-perf"); !ok {
		t.Error("payload index template not installed")
	}
	if after, _ := ts.Template("ci-perf-k"); string(after) != string(before) {
		t.Errorf("an existing template was replaced:\n%s\nwas\n%s", after, before)
	}
	m := ts.Mapping("ci-perf")
	if m["metadata.start"] != "date" || m["metadata.test_uuid"] != "keyword" || m["metadata.labels.matrix_size"] != "keyword" {
		t.Errorf("payload mapping from the template: %v", m)
	}
	// A second upload reuses the templates: no template request at all.
	ts.ResetStats()
	s2 := openOpenSearch(t, ts, lts.StoreOptions{Index: names})
	stats, err = s2.Put(context.Background(), ps)
	if err != nil || stats.Replaced != 12 || stats.Created != 0 {
		t.Errorf("re-upload: %+v, %v", stats, err)
	}
	if n := ts.Requests(opensearchtest.EndpointIndexTemplate); n != 2 {
		t.Errorf("%d template requests on re-upload, want 2 (existence checks only)", n)
	}
	checkAllStoredOnce(t, ts, names, ps)
}

// TestOpenSearch429Storm: the bulk endpoint answers 429 to the first
// requests; the upload waits and ends with every document stored once.
func TestOpenSearch429Storm(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 2})
	storm := ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 6,
		Fault: opensearchtest.Fault{Status: http.StatusTooManyRequests}})
	s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 100})
	ps := pitest.Payloads(50, ltstest.Options{Series: 3, Seed: 12})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	if storm.Fired() != 6 || stats.Retries == 0 {
		t.Errorf("storm fired %d times, %d documents retried", storm.Fired(), stats.Retries)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
}

// TestOpenSearchPartialBulkFailure: some items of bulk requests fail with
// retryable statuses; only those are sent again, and everything ends stored
// once.
func TestOpenSearchPartialBulkFailure(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 3})
			partial := ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 4,
				Fault: opensearchtest.Fault{Items: &opensearchtest.ItemFault{Status: status, Probability: 0.3}}})
			s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 200})
			ps := pitest.Payloads(100, ltstest.Options{Series: 4, Seed: 13})
			stats, err := s.Put(context.Background(), ps)
			if err != nil {
				t.Fatal(err)
			}
			failed := partial.ItemsFailed()
			if failed == 0 || stats.Retries != failed {
				t.Errorf("%d items failed, %d documents retried: only the failed ones must be re-sent", failed, stats.Retries)
			}
			sent := 0
			for _, b := range ts.BulkRequests() {
				sent += b.Actions
			}
			if want := 600 + failed; sent != want {
				t.Errorf("%d documents sent in bulk requests, want 600 + %d re-sent", sent, failed)
			}
			checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
		})
	}
}

// TestOpenSearchLostResponses: connections drop, responses are lost after
// the writes happened, a response comes too late: retries store everything
// once.
func TestOpenSearchLostResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault opensearchtest.Fault
	}{
		{"dropped connection", opensearchtest.Fault{Drop: true}},
		{"dropped after the write", opensearchtest.Fault{Drop: true, AfterApply: true}},
		{"502 after the write", opensearchtest.Fault{Status: http.StatusBadGateway, AfterApply: true}},
		{"504 from a proxy", opensearchtest.Fault{Status: http.StatusGatewayTimeout}},
		{"slow response", opensearchtest.Fault{Delay: 2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 4})
			in := ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 2, Fault: tt.fault})
			s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 50, RequestTimeout: 300 * time.Millisecond})
			ps := pitest.Payloads(30, ltstest.Options{Series: 2, Seed: 14})
			stats, err := s.Put(context.Background(), ps)
			if err != nil {
				t.Fatal(err)
			}
			if in.Fired() != 2 || stats.Retries == 0 {
				t.Errorf("fault fired %d times, %d documents retried", in.Fired(), stats.Retries)
			}
			checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
		})
	}
}

// TestOpenSearchRetryBudget: the retry budget counts retrying only; slow
// requests that succeed do not use it up.
func TestOpenSearchRetryBudget(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 12})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Skip: 2, Times: 1, Fault: opensearchtest.Fault{Status: http.StatusTooManyRequests}})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Fault: opensearchtest.Fault{Delay: 100 * time.Millisecond}})
	s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 12, Retry: budgeted(12, 300*time.Millisecond)})
	ps := pitest.Payloads(10, ltstest.Options{Seed: 22})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatalf("five slow batches (500 ms) and one 429 with a 300 ms budget: %v", err)
	}
	if stats.Retries != 12 {
		t.Errorf("%d documents retried, want the 12 of the refused batch", stats.Retries)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
}

// TestOpenSearchFinalFailures: a document OpenSearch refuses for good, and
// a storm outlasting the retry bound, end in an error counting the
// documents not stored and saying why; the others are stored.
func TestOpenSearchFinalFailures(t *testing.T) {
	t.Parallel()
	ps := pitest.Payloads(10, ltstest.Options{Seed: 15})
	t.Run("refused item", func(t *testing.T) {
		t.Parallel()
		ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 5})
		bad := ps[3].Metadata.TestUUID
		ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk,
			Fault: opensearchtest.Fault{Items: &opensearchtest.ItemFault{Status: http.StatusBadRequest,
				Match: func(it opensearchtest.BulkItem) bool { return it.ID == bad }}}})
		s := openOpenSearch(t, ts, lts.StoreOptions{})
		stats, err := s.Put(context.Background(), ps)
		var ue *opensearch.UploadError
		if !errors.As(err, &ue) || ue.Failed != 1 || ue.Total != 60 {
			t.Fatalf("error = %v, want 1 of 60 documents not stored", err)
		}
		if !strings.Contains(err.Error(), "1 of 60 documents not stored") || !strings.Contains(err.Error(), "HTTP 400") ||
			!strings.Contains(err.Error(), "seshat/"+bad) {
			t.Errorf("error does not say what and why: %v", err)
		}
		if stats.Retries != 0 || stats.Payloads != 9 || ts.DocCount("seshat") != 9 || ts.DocCount("seshat-kpis") != 50 {
			t.Errorf("stats %+v, %d payloads stored: the others must be, without retrying the refused one", stats, ts.DocCount("seshat"))
		}
	})
	t.Run("500 not retried", func(t *testing.T) {
		t.Parallel()
		ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 5})
		ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 1, Fault: opensearchtest.Fault{Status: http.StatusInternalServerError}})
		s := openOpenSearch(t, ts, lts.StoreOptions{})
		stats, err := s.Put(context.Background(), ps)
		var ue *opensearch.UploadError
		if !errors.As(err, &ue) || ue.Failed != 60 || !strings.Contains(err.Error(), "bulk: HTTP 500") || strings.Contains(err.Error(), "gave up") {
			t.Errorf("error = %v, want the 60 documents of the bulk request not stored, without retrying", err)
		}
		if n := len(ts.BulkRequests()); n != 1 || stats.Retries != 0 {
			t.Errorf("%d bulk requests, %d documents retried: a 500 is not retried", n, stats.Retries)
		}
	})
	t.Run("endless 503", func(t *testing.T) {
		t.Parallel()
		ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 6})
		ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}})
		s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 20, Retry: budgeted(6, 500*time.Millisecond)})
		_, err := s.Put(context.Background(), ps)
		var ue *opensearch.UploadError
		if !errors.As(err, &ue) || ue.Failed != 60 {
			t.Fatalf("error = %v, want all 60 documents not stored", err)
		}
		for _, want := range []string{"60 of 60 documents not stored", "HTTP 503", "cluster_block_exception", "gave up after"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q: %v", want, err)
			}
		}
		// The first batch used up the retries: the rest is not sent.
		if n := len(ts.BulkRequests()); n < 2 {
			t.Errorf("%d bulk requests: the first batch is retried", n)
		}
	})
}

// TestOpenSearchRequestsPerDocument: bulk requests are bounded by count and
// bytes and few: at most one request (of any kind) per 500 documents.
func TestOpenSearchRequestsPerDocument(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 7})
	s := openOpenSearch(t, ts, lts.StoreOptions{})
	ps := pitest.Payloads(2000, ltstest.Options{Series: 10, Seed: 16})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	docs := stats.Payloads + stats.KPIDocuments
	total := 0
	for _, n := range ts.RequestCounts() {
		total += n
	}
	if docs != 12000 || total > docs/500 || stats.Requests != total {
		t.Errorf("%d requests (%d counted by the store) for %d documents: more than one per 500, %v",
			total, stats.Requests, docs, ts.RequestCounts())
	}
	for i, b := range ts.BulkRequests() {
		if b.Actions > lts.DefaultMaxBulkDocs || b.Bytes > lts.DefaultMaxBulkBytes {
			t.Errorf("bulk request %d: %d documents, %d bytes: over the bounds", i, b.Actions, b.Bytes)
		}
	}
	// The byte bound splits requests too.
	ts.ResetStats()
	s2 := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkBytes: 64 << 10})
	if _, err := s2.Put(context.Background(), ps[:100]); err != nil {
		t.Fatal(err)
	}
	for i, b := range ts.BulkRequests() {
		if b.Bytes > 64<<10 {
			t.Errorf("bulk request %d: %d bytes over 64 KiB", i, b.Bytes)
		}
	}
	if n := len(ts.BulkRequests()); n < 10 {
		t.Errorf("%d bulk requests for 100 payloads of ~7 KiB under 64 KiB each", n)
	}
}

// TestOpenSearchTLS: a self-signed certificate is refused (at once, no
// retry) unless its CA is given or verification is explicitly off.
func TestOpenSearchTLS(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.StartTLS(t, opensearchtest.Config{Seed: 8})
	ps := pitest.Payloads(3, ltstest.Options{Seed: 17})

	s := openOpenSearch(t, ts, lts.StoreOptions{})
	start := time.Now()
	_, err := s.Put(context.Background(), ps)
	if err == nil || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "--ca-cert") {
		t.Errorf("unverified certificate: %v", err)
	}
	if strings.Contains(err.Error(), "gave up after") || time.Since(start) > 5*time.Second {
		t.Errorf("a certificate error is retried: %v", err)
	}
	if n := ts.DocCount("seshat"); n != 0 {
		t.Errorf("%d documents stored over an unverified connection", n)
	}

	s = openOpenSearch(t, ts, lts.StoreOptions{CACertFile: ts.CACertFile(t)})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Errorf("with --ca-cert: %v", err)
	}
	s = openOpenSearch(t, ts, lts.StoreOptions{InsecureSkipVerify: true})
	if n, err := s.Count(context.Background(), lts.Query{}); err != nil || n != 3 {
		t.Errorf("with --insecure-skip-verify: %d, %v", n, err)
	}
	if _, err := lts.Open(context.Background(), ts.URL, lts.StoreOptions{CACertFile: "/nonexistent/ca.pem"}); err == nil {
		t.Error("a missing CA file is accepted")
	}
}

// TestOpenSearchBasicAuth: credentials are sent, a wrong password is a
// clear error that shows no password.
func TestOpenSearchBasicAuth(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 9, Username: "ci", Password: "s3cr3t-pa55"})
	ps := pitest.Payloads(3, ltstest.Options{Seed: 18})
	s := openOpenSearch(t, ts, lts.StoreOptions{Username: "ci", Password: "wrong-pa55"})
	_, err := s.Put(context.Background(), ps)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "SESHAT_OPENSEARCH_USERNAME") {
		t.Errorf("wrong password: %v", err)
	}
	if err != nil && (strings.Contains(err.Error(), "wrong-pa55") || strings.Contains(err.Error(), "s3cr3t")) {
		t.Errorf("the error shows a password: %v", err)
	}
	s = openOpenSearch(t, ts, lts.StoreOptions{Username: "ci", Password: "s3cr3t-pa55"})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Errorf("right password: %v", err)
	}
	// Credentials in the URL work too, and are not part of its name.
	u := strings.Replace(ts.URL, "http://", "http://ci:s3cr3t-pa55@", 1)
	s3, err := lts.Open(context.Background(), u, lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if n, err := s3.Count(context.Background(), lts.Query{}); err != nil || n != 3 {
		t.Errorf("credentials in the URL: %d, %v", n, err)
	}
	if strings.Contains(s3.String(), "s3cr3t") {
		t.Errorf("store name shows the password: %s", s3)
	}
}

// TestOpenSearchEmpty: querying before any upload (no index yet) is an
// empty answer, not an error.
func TestOpenSearchEmpty(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 10})
	s := openOpenSearch(t, ts, lts.StoreOptions{})
	if n, err := s.Count(context.Background(), lts.Query{}); err != nil || n != 0 {
		t.Errorf("Count = %d, %v", n, err)
	}
	if got := ltstest.Collect(t, s, lts.Query{Labels: models.Filter{"device": {"cpu"}}}); len(got) != 0 {
		t.Errorf("%d payloads", len(got))
	}
}

// TestOpenSearchQueryRetries: a search hit by a 429 and a dropped
// connection still pages through everything.
func TestOpenSearchQueryRetries(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 11})
	s := openOpenSearch(t, ts, lts.StoreOptions{PageSize: 7})
	ps := pitest.Payloads(40, ltstest.Options{Series: 2, TieEvery: 4, Seed: 19})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointSearch, Skip: 1, Times: 1, Fault: opensearchtest.Fault{Status: http.StatusTooManyRequests}})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointSearch, Skip: 3, Times: 1, Fault: opensearchtest.Fault{Drop: true}})
	got := ltstest.Collect(t, s, lts.Query{})
	ltstest.CheckOrdered(t, got)
	if len(got) != 40 {
		t.Errorf("%d payloads, want 40", len(got))
	}
}

// A run uploaded again with fewer KPIs (one dropped by a newer
// kpi_settings_version, or none: it failed when run again) leaves no KPI
// document behind for dashboards to show, whether the KPI index has
// seshat's template or an operator's own (test_uuid then dynamically mapped
// as text with a keyword sub-field).
func TestOpenSearchReuploadRemovesStaleKPIs(t *testing.T) {
	t.Parallel()
	for name, operatorTemplate := range map[string]bool{"seshat template": false, "operator template": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 3})
			names := lts.IndexNames{Prefix: "t-", Index: "perf", KPISuffix: "-k"}
			if operatorTemplate {
				custom := `{"index_patterns":["t-perf-k"],"priority":500,"template":{"settings":{"number_of_replicas":0}}}`
				put, _ := http.NewRequest(http.MethodPut, ts.URL+"/_index_template/t-perf-k", strings.NewReader(custom))
				put.Header.Set("Content-Type", "application/json")
				if res, err := ts.Client().Do(put); err != nil || res.StatusCode != 200 {
					t.Fatalf("PUT template: %v %v", res, err)
				}
			}
			s := openOpenSearch(t, ts, lts.StoreOptions{Index: names})
			ps := pitest.Payloads(30, ltstest.Options{Series: 2, Seed: 5})
			stats, err := s.Put(context.Background(), ps)
			if err != nil || stats.StaleKPIDocuments != 0 {
				t.Fatalf("first upload: %+v, %v", stats, err)
			}
			again := make([]*models.Payload, len(ps))
			wantStale := 0
			for i, p := range ps {
				c := *p
				c.KPIs = maps.Clone(p.KPIs)
				switch {
				case i < 10: // one KPI dropped
					for k := range c.KPIs {
						delete(c.KPIs, k)
						wantStale++
						break
					}
				case i == 10: // failed when run again: no KPIs at all
					wantStale += len(c.KPIs)
					c.KPIs = nil
				}
				again[i] = &c
			}
			stats, err = s.Put(context.Background(), again)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Replaced != len(ps) || stats.StaleKPIDocuments != wantStale {
				t.Errorf("second upload: %+v, want %d replaced and %d stale KPI documents removed", stats, len(ps), wantStale)
			}
			checkAllStoredOnce(t, ts, names, again)
		})
	}
}

// A re-upload whose search for stale KPI documents fails has stored its
// documents all the same: Put says what it stored, makes it visible, and
// fails naming the clean-up and that the data is stored.
func TestOpenSearchStaleKPISearchFails(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 13})
	s := openOpenSearch(t, ts, lts.StoreOptions{Retry: budgeted(13, 500*time.Millisecond)})
	ps := pitest.Payloads(6, ltstest.Options{Seed: 23})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointSearch, Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}})
	again := pitest.Payloads(8, ltstest.Options{Seed: 23}) // the same 6 runs and 2 new ones
	stats, err := s.Put(context.Background(), again)
	if err == nil {
		t.Fatal("a failed search for stale KPI documents is not reported")
	}
	var ue *opensearch.UploadError
	if errors.As(err, &ue) {
		t.Errorf("every document is stored, yet the error is an UploadError: %v", err)
	}
	for _, want := range []string{"removing the KPI documents", "HTTP 503", "the payloads and their KPI documents are stored"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if stats.Payloads != 8 || stats.Replaced != 6 || stats.Created != 2 || stats.KPIDocuments != 40 {
		t.Errorf("stats %+v: Put must say what it stored", stats)
	}
	if n, err := s.Count(context.Background(), lts.Query{}); err != nil || n != 8 {
		t.Errorf("Count after the upload = %d, %v: the indices are not refreshed", n, err)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, again)
}

// TestOpenSearchRetryBudgetSpent: an OpenSearch answering 503 to everything
// is retried until the whole budget is spent (the last wait clipped to what
// is left, then one last attempt), by an upload and a query alike, however
// long the backoff the jitter draws; not given up early when a draw does not
// fit in what is left.
func TestOpenSearchRetryBudgetSpent(t *testing.T) {
	t.Parallel()
	const budget = 800 * time.Millisecond
	for _, op := range []string{"upload", "count"} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", op, seed), func(t *testing.T) {
				t.Parallel()
				ts := opensearchtest.Start(t, opensearchtest.Config{Seed: seed})
				ts.Inject(opensearchtest.Rule{Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}})
				opts := lts.StoreOptions{}
				opts.Retry = lts.RetryPolicy{Initial: 100 * time.Millisecond, Max: 2 * budget, Timeout: budget,
					Rand: rand.New(rand.NewPCG(seed, seed))}
				s := openOpenSearch(t, ts, opts)
				start := time.Now()
				err := operate(context.Background(), s, op)
				took := time.Since(start)
				if err == nil || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "gave up after") {
					t.Fatalf("error = %v", err)
				}
				if took < budget || took > budget+time.Second {
					t.Errorf("gave up after %s with a budget of %s: %v", took, budget, err)
				}
			})
		}
	}
}

// TestOpenSearchRetryNotice: the first retry of a store says so, once, on
// the log at info level (what -q silences with the other status lines),
// with the server, the cause and the budget; no password shown.
func TestOpenSearchRetryNotice(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 14, Username: "ci", Password: "s3cr3t-pa55"})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 3, Fault: opensearchtest.Fault{Status: http.StatusTooManyRequests}})
	var logged strings.Builder
	opts := lts.StoreOptions{Log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo})), MaxBulkDocs: 10}
	opts.Retry = fastRetries(14)
	u := strings.Replace(ts.URL, "http://", "http://ci:s3cr3t-pa55@", 1)
	s := ltstest.Open(t, u, withPi(opts))
	if _, err := s.Put(context.Background(), pitest.Payloads(4, ltstest.Options{Seed: 25})); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(context.Background(), lts.Query{}); err != nil || n != 4 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	want := "opensearch: " + ts.URL + ": HTTP 429: rejected_execution_exception: rejected execution of coordinating operation; retrying for up to 10s (--retry-timeout)"
	if strings.Count(logged.String(), "retrying for up to") != 1 || !strings.Contains(logged.String(), want) || !strings.Contains(logged.String(), "level=INFO") {
		t.Errorf("want one info line %q, logged:\n%s", want, logged.String())
	}
	if strings.Contains(logged.String(), "s3cr3t") {
		t.Errorf("the log shows the password:\n%s", logged.String())
	}
}

// operate runs op on s: "upload", a Put of two payloads, or "count": the
// two kinds of operation a retry budget bounds.
func operate(ctx context.Context, s lts.Store, op string) error {
	if op == "upload" {
		_, err := s.Put(ctx, pitest.Payloads(2, ltstest.Options{Seed: 24}))
		return err
	}
	_, err := s.Count(ctx, lts.Query{})
	return err
}

func withPi(opts lts.StoreOptions) lts.StoreOptions {
	opts.Workloads = []lts.Workload{piWorkload()}
	return opts
}
