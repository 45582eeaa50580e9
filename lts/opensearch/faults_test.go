package opensearch_test

import (
	"context"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
)

// TestOpenSearchSlowPartialBulks: a slow bulk request that stores all but
// one of its documents made progress; its time is not retrying, however
// many such bulks an upload sends. Five bulks of 50 ms with one document
// refused each, against a budget of 100 ms: everything is stored.
func TestOpenSearchSlowPartialBulks(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 15})
	// The sixth document of a bulk is refused: a whole batch has one, the
	// re-sent document alone has none.
	refused := ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Fault: opensearchtest.Fault{
		Delay: 50 * time.Millisecond,
		Items: &opensearchtest.ItemFault{Match: func(it opensearchtest.BulkItem) bool { return it.Position == 5 }},
	}})
	opts := lts.StoreOptions{MaxBulkDocs: 12}
	opts.Retry = fastRetries(15)
	opts.Retry.Timeout = 100 * time.Millisecond
	s := openOpenSearch(t, ts, opts)
	ps := ltstest.Payloads(10, ltstest.Options{Seed: 26})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatalf("five slow bulks with one refused document each, a budget of two bulks: %v", err)
	}
	if refused.ItemsFailed() != 5 || stats.Retries != 5 {
		t.Errorf("%d documents refused, %d retried: want the 5 refused re-sent", refused.ItemsFailed(), stats.Retries)
	}
	checkAllStoredOnce(t, ts, lts.IndexNames{}, ps)
}
