package ltstest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// OpenFunc opens a fresh, empty store of the backend under test; the test
// closes it.
type OpenFunc func(t testing.TB, opts lts.StoreOptions) lts.Store

// Conformance runs the tests every lts.Store must pass against stores that
// open makes: idempotent Put, the order, completeness and conditions of
// queries (labels, builds, commits, time), records that say what payloads
// say, refused queries, label names. Each
// backend's tests call it, so that history never depends on the backend.
func Conformance(t *testing.T, open OpenFunc) {
	for _, tt := range []struct {
		name string
		test func(t *testing.T, open OpenFunc)
	}{
		{"PutIsIdempotent", putIsIdempotent},
		{"ReplaceChangesLabels", replaceChangesLabels},
		{"StoresPayloadsWhole", storesPayloadsWhole},
		{"Query", query},
		{"RecordsSayWhatPayloadsSay", recordsSayWhatPayloadsSay},
		{"KeepsSampleStats", keepsSampleStats},
		{"QueryStopsWhenAsked", queryStopsWhenAsked},
		{"QueryRefusesBadQueries", queryRefusesBadQueries},
		{"QueryReturnsEverything", queryReturnsEverything},
		{"LabelNames", labelNames},
		{"VerdictsAndTriage", verdictsAndTriage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, open)
		})
	}
}

