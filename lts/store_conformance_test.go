package lts_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/models"
)

// The tests of this file hold for every store: they run against SQLite and
// against OpenSearch (the in-process test server).

// opener opens a fresh, empty store.
type opener func(t testing.TB, opts lts.StoreOptions) lts.Store

// fastRetries are retry bounds for tests: short delays, seeded jitter.
func fastRetries(seed uint64) lts.RetryPolicy {
	return lts.RetryPolicy{Initial: time.Millisecond, Max: 20 * time.Millisecond, Timeout: 10 * time.Second,
		Rand: rand.New(rand.NewPCG(seed, seed))}
}

// openOpenSearch opens a store on the test server ts with test defaults.
func openOpenSearch(t testing.TB, ts *opensearchtest.TestServer, opts lts.StoreOptions) lts.Store {
	t.Helper()
	if opts.Workloads == nil {
		opts.Workloads = []lts.Workload{piWorkload()}
	}
	if opts.Retry.Rand == nil {
		opts.Retry = fastRetries(1)
	}
	s, err := lts.Open(context.Background(), ts.URL, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func forEachBackend(t *testing.T, f func(t *testing.T, open opener)) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, func(t testing.TB, opts lts.StoreOptions) lts.Store {
			return openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), opts)
		})
	})
	t.Run("opensearch", func(t *testing.T) {
		t.Parallel()
		f(t, func(t testing.TB, opts lts.StoreOptions) lts.Store {
			return openOpenSearch(t, opensearchtest.Start(t, opensearchtest.Config{Seed: 1}), opts)
		})
	})
}

func TestStorePutIsIdempotent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{})
		ps := ltstest.Payloads(20, ltstest.Options{Series: 3, Seed: 1})
		stats, err := s.Put(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Payloads != 20 || stats.Created != 20 || stats.Replaced != 0 {
			t.Errorf("first upload: %+v", stats)
		}
		small := lts.Query{Labels: map[string][]string{"matrix_size": {ltstest.MatrixSize(0)}}}
		before := count(t, s, small)
		stats, err = s.Put(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Payloads != 20 || stats.Created != 0 || stats.Replaced != 20 {
			t.Errorf("second upload: %+v", stats)
		}
		if n := count(t, s, lts.Query{}); n != 20 {
			t.Errorf("count after re-upload = %d, want 20", n)
		}
		if n := count(t, s, small); n != before || n != 7 {
			t.Errorf("label count after re-upload = %d, before %d, want 7", n, before)
		}
	})
}

func TestStoreReplaceChangesLabels(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{})
		ps := ltstest.Payloads(2, ltstest.Options{Seed: 2})
		if _, err := s.Put(context.Background(), ps); err != nil {
			t.Fatal(err)
		}
		// A re-parse with another labels model version: the old label value
		// must not match any more.
		moved := *ps[0]
		moved.Metadata.Labels = map[string]string{}
		for k, v := range ps[0].Metadata.Labels {
			moved.Metadata.Labels[k] = v
		}
		moved.Metadata.Labels["device"] = "gpu"
		if _, err := s.Put(context.Background(), []*models.Payload{&moved}); err != nil {
			t.Fatal(err)
		}
		if got := uuids(collect(t, s, lts.Query{Labels: map[string][]string{"device": {"cpu"}}})); len(got) != 1 || got[0] != ps[1].Metadata.TestUUID {
			t.Errorf("device=cpu = %v, want only %s", got, ps[1].Metadata.TestUUID)
		}
		if got := uuids(collect(t, s, lts.Query{Labels: map[string][]string{"device": {"gpu"}}})); len(got) != 1 || got[0] != ps[0].Metadata.TestUUID {
			t.Errorf("device=gpu = %v, want only %s", got, ps[0].Metadata.TestUUID)
		}
	})
}

func TestStoreStoresPayloadsWhole(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{})
		ps := ltstest.Payloads(3, ltstest.Options{Seed: 3})
		if _, err := s.Put(context.Background(), ps); err != nil {
			t.Fatal(err)
		}
		got := collect(t, s, lts.Query{})
		if len(got) != 3 {
			t.Fatalf("%d payloads back, want 3", len(got))
		}
		for i := range ps {
			// Results come back as generic JSON, not the workload's types:
			// compare the documents.
			if want, have := canonical(t, ps[i]), canonical(t, got[i]); want != have {
				t.Errorf("payload %d comes back different:\n got %s\nwant %s", i, have, want)
			}
		}
		// Without results: the same metadata and KPIs, no results.
		heads := collect(t, s, lts.Query{WithoutResults: true})
		if len(heads) != 3 {
			t.Fatalf("%d payloads without results, want 3", len(heads))
		}
		for i := range ps {
			want := &models.Payload{Metadata: ps[i].Metadata, KPIs: ps[i].KPIs}
			if heads[i].Results != nil || canonical(t, want) != canonical(t, heads[i]) {
				t.Errorf("payload %d without results:\n got %s\nwant %s", i, canonical(t, heads[i]), canonical(t, want))
			}
		}
	})
}

