package opensearch_test

import (
	"context"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
)

// BenchmarkOpenSearchPut uploads 2,000 payloads (12,000 documents with
// their KPI documents) to the in-process test server and reports the
// documents per request (issue 5: at least 500, asserted by
// TestOpenSearchRequestsPerDocument).
func BenchmarkOpenSearchPut(b *testing.B) {
	ps := ltstest.Payloads(2000, ltstest.Options{Series: 28, Seed: 3})
	ts := opensearchtest.Start(b, opensearchtest.Config{Seed: 1})
	s := openOpenSearch(b, ts, lts.StoreOptions{})
	var stats lts.PutStats
	for b.Loop() {
		var err error
		if stats, err = s.Put(context.Background(), ps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(stats.Payloads+stats.KPIDocuments)/float64(stats.Requests), "docs/request")
}