// Open opens the store of rawURL for a test, which closes it.
func Open(t testing.TB, rawURL string, opts lts.StoreOptions) lts.Store {
	t.Helper()
	s, err := lts.Open(context.Background(), rawURL, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Collect returns the payloads of a query, failing the test on an error.
func Collect(t testing.TB, s lts.Store, q lts.Query) []*models.Payload {
	t.Helper()
	var out []*models.Payload
	for p, err := range s.Payloads(context.Background(), q) {
		if err != nil {
			t.Fatalf("Payloads: %v", err)
		}
		out = append(out, p)
	}
	return out
}

// CollectRecords returns the records of a query, failing the test on an
// error.
func CollectRecords(t testing.TB, s lts.Store, q lts.Query) []lts.Record {
	t.Helper()
	var out []lts.Record
	for r, err := range s.Records(context.Background(), q) {
		if err != nil {
			t.Fatalf("Records: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// Count counts the matches of a query, failing the test on an error.
func Count(t testing.TB, s lts.Store, q lts.Query) int64 {
	t.Helper()
	n, err := s.Count(context.Background(), q)
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	return n
}

// UUIDs returns the test_uuids of payloads, in order.
func UUIDs(ps []*models.Payload) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Metadata.TestUUID
	}
	return out
}

// CheckOrdered fails unless ps are ordered by start then test_uuid.
func CheckOrdered(t testing.TB, ps []*models.Payload) {
	t.Helper()
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1].Metadata, ps[i].Metadata
		if b.Start.Before(a.Start) || (b.Start.Equal(a.Start) && b.TestUUID <= a.TestUUID) {
			t.Fatalf("payload %d (%s %s) after %d (%s %s): not in time then test_uuid order",
				i, b.Start, b.TestUUID, i-1, a.Start, a.TestUUID)
		}
	}
}

// Canonical is v as JSON with every object's keys sorted.
func Canonical(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	data, err = json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// RecordText is a record as text, KPI definitions included, for
// comparisons.
func RecordText(t testing.TB, r lts.Record) string {
	t.Helper()
	return Canonical(t, struct {
		Record lts.Record
		Defs   map[string]lts.KPIDef
	}{r, r.Defs})
}

func putIsIdempotent(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{})
	ps := Payloads(20, Options{Series: 3, Seed: 1})
	stats, err := s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Payloads != 20 || stats.Created != 20 || stats.Replaced != 0 {
		t.Errorf("first upload: %+v", stats)
	}
	small := lts.Query{Labels: models.Filter{"size": {SizeLabel(0)}}}
	before := Count(t, s, small)
	stats, err = s.Put(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Payloads != 20 || stats.Created != 0 || stats.Replaced != 20 {
		t.Errorf("second upload: %+v", stats)
	}
	if n := Count(t, s, lts.Query{}); n != 20 {
		t.Errorf("count after re-upload = %d, want 20", n)
	}
	if n := Count(t, s, small); n != before || n != 7 {
		t.Errorf("label count after re-upload = %d, before %d, want 7", n, before)
	}
}

func replaceChangesLabels(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{})
	ps := Payloads(2, Options{Seed: 2})
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
	for device, want := range map[string]string{"cpu": ps[1].Metadata.TestUUID, "gpu": ps[0].Metadata.TestUUID} {
		q := lts.Query{Labels: models.Filter{"device": {device}}}
		if got := UUIDs(Collect(t, s, q)); len(got) != 1 || got[0] != want {
			t.Errorf("device=%s = %v, want only %s", device, got, want)
		}
		if got := CollectRecords(t, s, q); len(got) != 1 || got[0].TestUUID != want || got[0].Labels["device"] != device {
			t.Errorf("records of device=%s = %+v, want only %s", device, got, want)
		}
	}
}

// keepsSampleStats: a store opened with StoreOptions.Samples keeps the
// summaries of each payload's samples (lts.SampleStatsOf) and gives them
// with its records when the query asks; a store opened without keeps
// none (nil: the samples are read from the results).
func keepsSampleStats(t *testing.T, open OpenFunc) {
	ps := Payloads(4, Options{Seed: 4})
	// Three samples about each KPI value; the second run's one not
	// positive (left out), the third's none.
	samples := func(p *models.Payload, kpi string) []float64 {
		v := p.KPIs[kpi].Value
		switch p.Metadata.TestUUID {
		case ps[1].Metadata.TestUUID:
			return []float64{v, -1}
		case ps[2].Metadata.TestUUID:
			return nil
		}
		return []float64{v, v * 1.25, v / 3}
	}
	kept := open(t, lts.StoreOptions{Samples: samples})
	none := open(t, lts.StoreOptions{})
	for _, s := range []lts.Store{kept, none} {
		if _, err := s.Put(context.Background(), ps); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range CollectRecords(t, kept, lts.Query{SampleStats: true}) {
		want := lts.SampleStatsOf(ps[i], samples)
		if len(want) != map[int]int{0: len(ps[i].KPIs), 1: 0, 2: 0, 3: len(ps[i].KPIs)}[i] {
			t.Fatalf("run %d: %d KPIs summarised: the test's samples are not what it means", i, len(want))
		}
		if r.Samples == nil || !reflect.DeepEqual(r.Samples, want) {
			t.Errorf("run %d: kept summaries %+v, want %+v", i, r.Samples, want)
		}
	}
	for _, r := range CollectRecords(t, kept, lts.Query{}) {
		if r.Samples != nil {
			t.Errorf("run %s: summaries %+v yielded unasked", r.TestUUID, r.Samples)
		}
	}
	for _, r := range CollectRecords(t, none, lts.Query{SampleStats: true}) {
		if r.Samples != nil {
			t.Errorf("run %s stored without StoreOptions.Samples: summaries %+v, want nil", r.TestUUID, r.Samples)
		}
	}
}

func storesPayloadsWhole(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{})
	ps := Payloads(3, Options{Seed: 3})
	ps[1].Metadata.Build = &models.Build{ID: "b-7", Commit: "0123abc", CI: &models.CI{Engine: "github", RunID: "7"}}
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	got := Collect(t, s, lts.Query{})
	if len(got) != 3 {
		t.Fatalf("%d payloads back, want 3", len(got))
	}
	for i := range ps {
		// Results come back as generic JSON, not the workload's types:
		// compare the documents.
		if want, have := Canonical(t, ps[i]), Canonical(t, got[i]); want != have {
			t.Errorf("payload %d comes back different:\n got %s\nwant %s", i, have, want)
		}
	}
	// Asked for their results only, the same runs come back, each with its
	// test_uuid, workload and results (a store may give more).
	only := Collect(t, s, lts.Query{ResultsOnly: true})
	if len(only) != 3 {
		t.Fatalf("results only: %d payloads back, want 3", len(only))
	}
	for i, p := range only {
		m := p.Metadata
		if m.TestUUID != ps[i].Metadata.TestUUID || m.Workload != ps[i].Metadata.Workload || Canonical(t, p.Results) != Canonical(t, got[i].Results) {
			t.Errorf("results only: payload %d is %s %s with results %s, want %s %s with %s", i, m.TestUUID, m.Workload,
				Canonical(t, p.Results), ps[i].Metadata.TestUUID, ps[i].Metadata.Workload, Canonical(t, got[i].Results))
		}
	}
}

// query: the runs matching each condition, in order, for Payloads, Records
// and Count alike, paging with the store's page size or the query's.
func query(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{PageSize: 4})
	// 30 payloads, 3 series, every 5th starting with the one before it.
	ps := Payloads(30, Options{Series: 3, TieEvery: 5, Seed: 4})
	// Three builds of ten runs each, the first five runs without one;
	// two commits share a prefix.
	commits := []string{"3f2a9c1e5b", "3f2a07d2aa", "8e41d07c3f"}
	for i, p := range ps[5:] {
		b := (i + 5) / 10
		p.Metadata.Build = &models.Build{ID: fmt.Sprintf("nightly-%02d", b), Commit: commits[b]}
	}
	inBuild := func(i int, builds ...int) bool { return i >= 5 && slices.Contains(builds, i/10) }
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
		{"one series", lts.Query{Labels: models.Filter{"size": {SizeLabel(1)}, "device": {"cpu"}}},
			func(i int) bool { return i%3 == 1 }},
		{"two values", lts.Query{Labels: models.Filter{"size": {SizeLabel(0), SizeLabel(2)}}},
			func(i int) bool { return i%3 != 1 }},
		{"time range", lts.Query{Since: at(10), Until: at(20)},
			func(i int) bool { return !at(i).Before(at(10)) && at(i).Before(at(20)) }},
		{"series and since", lts.Query{Labels: models.Filter{"size": {SizeLabel(2)}}, Since: at(12)},
			func(i int) bool { return i%3 == 2 && !at(i).Before(at(12)) }},
		{"workload", lts.Query{Workload: "toy", PageSize: 7}, func(int) bool { return true }},
		{"other workload", lts.Query{Workload: "serving"}, func(int) bool { return false }},
		{"unknown value", lts.Query{Labels: models.Filter{"device": {"tpu"}}}, func(int) bool { return false }},
		{"unknown label", lts.Query{Labels: models.Filter{"no_such_label": {"x"}}}, func(int) bool { return false }},
		{"build", lts.Query{Builds: []string{"nightly-01"}}, func(i int) bool { return inBuild(i, 1) }},
		{"two builds", lts.Query{Builds: []string{"nightly-00", "nightly-02"}, PageSize: 3}, func(i int) bool { return inBuild(i, 0, 2) }},
		{"unknown build", lts.Query{Builds: []string{"nightly-1"}}, func(int) bool { return false }},
		{"whole commit", lts.Query{Commits: []string{commits[2]}}, func(i int) bool { return inBuild(i, 2) }},
		{"commit prefix of two", lts.Query{Commits: []string{"3f2a"}}, func(i int) bool { return inBuild(i, 0, 1) }},
		{"commit prefix of one", lts.Query{Commits: []string{"3f2a0", "ffff"}}, func(i int) bool { return inBuild(i, 1) }},
		{"build and commit", lts.Query{Builds: []string{"nightly-00", "nightly-02"}, Commits: []string{"3f2a"}}, func(i int) bool { return inBuild(i, 0) }},
		{"build and series", lts.Query{Builds: []string{"nightly-02"}, Labels: models.Filter{"size": {SizeLabel(1)}}},
			func(i int) bool { return inBuild(i, 2) && i%3 == 1 }},
		{"build and time", lts.Query{Commits: []string{"3f2a"}, Until: at(12)}, func(i int) bool { return inBuild(i, 0, 1) && at(i).Before(at(12)) }},
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
			lts.InOrder(want)
			got := Collect(t, s, tt.q)
			CheckOrdered(t, got)
			if fmt.Sprint(UUIDs(got)) != fmt.Sprint(UUIDs(want)) {
				t.Errorf("got %d payloads %v\nwant %d %v", len(got), UUIDs(got), len(want), UUIDs(want))
			}
			records := CollectRecords(t, s, tt.q)
			var ids []string
			for _, r := range records {
				ids = append(ids, r.TestUUID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(UUIDs(want)) {
				t.Errorf("got %d records %v\nwant %d %v", len(ids), ids, len(want), UUIDs(want))
			}
			if n := Count(t, s, tt.q); n != int64(len(want)) {
				t.Errorf("Count = %d, want %d", n, len(want))
			}
		})
	}
}