func TestStoreQuery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{PageSize: 4})
		// 30 payloads, 3 series, every 5th starting with the one before it.
		ps := ltstest.Payloads(30, ltstest.Options{Series: 3, TieEvery: 5, Seed: 4})
		// Stored out of order: the order must come from the query.
		shuffled := append([]*models.Payload(nil), ps[15:]...)
		shuffled = append(shuffled, ps[:15]...)
		if _, err := s.Put(context.Background(), shuffled); err != nil {
			t.Fatal(err)
		}
		at := func(i int) time.Time { return ps[i].Metadata.Start }
		tests := []struct {
			name string
			q    lts.Query
			want func(i int) bool
		}{
			{"all", lts.Query{}, func(int) bool { return true }},
			{"one series", lts.Query{Labels: map[string][]string{"matrix_size": {ltstest.MatrixSize(1)}, "device": {"cpu"}}},
				func(i int) bool { return i%3 == 1 }},
			{"two values", lts.Query{Labels: map[string][]string{"matrix_size": {ltstest.MatrixSize(0), ltstest.MatrixSize(2)}}},
				func(i int) bool { return i%3 != 1 }},
			{"time range", lts.Query{Since: at(10), Until: at(20)},
				func(i int) bool { return !at(i).Before(at(10)) && at(i).Before(at(20)) }},
			{"series and since", lts.Query{Labels: map[string][]string{"matrix_size": {ltstest.MatrixSize(2)}}, Since: at(12)},
				func(i int) bool { return i%3 == 2 && !at(i).Before(at(12)) }},
			{"unknown value", lts.Query{Labels: map[string][]string{"device": {"tpu"}}}, func(int) bool { return false }},
			{"unknown label", lts.Query{Labels: map[string][]string{"no_such_label": {"x"}}}, func(int) bool { return false }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				var want []*models.Payload
				for i, p := range ps {
					if tt.want(i) {
						want = append(want, p)
					}
				}
				want = inOrder(want)
				got := collect(t, s, tt.q)
				checkOrdered(t, got)
				if fmt.Sprint(uuids(got)) != fmt.Sprint(uuids(want)) {
					t.Errorf("got %d payloads %v\nwant %d %v", len(got), uuids(got), len(want), uuids(want))
				}
				if n := count(t, s, tt.q); n != int64(len(want)) {
					t.Errorf("Count = %d, want %d", n, len(want))
				}
			})
		}
	})
}

func TestStoreQueryStopsWhenAsked(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{PageSize: 2})
		if _, err := s.Put(context.Background(), ltstest.Payloads(10, ltstest.Options{Seed: 5})); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, err := range s.Query(context.Background(), lts.Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n == 3 {
				break
			}
		}
		if n != 3 {
			t.Errorf("stopped after %d", n)
		}
	})
}

func TestStoreQueryRefusesBadLabels(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		s := open(t, lts.StoreOptions{})
		for _, q := range []lts.Query{
			{Labels: map[string][]string{"Bad Name": {"x"}}},
			{Labels: map[string][]string{"device": {}}},
			{Since: ltstest.Start, Until: ltstest.Start},
		} {
			if _, err := s.Count(context.Background(), q); exitcode.Of(err) != exitcode.InvalidInput {
				t.Errorf("Count(%+v) = %v, want invalid input", q, err)
			}
			for _, err := range s.Query(context.Background(), q) {
				if exitcode.Of(err) != exitcode.InvalidInput {
					t.Errorf("Query(%+v) = %v, want invalid input", q, err)
				}
			}
		}
	})
}

// TestSQLiteQueryReturnsEverything: no silent cap.
func TestStoreQueryReturnsEverything(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open opener) {
		if testing.Short() {
			t.Skip("25,000 payloads")
		}
		s := open(t, lts.StoreOptions{})
		ps := ltstest.Payloads(25000, ltstest.Options{Series: 2, TieEvery: 3, Samples: 5, Seed: 8})
		for _, p := range ps {
			// Payloads without KPIs (as failed runs have): this test is
			// about paging payloads, KPI documents would only multiply
			// the test server's work by six.
			p.KPIs = map[string]models.KPIValue{}
		}
		if _, err := s.Put(context.Background(), ps); err != nil {
			t.Fatal(err)
		}
		for _, q := range []lts.Query{{}, {Labels: map[string][]string{"workload": {"pi"}}}} {
			got := collect(t, s, q)
			if len(got) != len(ps) {
				t.Fatalf("query %+v: %d payloads, want %d", q, len(got), len(ps))
			}
			checkOrdered(t, got)
		}
	})
}
