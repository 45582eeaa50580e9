package lts_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
)

func collectKPIs(t testing.TB, s lts.Store, q lts.Query) []lts.KPIRecord {
	t.Helper()
	var out []lts.KPIRecord
	for r, err := range lts.QueryKPIs(context.Background(), s, q) {
		if err != nil {
			t.Fatalf("QueryKPIs: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// onlyQuery hides a store's KPIQuerier ability: QueryKPIs falls back on
// Query, as it does for OpenSearch. It records the queries it is asked.
type onlyQuery struct {
	lts.Store
	asked *[]lts.Query
}

func (o onlyQuery) Query(ctx context.Context, q lts.Query) iter.Seq2[*models.Payload, error] {
	if o.asked != nil {
		*o.asked = append(*o.asked, q)
	}
	return o.Store.Query(ctx, q)
}

// TestQueryKPIsAgreesWithQuery: the summary path yields the records of the
// payloads Query yields, in the same order, paging included.
func TestQueryKPIsAgreesWithQuery(t *testing.T) {
	t.Parallel()
	s := openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), lts.StoreOptions{PageSize: 7})
	if _, ok := s.(lts.KPIQuerier); !ok {
		t.Fatal("the SQLite store has no KPIQuerier ability")
	}
	ps := ltstest.Payloads(40, ltstest.Options{Series: 3, TieEvery: 4, Samples: 5, Seed: 11})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	// Replacing a payload replaces its summary.
	changed := *ps[5]
	changed.KPIs = map[string]models.KPIValue{"rate_gflops": ps[5].KPIs["rate_gflops"]}
	v := changed.KPIs["rate_gflops"]
	v.Value = 1234.5
	changed.KPIs["rate_gflops"] = v
	if _, err := s.Put(context.Background(), []*models.Payload{&changed}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []lts.Query{{}, {Labels: map[string][]string{"matrix_size": {ltstest.MatrixSize(1), ltstest.MatrixSize(2)}}}} {
		var want []lts.KPIRecord
		for _, p := range collect(t, s, q) {
			want = append(want, lts.RecordOf(p))
		}
		got := collectKPIs(t, s, q)
		var asked []lts.Query
		fallback := collectKPIs(t, onlyQuery{s, &asked}, q)
		// The fallback leaves the results (most of a payload) on the server.
		if len(asked) != 1 || !asked[0].WithoutResults {
			t.Errorf("the fallback asked %+v, want one query without results", asked)
		}
		if len(want) == 0 || canonical(t, got) != canonical(t, want) || canonical(t, fallback) != canonical(t, want) {
			t.Errorf("query %v: QueryKPIs differs from Query:\n got %s\nwant %s", q.Labels, canonical(t, got), canonical(t, want))
		}
	}
	for _, r := range collectKPIs(t, s, lts.Query{}) {
		if r.TestUUID == ps[5].Metadata.TestUUID && (len(r.Values) != 1 || r.Values["rate_gflops"] != 1234.5) {
			t.Errorf("replaced payload: summary %+v", r.Values)
		}
	}
}

// TestSQLiteMigrationFillsSummaries: a store written before summaries
// existed (schema 1) gets them from its payloads when opened.
func TestSQLiteMigrationFillsSummaries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(lts.SQLiteMigrations[0] + "; PRAGMA user_version = 1; PRAGMA application_id = 1397052232"); err != nil {
		t.Fatal(err)
	}
	ps := ltstest.Payloads(3, ltstest.Options{Samples: 5, Seed: 12})
	delete(ps[2].KPIs, "cpu_seconds")
	ps[1].KPIs = map[string]models.KPIValue{} // a failed run
	for _, p := range ps {
		doc, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO payloads (test_uuid, start_ns, workload, payload) VALUES (?, ?, ?, ?)",
			p.Metadata.TestUUID, p.Metadata.Start.UnixNano(), p.Metadata.Workload, string(doc)); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	s := openSQLite(t, path, lts.StoreOptions{})
	var want []lts.KPIRecord
	for _, p := range ps {
		want = append(want, lts.RecordOf(p))
	}
	if got := collectKPIs(t, s, lts.Query{}); canonical(t, got) != canonical(t, want) {
		t.Errorf("migrated summaries:\n got %s\nwant %s", canonical(t, got), canonical(t, want))
	}
}

func ExampleQueryKPIs() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "seshat-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	s, err := lts.Open(ctx, "sqlite:"+filepath.Join(dir, "lts.db"), lts.StoreOptions{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if _, err := s.Put(ctx, ltstest.Payloads(3, ltstest.Options{Samples: 5, Seed: 1})); err != nil {
		panic(err)
	}
	for r, err := range lts.QueryKPIs(ctx, s, lts.Query{Labels: map[string][]string{"matrix_size": {"64"}}}) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s %.1f %s\n", r.Start.Format("15:04"), r.Labels["framework_version"], r.Values["rate_gflops"], "GFLOPS")
	}
	// Output:
	// 00:00 v0.17.0+go1.26.0 51.2 GFLOPS
	// 00:01 v0.17.0+go1.26.0 48.8 GFLOPS
	// 00:02 v0.17.0+go1.26.0 50.2 GFLOPS
}