// recordsSayWhatPayloadsSay: a store's records are lts.RecordOf its
// payloads (time, workload, exit code, build, labels, KPI values and
// definitions), failed runs and builds shared by several runs included,
// and Query.KPIs keeps only the KPIs named.
func recordsSayWhatPayloadsSay(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{PageSize: 7})
	ps := Payloads(40, Options{Series: 3, TieEvery: 4, Samples: 5, Seed: 11})
	build := &models.Build{ID: "nightly-12", Commit: "89ab", Ref: "main", Time: Start,
		CI: &models.CI{Engine: "tekton", RunID: "12", URL: "https://ci.example/12"}}
	for i, p := range ps {
		if i%4 != 0 {
			p.Metadata.Build = build
		}
	}
	failed := 1
	ps[9].Metadata.ExitCode = &failed
	ps[9].KPIs = map[string]models.KPIValue{}
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	// Replacing a payload replaces its record.
	changed := *ps[5]
	v := ps[5].KPIs["elapsed_ms"]
	v.Value, v.Unit = 1234.5, "s"
	changed.KPIs = map[string]models.KPIValue{"elapsed_ms": v}
	changed.Metadata.Build = &models.Build{ID: "other"}
	if _, err := s.Put(context.Background(), []*models.Payload{&changed}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []lts.Query{
		{},
		{Labels: models.Filter{"size": {SizeLabel(1), SizeLabel(2)}}},
		{KPIs: []string{"elapsed_ms", "no_such_kpi"}, PageSize: 3},
	} {
		var want []string
		for _, p := range Collect(t, s, q) {
			want = append(want, RecordText(t, lts.RecordOf(p).Only(q.KPIs)))
		}
		var got []string
		for _, r := range CollectRecords(t, s, q) {
			got = append(got, RecordText(t, r))
		}
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("query %+v: records differ from payloads:\n got %v\nwant %v", q, got, want)
		}
	}
	for _, r := range CollectRecords(t, s, lts.Query{}) {
		switch r.TestUUID {
		case ps[5].Metadata.TestUUID:
			if k, ok := r.KPI("elapsed_ms"); len(r.Values) != 1 || !ok || k.Value != 1234.5 || k.Unit != "s" || r.BuildID() != "other" {
				t.Errorf("replaced payload: record %+v", r)
			}
		case ps[9].Metadata.TestUUID:
			if r.ExitCode == nil || *r.ExitCode != 1 || len(r.Values) != 0 {
				t.Errorf("failed run: record %+v", r)
			}
		case ps[0].Metadata.TestUUID:
			if r.Build != nil || r.BuildID() != "run:"+r.TestUUID {
				t.Errorf("run without a build: build %+v, id %s", r.Build, r.BuildID())
			}
		}
	}
}

