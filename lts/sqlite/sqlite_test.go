package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/sqlite"
	"github.com/seshat-bench/seshat/models"
)

func openSQLite(t testing.TB, path string, opts lts.StoreOptions) lts.Store {
	t.Helper()
	return ltstest.Open(t, "sqlite:"+path, opts)
}

// TestConformance: the SQLite store answers as every store does.
func TestConformance(t *testing.T) {
	t.Parallel()
	ltstest.Conformance(t, func(t testing.TB, opts lts.StoreOptions) lts.Store {
		return openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), opts)
	})
}

func TestSQLiteDefaultPathCreatesDirectories(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s, err := lts.Open(context.Background(), "", lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.String() != lts.DefaultStoreURL {
		t.Errorf("store = %s, want %s", s, lts.DefaultStoreURL)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seshat", "lts.db")); err != nil {
		t.Errorf("default store not created: %v", err)
	}
	nested := filepath.Join(dir, "a", "b c", "lts.db")
	openSQLite(t, nested, lts.StoreOptions{CreateDirs: true})
	if _, err := os.Stat(nested); err != nil {
		t.Errorf("nested store not created: %v", err)
	}
}

// A store in a directory that does not exist is refused unless asked to
// create it (a mistyped directory would start a new, empty store); a path
// that is a directory says so. Both are invalid input.
func TestSQLiteStorePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, path string
		opts       lts.StoreOptions
		want       string
	}{
		{"missing directory", filepath.Join(dir, "typo", "lts.db"), lts.StoreOptions{}, "directory " + filepath.Join(dir, "typo") + " does not exist (--create creates it)"},
		{"a directory", dir, lts.StoreOptions{}, dir + " is a directory, not a store file (name a file in it: sqlite:" + filepath.Join(dir, "lts.db") + ")"},
		{"a directory, reading", dir, lts.StoreOptions{MustExist: true}, dir + " is a directory, not a store file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := lts.Open(context.Background(), "sqlite:"+tt.path, tt.opts)
			if exitcode.Of(err) != exitcode.InvalidInput || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v (exit %d), want invalid input saying %q", err, exitcode.Of(err), tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
		t.Error("the missing directory was created")
	}
}

func TestOpenRefusesAURLWithoutPath(t *testing.T) {
	t.Parallel()
	_, err := lts.Open(context.Background(), "sqlite:", lts.StoreOptions{})
	if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "no path after sqlite:") {
		t.Errorf("Open(sqlite:) = %v, want an invalid input error", err)
	}
}

// A store that must exist and does not is ErrNoStore (no data), and is not
// created.
func TestOpenMustExist(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "never-uploaded.db")
	_, err := lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{MustExist: true})
	if !errors.Is(err, lts.ErrNoStore) || exitcode.Of(err) != exitcode.NoData || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open = %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the store was created: %v", err)
	}
}

