package ltstest

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
)

// Verdict returns a verdict of analysis at minute minute after Start, of
// build build, with the given status: what `seshat regression
// --store-results` stores.
func Verdict(analysis string, minute int, build, kpi, status string) lts.Verdict {
	labels := map[string]string{"matrix_size": "64", "note": "<script>alert(1)</script>"}
	return lts.Verdict{
		ID: lts.VerdictID(analysis, "pi", labels, build, kpi), AnalysisID: analysis,
		Time: Start.Add(time.Duration(minute) * time.Minute), Workload: "pi", Labels: labels, Comparison: build,
		KPI: kpi, Unit: "GFLOPS", Status: status, Failing: status == "regression",
		DeltaPercent: -12.5, FloorPercent: 3, QValue: lts.Float(math.NaN()), Current: 43.75, Reference: 50,
		Build: build, Commit: "a1b2c3d4e5f6", ReferenceBuilds: []string{"nightly-01", "nightly-02"},
	}
}

// verdictsAndTriage checks that a store keeps verdicts whole, answers
// their queries newest first, and keeps the latest triage of each.
func verdictsAndTriage(t *testing.T, open OpenFunc) {
	ctx := context.Background()
	vs, err := lts.AsVerdictStore(open(t, lts.StoreOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	old := Verdict("a1", 0, "nightly-03", "rate_gflops", "regression")
	okOld := Verdict("a1", 0, "nightly-03", "elapsed_ms", "ok")
	newer := Verdict("a2", 5, "nightly-04", "rate_gflops", "improvement")
	if err := vs.PutVerdicts(ctx, []lts.Verdict{old, okOld, newer}); err != nil {
		t.Fatalf("PutVerdicts: %v", err)
	}
	// Storing again replaces.
	if err := vs.PutVerdicts(ctx, []lts.Verdict{old}); err != nil {
		t.Fatalf("PutVerdicts again: %v", err)
	}
	ids := func(q lts.VerdictQuery) []string {
		t.Helper()
		got, err := vs.Verdicts(ctx, q)
		if err != nil {
			t.Fatalf("Verdicts(%+v): %v", q, err)
		}
		var out []string
		for _, v := range got {
			out = append(out, v.ID)
		}
		return out
	}
	byID := func(a, b string) []string {
		if a < b {
			return []string{a, b}
		}
		return []string{b, a}
	}
	for _, tt := range []struct {
		name string
		q    lts.VerdictQuery
		want []string
	}{
		{"all, newest first", lts.VerdictQuery{}, append([]string{newer.ID}, byID(old.ID, okOld.ID)...)},
		{"alerts", lts.VerdictQuery{AlertsOnly: true}, []string{newer.ID, old.ID}},
		{"build", lts.VerdictQuery{Builds: []string{"nightly-03"}}, byID(old.ID, okOld.ID)},
		{"kpi", lts.VerdictQuery{KPI: "elapsed_ms"}, []string{okOld.ID}},
		{"workload", lts.VerdictQuery{Workload: "other"}, nil},
		{"id", lts.VerdictQuery{ID: newer.ID}, []string{newer.ID}},
		{"limit", lts.VerdictQuery{Limit: 1}, []string{newer.ID}},
	} {
		if got := ids(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	got, err := vs.Verdicts(ctx, lts.VerdictQuery{ID: old.ID})
	if err != nil || len(got) != 1 {
		t.Fatalf("Verdicts(%s) = %v, %v", old.ID, got, err)
	}
	if a, b := Canonical(t, got[0]), Canonical(t, old); a != b {
		t.Errorf("stored verdict reads back as\n%s\nwant\n%s", a, b)
	}

	// Triage: the latest is the verdict's triage, every one is in its
	// history, with who made it; an unknown verdict is refused; a bad one
	// is refused.
	first := lts.Triage{VerdictID: old.ID, State: lts.TriageInvalid, User: "alice", Time: Start.Add(time.Hour)}
	second := lts.Triage{VerdictID: old.ID, State: lts.TriageAcknowledged, Reason: "known: <b>new BLAS</b>", Bug: "https://bugs.example/1?a=1&b=2",
		User: "bob <b@example.com>", Time: Start.Add(2 * time.Hour)}
	for _, tr := range []lts.Triage{first, second} {
		if err := vs.PutTriage(ctx, tr); err != nil {
			t.Fatalf("PutTriage(%+v): %v", tr, err)
		}
	}
	if err := vs.PutTriage(ctx, lts.Triage{VerdictID: "nope", State: lts.TriageFixed}); !errors.Is(err, lts.ErrUnknownVerdict) {
		t.Errorf("PutTriage of an unknown verdict: %v, want ErrUnknownVerdict", err)
	}
	if err := vs.PutTriage(ctx, lts.Triage{VerdictID: old.ID, State: "wontfix"}); err == nil {
		t.Errorf("PutTriage with state wontfix: no error")
	}
	got, err = vs.Verdicts(ctx, lts.VerdictQuery{AlertsOnly: true})
	if err != nil || len(got) != 2 {
		t.Fatalf("Verdicts = %v, %v", got, err)
	}
	if got[0].Triage != nil {
		t.Errorf("untriaged verdict has triage %+v", got[0].Triage)
	}
	if got[1].Triage == nil || Canonical(t, *got[1].Triage) != Canonical(t, second) {
		t.Errorf("triage = %+v, want %+v", got[1].Triage, second)
	}
	checkHistory := func(what string, v lts.Verdict) {
		t.Helper()
		if len(v.TriageHistory) != 2 || Canonical(t, v.TriageHistory[0]) != Canonical(t, first) || Canonical(t, v.TriageHistory[1]) != Canonical(t, second) {
			t.Errorf("%s: triage history %+v, want %+v then %+v", what, v.TriageHistory, first, second)
		}
	}
	checkHistory("after two triages", got[1])
	if len(got[0].TriageHistory) != 0 {
		t.Errorf("untriaged verdict has a triage history %+v", got[0].TriageHistory)
	}
	// Storing the verdict again keeps its triage.
	if err := vs.PutVerdicts(ctx, []lts.Verdict{old}); err != nil {
		t.Fatal(err)
	}
	if got, _ := vs.Verdicts(ctx, lts.VerdictQuery{ID: old.ID}); len(got) != 1 || got[0].Triage == nil {
		t.Errorf("re-stored verdict lost its triage: %+v", got)
	} else {
		checkHistory("re-stored", got[0])
	}
}