func queryStopsWhenAsked(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{PageSize: 2})
	if _, err := s.Put(context.Background(), Payloads(10, Options{Seed: 5})); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range s.Payloads(context.Background(), lts.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 3 {
			break
		}
	}
	m := 0
	for _, err := range s.Records(context.Background(), lts.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		m++
		if m == 3 {
			break
		}
	}
	if n != 3 || m != 3 {
		t.Errorf("stopped after %d payloads, %d records", n, m)
	}
}

func queryRefusesBadQueries(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{})
	for _, q := range []lts.Query{
		{Labels: models.Filter{"Bad Name": {"x"}}},
		{Labels: models.Filter{"device": {}}},
		{KPIs: []string{"Rate"}},
		{Since: Start, Until: Start},
		{Builds: []string{""}},
		{Commits: []string{"3f2"}},
	} {
		if _, err := s.Count(context.Background(), q); exitcode.Of(err) != exitcode.InvalidInput {
			t.Errorf("Count(%+v) = %v, want invalid input", q, err)
		}
		for _, err := range s.Payloads(context.Background(), q) {
			if exitcode.Of(err) != exitcode.InvalidInput {
				t.Errorf("Payloads(%+v) = %v, want invalid input", q, err)
			}
		}
		for _, err := range s.Records(context.Background(), q) {
			if exitcode.Of(err) != exitcode.InvalidInput {
				t.Errorf("Records(%+v) = %v, want invalid input", q, err)
			}
		}
	}
}

