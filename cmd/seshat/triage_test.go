package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/workloads"
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
	s := openStore(t, url)
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

// TestTriageInChromium: on the alerts page of `seshat serve
// --allow-triage`, typing a reason and clicking "acknowledge" triages the
// alert (its status changes on the page and in the store), and the next
// `seshat regression` of the build passes, showing the reason.
func TestTriageInChromium(t *testing.T) {
	browsertest.Chromium(t)
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, risenLatencies))
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", filepath.Join(dir, "r1"), "--store-results")
	if r.code != 2 {
		t.Fatalf("first analysis: exit %d (want 2)\n%s", r.code, r.stderr)
	}
	h, err := explorer.New(explorer.Options{Store: openStore(t, url), Workloads: explorer.Registered(workloads.Builtin()), AllowTriage: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, done := browsertest.Tab(t, srv.URL+"/alerts")
	defer done()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#alerts tr.alert button[data-state="acknowledged"]`))); err != nil {
		t.Fatalf("chromium: the triage buttons: %v", err)
	}
	for i := 1; i <= 2; i++ {
		row := fmt.Sprintf(`#alerts tr.alert:nth-child(%d)`, i)
		err := chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(row+` input.reason`), "new BLAS kernels"),
			chromedp.Click(chromedp.CSS(row+` button[data-state="acknowledged"]`)))
		if err != nil {
			t.Fatalf("chromium: acknowledging alert %d: %v", i, err)
		}
		state, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(
			`(() => { const s = document.querySelector(%q).textContent; return s === "acknowledged" ? s : null; })()`, row+` .triage-state`),
			chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil || state != "acknowledged" {
			text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row)))
			t.Fatalf("alert %d after the click: %q, %v; row: %s", i, state, err, text)
		}
	}
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", filepath.Join(dir, "r2"))
	if r.code != 0 || !strings.Contains(r.stdout, "acknowledged in triage: new BLAS kernels") {
		t.Fatalf("after triage in the page: exit %d (want 0)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// openStore opens the store at url for a test, which closes it. (Not
// ltstest.Open: importing ltstest registers its toy workload, which would
// change what this binary's seshat knows.)
func openStore(t *testing.T, url string) lts.Store {
	t.Helper()
	s, err := lts.Open(context.Background(), url, lts.StoreOptions{})
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
