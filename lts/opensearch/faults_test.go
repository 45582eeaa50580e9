package opensearch_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearch"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// TestOpenSearchSlowPartialBulks: a slow bulk request that stores all but
// one of its documents made progress; its time is not retrying, however
// many such bulks an upload sends. Five bulks of 50 ms with one document
// refused each, against a budget of 200 ms: everything is stored.
func TestOpenSearchSlowPartialBulks(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 15})
	// The sixth document of a bulk is refused: a whole batch has one, the
	// re-sent document alone has none.
	refused := ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Fault: opensearchtest.Fault{
		Delay: 50 * time.Millisecond,
		Items: &opensearchtest.ItemFault{Match: func(it opensearchtest.BulkItem) bool { return it.Position == 5 }},
	}})
	s := openOpenSearch(t, ts, lts.StoreOptions{MaxBulkDocs: 12, Retry: budgeted(15, 200*time.Millisecond)})
	ps := pitest.Payloads(10, ltstest.Options{Seed: 26})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatalf("five slow bulks with one refused document each, a budget of four bulks: %v", err)
	}
	if refused.ItemsFailed() != 5 || stats.Retries != 5 {
		t.Errorf("%d documents refused, %d retried: want the 5 refused re-sent", refused.ItemsFailed(), stats.Retries)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
}

// TestOpenSearchNoAnswer: a server that never answers holds no request
// past the retry budget left: the store gives up on its own, an upload and
// a query alike, whatever its request timeout. The caller's deadline is a
// guard only a request waiting on its request timeout (an hour) reaches.
func TestOpenSearchNoAnswer(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"upload", "count"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 16})
			ts.Inject(opensearchtest.Rule{Fault: opensearchtest.Fault{Delay: time.Hour}})
			s := openOpenSearch(t, ts, lts.StoreOptions{RequestTimeout: time.Hour, Retry: budgeted(16, 200*time.Millisecond)})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := operate(ctx, s, op)
			if ctx.Err() != nil {
				t.Fatalf("still waiting for an answer 20 s into a budget of 200 ms: %v", err)
			}
			if err == nil || !strings.Contains(err.Error(), "gave up after") || !strings.Contains(err.Error(), "deadline exceeded") {
				t.Errorf("error = %v, want the store giving up on requests without an answer", err)
			}
		})
	}
}

// TestOpenSearchAnswerThenSilence: a server that answered 503, then stops
// answering: the error names both, the answer the budget cut short and the
// one the server gave last.
func TestOpenSearchAnswerThenSilence(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 19})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 3, Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}})
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Fault: opensearchtest.Fault{Delay: time.Hour}})
	s := openOpenSearch(t, ts, lts.StoreOptions{Retry: budgeted(19, 500*time.Millisecond)})
	_, err := s.Put(context.Background(), pitest.Payloads(2, ltstest.Options{Seed: 30}))
	for _, want := range []string{"bulk: ", "no answer in the ", " left of the retry budget", "gave up after",
		"the last answer: bulk: HTTP 503: cluster_block_exception"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestOpenSearchRequestTooLarge: a server refusing bodies over 64 KiB with
// 413 gets the upload all the same, in smaller bulk requests; the size that
// worked is kept, for the rest of the upload and the next one.
func TestOpenSearchRequestTooLarge(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 17, MaxContentLength: limit})
	s := openOpenSearch(t, ts, lts.StoreOptions{})
	ps := pitest.Payloads(100, ltstest.Options{Series: 2, Seed: 28}) // about 700 KiB
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
	if stats.Retries != 0 {
		t.Errorf("%d documents counted as retried: a split is not a retry", stats.Retries)
	}
	accepted := false
	for i, b := range ts.BulkRequests() {
		if b.Bytes <= limit {
			accepted = true
		} else if accepted {
			t.Errorf("bulk request %d: %d bytes after a request under the limit was taken: the size that worked is not kept", i, b.Bytes)
		}
	}
	ts.ResetStats()
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	for i, b := range ts.BulkRequests() {
		if b.Bytes > limit {
			t.Errorf("next upload, bulk request %d: %d bytes: the size that worked is not kept", i, b.Bytes)
		}
	}
}

// TestOpenSearchDocumentTooLarge: a document larger than the server takes
// on its own is lost, saying so; the others are stored.
func TestOpenSearchDocumentTooLarge(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 18, MaxContentLength: 4 << 10}) // payloads are ~6 KiB, KPI documents and templates less
	s := openOpenSearch(t, ts, lts.StoreOptions{})
	ps := pitest.Payloads(4, ltstest.Options{Seed: 29})
	stats, err := s.Put(context.Background(), ps)
	var ue *opensearch.UploadError
	if !errors.As(err, &ue) || ue.Failed != 4 || ue.Total != 24 {
		t.Fatalf("error = %v, want the 4 payloads of 24 documents not stored", err)
	}
	if !strings.Contains(err.Error(), "HTTP 413") || !strings.Contains(err.Error(), "larger than the server takes") {
		t.Errorf("the error does not say why: %v", err)
	}
	if stats.KPIDocuments != 20 || ts.DocCount("seshat-kpis") != 20 {
		t.Errorf("stats %+v, %d KPI documents stored: the KPI documents fit", stats, ts.DocCount("seshat-kpis"))
	}
	if n := ts.DocCount("seshat"); n != 0 {
		t.Errorf("%d payloads stored over the limit", n)
	}
}