// TestSQLiteLabelQueriesSearchIndices proves with SQLite's own query plan
// that a label query starts from the labels index (and from its most
// selective label), probes the others by primary key, and never scans a
// table. (The ids of label values come first from the unique index of
// label_values.)
func TestSQLiteLabelQueriesSearchIndices(t *testing.T) {
	t.Parallel()
	s := openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), lts.StoreOptions{})
	ps := ltstest.Payloads(50, ltstest.Options{Series: 5, Seed: 6})
	for i, p := range ps {
		p.Metadata.Labels["blas"] = []string{"openblas", "reference"}[i%2] // half the payloads each
	}
	for i, p := range ps {
		p.Metadata.Build = &models.Build{ID: fmt.Sprintf("nightly-%d", i/10)}
	}
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	probe := "SEARCH l EXISTS USING PRIMARY KEY (value_id=? AND payload_id=?)"
	tests := []struct {
		name    string
		q       lts.Query
		records bool // the query of Records, else of Payloads
		want    []string
		probes  int
	}{
		// A build's runs (seshat compare build:ID, the explorer's
		// comparisons): its summaries by build, in time order.
		{"a build's payloads", lts.Query{Builds: []string{"nightly-2"}}, false, []string{
			"SEARCH b USING COVERING INDEX summaries_by_build (build=?)",
			"SEARCH p USING INTEGER PRIMARY KEY (rowid=?)",
		}, 0},
		{"a build's records", lts.Query{Builds: []string{"nightly-2"}}, true, []string{
			"SEARCH p USING COVERING INDEX summaries_by_build (build=?)",
		}, 0},
		// size (10 of 50) drives, blas (25 of 50) is probed, the labels
		// every payload has (workload, device) cost nothing.
		{"one series", ltstest.SeriesQuery(ps[3]), false, []string{
			"SEARCH d USING PRIMARY KEY (value_id=?)",
			"SEARCH p USING INTEGER PRIMARY KEY (rowid=?)",
			"USE TEMP B-TREE FOR ORDER BY",
		}, 1},
		{"labels and time", lts.Query{Labels: models.Filter{"workload": {"toy"}, "size": {"64", "128"}}, Since: ltstest.Start}, false, []string{
			"SEARCH d USING PRIMARY KEY (value_id=?)",
			"SEARCH p USING INTEGER PRIMARY KEY (rowid=?)",
		}, 0},
		{"labels every payload has, and time", lts.Query{Labels: models.Filter{"workload": {"toy"}}, Since: ltstest.Start}, false, []string{
			"SEARCH p USING COVERING INDEX payloads_by_time (start_ns>?)",
		}, 0},
		{"time only", lts.Query{Since: ltstest.Start}, false, []string{
			"SEARCH p USING COVERING INDEX payloads_by_time (start_ns>?)",
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			explain := sqlite.Explain
			if tt.records {
				explain = sqlite.ExplainRecords
			}
			plan, err := explain(context.Background(), s, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("plan lacks %q:\n%s", w, text)
				}
			}
			probes := 0
			for _, step := range plan {
				if strings.HasPrefix(step, "SCAN") {
					t.Errorf("plan scans: %q\n%s", step, text)
				}
				if strings.Contains(step, " l ") {
					probes++
					if step != probe {
						t.Errorf("a label filter is not a primary key probe: %q", step)
					}
				}
			}
			if probes != tt.probes {
				t.Errorf("%d label probes, want %d:\n%s", probes, tt.probes, text)
			}
		})
	}
	// The most selective label drives and the answer is right whichever
	// labels are dropped or probed.
	for _, tt := range []struct {
		q    lts.Query
		want func(i int) bool
	}{
		{lts.Query{Labels: models.Filter{"workload": {"toy"}, "size": {ltstest.SizeLabel(0)}}}, func(i int) bool { return i%5 == 0 }},
		{ltstest.SeriesQuery(ps[3]), func(i int) bool { return i%5 == 3 && i%2 == 1 }},
		{lts.Query{Labels: models.Filter{"blas": {"openblas"}, "device": {"cpu"}}}, func(i int) bool { return i%2 == 0 }},
	} {
		var want []string
		for i, p := range ps {
			if tt.want(i) {
				want = append(want, p.Metadata.TestUUID)
			}
		}
		if got := ltstest.UUIDs(ltstest.Collect(t, s, tt.q)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: got %v, want %v", tt.q.Labels, got, want)
		}
	}
}

// TestSQLiteConcurrentUploads uploads into one file from two stores (two
// connections, as two processes would) at once: both succeed and nothing is
// lost.
func TestSQLiteConcurrentUploads(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lts.db")
	ps := ltstest.Payloads(400, ltstest.Options{Series: 4, Seed: 7})
	halves := [][]*models.Payload{ps[:200], ps[200:]}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range halves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A fresh file each: the schema creation races too.
			s, err := lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			// Several transactions each, interleaving with the other.
			for j := 0; j < 200; j += 50 {
				if _, err := s.Put(context.Background(), halves[i][j:j+50]); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent uploads: %v", err)
	}
	s := openSQLite(t, path, lts.StoreOptions{})
	got := ltstest.Collect(t, s, lts.Query{})
	if len(got) != 400 {
		t.Fatalf("%d payloads stored, want 400", len(got))
	}
	ltstest.CheckOrdered(t, got)
}

func TestSQLiteSchemaVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "lts.db")
	s := openSQLite(t, path, lts.StoreOptions{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	var mode string
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(sqlite.Migrations) {
		t.Errorf("user_version = %d, %v; want %d", version, err, len(sqlite.Migrations))
	}
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var pageSize int
	if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil || pageSize != 16384 {
		t.Errorf("page_size = %d, %v; want 16384", pageSize, err)
	}
	// Reopening an up-to-date store changes nothing.
	openSQLite(t, path, lts.StoreOptions{})

	// A store written by a newer seshat is refused, not damaged.
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err = lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("newer schema: %v", err)
	}

	// Another application's database is not a store.
	other := filepath.Join(dir, "other.db")
	odb, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odb.Exec("CREATE TABLE notes (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	_ = odb.Close()
	_, err = lts.Open(context.Background(), "sqlite:"+other, lts.StoreOptions{})
	if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "not a seshat store") {
		t.Errorf("foreign database: %v", err)
	}
}

func TestSQLiteSharedLabelsAreNotProbed(t *testing.T) {
	t.Parallel()
	// A label every payload shares filters nothing: no probe for it. The
	// series query has one label that varies (size) and 2 shared.
	s := openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), lts.StoreOptions{})
	ps := ltstest.Payloads(50, ltstest.Options{Series: 5, Seed: 6})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	plan, err := sqlite.Explain(context.Background(), s, ltstest.SeriesQuery(ps[3]))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(plan, "\n"), "EXISTS"); n != 0 {
		t.Errorf("%d probes for labels every payload has:\n%s", n, strings.Join(plan, "\n"))
	}
	// Once one payload differs, its label is probed again.
	other := ltstest.Payloads(1, ltstest.Options{Seed: 60})
	other[0].Metadata.Labels["device"] = "gpu"
	if _, err := s.Put(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	q := ltstest.SeriesQuery(ps[0])
	if got := ltstest.Collect(t, s, q); len(got) != 10 {
		t.Errorf("series of size %s: %d payloads, want 10 (not the gpu one)", q.Labels["size"], len(got))
	}
	plan, _ = sqlite.Explain(context.Background(), s, q)
	if n := strings.Count(strings.Join(plan, "\n"), "EXISTS"); n != 1 {
		t.Errorf("%d probes, want one (device):\n%s", n, strings.Join(plan, "\n"))
	}
}

// TestSQLiteSampleStatsReplaced: a run stored again by a store opened
// without lts.StoreOptions.Samples (an older seshat, a script) loses the
// summaries of its samples kept before, which were the old run's: its
// record then has none, and its samples are read from its results.
func TestSQLiteSampleStatsReplaced(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lts.db")
	ps := ltstest.Payloads(2, ltstest.Options{Seed: 9})
	samples := func(p *models.Payload, kpi string) []float64 { return []float64{1, 2, 3} }
	if _, err := openSQLite(t, path, lts.StoreOptions{Samples: samples}).Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	without := openSQLite(t, path, lts.StoreOptions{})
	if _, err := without.Put(context.Background(), ps[:1]); err != nil {
		t.Fatal(err)
	}
	rs := ltstest.CollectRecords(t, without, lts.Query{SampleStats: true})
	if len(rs) != 2 || rs[0].Samples != nil || len(rs[1].Samples) == 0 {
		t.Fatalf("records %+v: want the replaced run without summaries, the other with", rs)
	}
}

// TestSQLiteAlertsReadByTheirIndex: listing the alerts (the explorer's
// /alerts) reads the alerts in time order from their own index, not every
// verdict of every analysis; other verdict queries keep theirs.
func TestSQLiteAlertsReadByTheirIndex(t *testing.T) {
	t.Parallel()
	s := openSQLite(t, filepath.Join(t.TempDir(), "lts.db"), lts.StoreOptions{})
	ctx := context.Background()
	for _, c := range []struct {
		q    lts.VerdictQuery
		want string
	}{
		{lts.VerdictQuery{AlertsOnly: true}, "SCAN v USING INDEX verdicts_alerts_by_time"},
		{lts.VerdictQuery{AlertsOnly: true, Workload: "pi", KPI: "rate", Limit: 1000}, "SCAN v USING INDEX verdicts_alerts_by_time"},
		{lts.VerdictQuery{}, "SCAN v USING INDEX verdicts_by_time"},
		{lts.VerdictQuery{Builds: []string{"nightly-01"}}, "USING INDEX verdicts_by_build"},
	} {
		plan, err := sqlite.ExplainVerdicts(ctx, s, c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		if text := strings.Join(plan, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%+v: plan\n%s\nwant %q", c.q, text, c.want)
		}
	}
}