// labelNames: the names of the labels that stored runs have, and only
// those: a label no run has any more is gone.
func labelNames(t *testing.T, open OpenFunc) {
	s := open(t, lts.StoreOptions{})
	names := func() []string {
		t.Helper()
		got, err := s.LabelNames(context.Background())
		if err != nil {
			t.Fatalf("LabelNames: %v", err)
		}
		return got
	}
	if got := names(); len(got) != 0 {
		t.Errorf("empty store: label names %v, want none", got)
	}
	ps := Payloads(3, Options{Series: 3, Seed: 12})
	ps[1].Metadata.Labels["openblas_num_threads"] = "1"
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range ps {
		for k := range p.Metadata.Labels {
			want[k] = true
		}
	}
	got := names()
	if !slices.IsSorted(got) || fmt.Sprint(got) != fmt.Sprint(slices.Sorted(maps.Keys(want))) {
		t.Errorf("label names %v, want %v", got, slices.Sorted(maps.Keys(want)))
	}
	replaced := *ps[1]
	replaced.Metadata.Labels = maps.Clone(ps[1].Metadata.Labels)
	delete(replaced.Metadata.Labels, "openblas_num_threads")
	if _, err := s.Put(context.Background(), []*models.Payload{&replaced}); err != nil {
		t.Fatal(err)
	}
	if got := names(); slices.Contains(got, "openblas_num_threads") || len(got) != len(want)-1 {
		t.Errorf("after the only run with openblas_num_threads lost it: label names %v", got)
	}
}

// queryReturnsEverything: no silent cap: every payload of a query of many
// pages comes back, in order.
func queryReturnsEverything(t *testing.T, open OpenFunc) {
	// 25 pages of 40 (a page size a query may set), ties across page
	// boundaries: what 25,000 payloads in pages of 1,000 tested, at a
	// twenty-fifth of the cost.
	s := open(t, lts.StoreOptions{PageSize: 40})
	ps := Payloads(1000, Options{Series: 2, TieEvery: 3, Seed: 8})
	for _, p := range ps {
		// Payloads without KPIs (as failed runs have): this test is
		// about paging payloads, KPI documents would only multiply
		// the test server's work by three.
		p.KPIs = map[string]models.KPIValue{}
	}
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	for _, q := range []lts.Query{{}, {Labels: models.Filter{"workload": {"toy"}}}} {
		got := Collect(t, s, q)
		if len(got) != len(ps) {
			t.Fatalf("query %+v: %d payloads, want %d", q, len(got), len(ps))
		}
		CheckOrdered(t, got)
		if n := len(CollectRecords(t, s, q)); n != len(ps) {
			t.Fatalf("query %+v: %d records, want %d", q, n, len(ps))
		}
	}
}
