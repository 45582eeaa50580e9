package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/sqlite"
	"github.com/seshat-bench/seshat/models"
)

// oldStore writes payloads into a store at schema version version, as a
// seshat of that version would have (its migrations, then the payload rows
// as written then; the summaries of schema 3 come from the migration of
// the payloads written at schema 1, which is what an upgraded store holds).
func oldStore(t *testing.T, version int, ps []*models.Payload) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(sqlite.Migrations[0] + "; PRAGMA application_id = 1397052232"); err != nil {
		t.Fatal(err)
	}
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
	for v := 1; v < version; v++ {
		if _, err := db.Exec(sqlite.Migrations[v]); err != nil {
			t.Fatalf("migration %d: %v", v+1, err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrationFillsRecords: a store written before summaries existed
// (schema 1), or before they held whole records (schema 3), answers
// Records with what its payloads say once opened: workload, exit code,
// KPI definitions, builds and host loads included.
func TestMigrationFillsRecords(t *testing.T) {
	t.Parallel()
	for _, version := range []int{1, 3} {
		t.Run(fmt.Sprint("schema ", version), func(t *testing.T) {
			t.Parallel()
			ps := ltstest.Payloads(4, ltstest.Options{Samples: 5, Seed: 12})
			delete(ps[2].KPIs, "wall_seconds")
			failed := 2
			ps[1].KPIs = map[string]models.KPIValue{} // a failed run
			ps[1].Metadata.ExitCode = &failed
			ps[3].Metadata.Build = &models.Build{ID: "b-1", Commit: "abc", CI: &models.CI{Engine: "github", RunID: "9"}}
			ps[2].Metadata.HostStart = &models.HostState{LoadAvg: []float64{2.5, 1.25, 0.5}}
			if lts.RecordOf(ps[2]).HostLoad == nil {
				t.Fatal("RecordOf: no host load")
			}
			ps[3].Metadata.HostStart = &models.HostState{Governor: "performance"} // no load
			ps[3].Metadata.CPUShare = 0.75
			pressure := 0.25
			ps[3].Metadata.CPUPressure = &pressure
			k := ps[0].KPIs["elapsed_ms"]
			k.Help = `ms <from> "the" median & more`
			ps[0].KPIs["elapsed_ms"] = k
			s := openSQLite(t, oldStore(t, version, ps), lts.StoreOptions{})
			var want []string
			for _, p := range ps {
				want = append(want, ltstest.RecordText(t, lts.RecordOf(p)))
			}
			var got []string
			for _, r := range ltstest.CollectRecords(t, s, lts.Query{}) {
				got = append(got, ltstest.RecordText(t, r))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("migrated records:\n got %s\nwant %s", got, want)
			}
			// The store goes on: uploading the same runs again replaces
			// them, records unchanged.
			if _, err := s.Put(context.Background(), ps); err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, r := range ltstest.CollectRecords(t, s, lts.Query{}) {
				got = append(got, ltstest.RecordText(t, r))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("records after re-upload:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func Example_records() {
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
	q := lts.Query{Labels: models.Filter{"size": {"64"}}, KPIs: []string{"elapsed_ms"}}
	for r, err := range s.Records(ctx, q) {
		if err != nil {
			panic(err)
		}
		k, _ := r.KPI("elapsed_ms")
		fmt.Printf("%s %s %.4f %s (%s is better)\n", r.Time.Format("15:04"), r.Labels["device"], k.Value, k.Unit,
			map[bool]string{true: "lower", false: "higher"}[k.LowerBetter])
	}
	// Output:
	// 00:00 cpu 0.0107 ms (lower is better)
	// 00:01 cpu 0.0102 ms (lower is better)
	// 00:02 cpu 0.0102 ms (lower is better)
}

// TestMigrationKeepsTriage: a store whose alerts were triaged before it
// kept triage histories (schema 6) shows the triage it had as the first of
// the history, and the next triage after it.
func TestMigrationKeepsTriage(t *testing.T) {
	t.Parallel()
	path := oldStore(t, 6, nil)
	v := ltstest.Verdict("a1", 0, "nightly-03", "rate_gflops", "regression")
	doc, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	before := lts.Triage{VerdictID: v.ID, State: lts.TriageInvalid, Time: ltstest.Start}
	tdoc, err := json.Marshal(before)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO verdicts (id, time_ns, workload, kpi, status, build, verdict) VALUES (?, 0, 'pi', 'rate_gflops', 'regression', 'nightly-03', ?)`,
		v.ID, string(doc)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO triage (verdict_id, triage) VALUES (?, ?)`, v.ID, string(tdoc)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	vs, err := lts.AsVerdictStore(openSQLite(t, path, lts.StoreOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	after := lts.Triage{VerdictID: v.ID, State: lts.TriageFixed, User: "carol", Time: ltstest.Start.Add(time.Hour)}
	if err := vs.PutTriage(context.Background(), after); err != nil {
		t.Fatal(err)
	}
	got, err := vs.Verdicts(context.Background(), lts.VerdictQuery{ID: v.ID})
	if err != nil || len(got) != 1 {
		t.Fatalf("Verdicts: %v, %v", got, err)
	}
	if h := got[0].TriageHistory; len(h) != 2 || h[0].State != lts.TriageInvalid || h[1].State != lts.TriageFixed || h[1].User != "carol" ||
		got[0].Triage == nil || got[0].Triage.State != lts.TriageFixed {
		t.Errorf("triage %+v, history %+v: want invalid (from before the migration) then fixed by carol, the latest fixed", got[0].Triage, h)
	}
}
