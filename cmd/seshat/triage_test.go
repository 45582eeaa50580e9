package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
)

// TestRegressionHonoursTriage: a regression stored by --store-results and
// triaged acknowledged in the store (as `seshat serve` does) no longer
// fails the next analysis of the same build, which shows the reason.
func TestRegressionHonoursTriage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, risenLatencies))
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", filepath.Join(dir, "r1"), "--store-results")
	if r.code != 2 || !strings.Contains(r.stderr, "stored") {
		t.Fatalf("first analysis: exit %d (want 2)\n%s", r.code, r.stderr)
	}
	s := ltstest.Open(t, url, lts.StoreOptions{})
	vs, err := lts.AsVerdictStore(s)
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := vs.Verdicts(context.Background(), lts.VerdictQuery{AlertsOnly: true})
	if err != nil || len(alerts) != 2 {
		t.Fatalf("stored alerts: %+v, %v (want rate_gflops and elapsed_ms)", alerts, err)
	}
	for _, a := range alerts {
		if a.Status != "regression" || a.Build != "ci-v1.8.0" || len(a.ReferenceBuilds) == 0 || !a.Failing {
			t.Errorf("stored alert %+v: want a failing regression of build ci-v1.8.0 with its reference builds", a)
		}
	}
	// Acknowledge one, call the other noise: the next analysis passes.
	for i, state := range []string{lts.TriageAcknowledged, lts.TriageInvalid} {
		tr := lts.Triage{VerdictID: alerts[i].ID, State: state, Reason: "new BLAS kernels", Bug: "https://bugs.example/PERF-7", Time: time.Now()}
		if err := vs.PutTriage(context.Background(), tr); err != nil {
			t.Fatal(err)
		}
	}
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", filepath.Join(dir, "r2"), "--store-results")
	if r.code != 0 {
		t.Fatalf("after triage: exit %d (want 0)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"acknowledged in triage: new BLAS kernels (https://bugs.example/PERF-7)", "invalid (noise) in triage"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stderr, "matched no regression") {
		t.Errorf("a triage ack is reported unused:\n%s", r.stderr)
	}
}
