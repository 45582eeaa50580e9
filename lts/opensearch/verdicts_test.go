package opensearch_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearch"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
)

// TestOpenSearchVerdictsPastTheWindow: a search returns at most
// index.max_result_window verdicts (10,000 by default); Verdicts pages past
// it with search_after, so that every verdict comes back, newest first
// and each once, with its triage, and a limit still bounds them. The
// window is 4 here: 23 verdicts are 6 pages, some sharing their time (the
// id breaks the tie).
func TestOpenSearchVerdictsPastTheWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 3})
	checkVerdictPaging(t, ctx, openOpenSearch(t, ts, lts.StoreOptions{}), func() int { return ts.Requests(opensearchtest.EndpointSearch) })
}

// checkVerdictPaging stores 23 verdicts in s, triages two, and reads them
// back 4 a search; searches counts the searches so far, nil when unknown.
func checkVerdictPaging(t *testing.T, ctx context.Context, s lts.Store, searches func() int) {
	t.Helper()
	opensearch.SetVerdictWindow(s, 4)
	vs, err := lts.AsVerdictStore(s)
	if err != nil {
		t.Fatal(err)
	}
	var stored []lts.Verdict
	for i := range 23 {
		status := "ok"
		if i%3 == 0 {
			status = "regression"
		}
		stored = append(stored, ltstest.Verdict(fmt.Sprintf("a%02d", i), i/2, fmt.Sprintf("nightly-%02d", i), "rate_gflops", status))
	}
	if err := vs.PutVerdicts(ctx, stored); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 21} {
		if err := vs.PutTriage(ctx, lts.Triage{VerdictID: stored[i].ID, State: lts.TriageInvalid, Time: ltstest.Start}); err != nil {
			t.Fatal(err)
		}
	}
	want := slices.Clone(stored)
	lts.SortVerdicts(want)
	ids := func(vs []lts.Verdict) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.ID)
		}
		return out
	}
	before := 0
	if searches != nil {
		before = searches()
	}
	got, err := vs.Verdicts(ctx, lts.VerdictQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), ids(want)) {
		t.Errorf("Verdicts: %d verdicts\n%q\nwant all %d newest first\n%q", len(got), ids(got), len(want), ids(want))
	}
	if searches != nil {
		// 6 pages of verdicts, the triage of 23 in 6 searches of ids,
		// the triage history of the 2 triaged in one.
		if n := searches() - before; n != 13 {
			t.Errorf("%d searches, want 13: 6 pages of 4 verdicts, their triage 4 ids a search, the history of the triaged", n)
		}
	}
	triaged := 0
	for _, v := range got {
		if v.Triage != nil {
			triaged++
			if v.ID != stored[0].ID && v.ID != stored[21].ID || v.Triage.State != lts.TriageInvalid || len(v.TriageHistory) != 1 {
				t.Errorf("verdict %s: triage %+v, want only verdicts 0 and 21 invalid, once", v.ID, v.Triage)
			}
		}
	}
	if triaged != 2 {
		t.Errorf("%d verdicts with their triage, want 2", triaged)
	}
	if got, err := vs.Verdicts(ctx, lts.VerdictQuery{Limit: 9}); err != nil || !slices.Equal(ids(got), ids(want[:9])) {
		t.Errorf("Verdicts(limit 9): %q, %v; want the newest 9 %q", ids(got), err, ids(want[:9]))
	}
	var alerts []lts.Verdict
	for _, v := range want {
		if v.IsAlert() {
			alerts = append(alerts, v)
		}
	}
	if got, err := vs.Verdicts(ctx, lts.VerdictQuery{AlertsOnly: true}); err != nil || !slices.Equal(ids(got), ids(alerts)) {
		t.Errorf("Verdicts(alerts): %q, %v; want the %d regressions %q", ids(got), err, len(alerts), ids(alerts))
	}
}
