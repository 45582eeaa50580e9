package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// abBenchmark writes a benchmark file of the stand-in PI run as two sides
// of the setting side (base and head), repeat runs each, whose speeds are
// the files speed-base and speed-head.
func abBenchmark(t *testing.T, h *fakeHost, repeat int, base, head float64) string {
	t.Helper()
	return abNoisyBenchmark(t, h, repeat, base, head, 0.01)
}

// abNoisyBenchmark is abBenchmark with runs of relative noise noise.
func abNoisyBenchmark(t *testing.T, h *fakeHost, repeat int, base, head, noise float64) string {
	t.Helper()
	script := fakeRate(t)
	h.write(t, filepath.Join(h.dir, "speed-base"), base)
	h.write(t, filepath.Join(h.dir, "speed-head"), head)
	path := filepath.Join(h.dir, "ab.yaml")
	h.write(t, path, fmt.Sprintf("extra_settings: [device]\nexpe:\n  pr:\n    pi: exec\n    device: cpu\n    side: [base, head]\n    repeat: %d\n    command: [awk, -f, %q, %q, \"\", \"%g\"]\n",
		repeat, script, filepath.Join(h.dir, "speed-{side}"), noise))
	return path
}

func abRun(t *testing.T, h *fakeHost, bench string) string {
	t.Helper()
	results := filepath.Join(h.dir, "results")
	if r := runSeshat(t, nil, "run", "-q", "--benchmark", bench, "--results-dir", results, "--build-id", "pr"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	return results
}

// TestRegressionABBaseline: the two sides of one job, head 20% slower than
// base: --baseline side=base fails naming head, with no store at all.
func TestRegressionABBaseline(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	results := abRun(t, h, abBenchmark(t, h, 4, 1, 0.8))
	report := filepath.Join(h.dir, "report")
	r := runSeshat(t, map[string]string{"SESHAT_STORE": ""}, "regression", "--results-dir", results, "--baseline", "side=base",
		"--kpi-filter", "rate_gflops", "--report-dir", report)
	if r.code != 2 || !strings.Contains(r.stderr, "rate_gflops regression of #2 side=head @") {
		t.Fatalf("exit %d, want 2 naming side=head:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "baseline") {
		t.Errorf("the table does not show the baseline:\n%s", r.stdout)
	}
	// side tells the two sides apart: that is the A/B, not worth a warning
	// (TestRegressionVaryingSettingIsASeries: without --baseline it is).
	if strings.Contains(r.stderr, "varies across the matrix") {
		t.Errorf("a warning on the A/B key:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "lts.db")); err == nil {
		t.Error("a store was created")
	}
	s := summary(t, report)
	if s["regressions"].(float64) != 1 || s["baseline"].(float64) != 1 {
		t.Errorf("summary: %v", s)
	}
	// The two sides' runs of each round (@repeat) are compared within it.
	if f := s["findings"].([]any); len(f) != 1 || !strings.Contains(f[0].(map[string]any)["details"].(string), "within 4 rounds") {
		t.Errorf("the finding is not compared within the 4 rounds: %v", f)
	}
	// The HTML report says what every side was judged against.
	page, err := os.ReadFile(filepath.Join(report, "regression_report.html"))
	for _, want := range []string{"every side judged against the baseline side=base of the same runs (A/B)",
		"the baseline&#39;s level", "the 95% interval of the change against the baseline is ±",
		"<caption>The two sides, run in the same job</caption>", "<td>the baseline side=base</td>", "<td>side=head, judged against it</td>"} {
		if err != nil || !strings.Contains(string(page), want) {
			t.Errorf("the HTML report does not say %q (%v)", want, err)
		}
	}
	t.Logf("table:\n%s", r.stdout)
}

// TestRegressionABIdentical: identical sides pass (the baseline from
// SESHAT_BASELINE).
func TestRegressionABIdentical(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	results := abRun(t, h, abBenchmark(t, h, 4, 1, 1))
	r := runSeshat(t, map[string]string{"SESHAT_BASELINE": "side=base"}, "regression", "--results-dir", results, "--kpi-filter", "rate_gflops",
		"--report-dir", filepath.Join(h.dir, "report"))
	if r.code != 0 || !strings.Contains(r.stdout, "baseline") {
		t.Fatalf("exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRegressionABBadBaseline: a key or value not in the results exits 4
// listing what there is; a baseline without a complete run exits 3.
func TestRegressionABBadBaseline(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	results := abRun(t, h, abBenchmark(t, h, 2, 1, 1))
	for _, c := range []struct{ baseline, want string }{
		{"side=main", "the values of side are: base, head"},
		{"branch=base", "no current run has the label branch; labels and settings with several values: side (base, head)"},
		{"side", "want KEY=VALUE"},
	} {
		r := runSeshat(t, nil, "regression", "--results-dir", results, "--baseline", c.baseline, "--report-dir", filepath.Join(h.dir, "report"))
		if r.code != 4 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--baseline %s: exit %d, want 4 saying %q:\n%s", c.baseline, r.code, c.want, r.stderr)
		}
	}
	// The runs of one side left incomplete (no exit_code): exit 3, for
	// the baseline as for the other side.
	incomplete := func(side string) {
		t.Helper()
		n := 0
		for _, d := range runDirsOf(t, results) {
			if strings.Contains(d, "side="+side) {
				if err := os.Remove(filepath.Join(results, d, "exit_code")); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no run directory of side=%s", side)
		}
	}
	incomplete("head")
	r := runSeshat(t, nil, "regression", "--results-dir", results, "--no-cache", "--baseline", "side=base", "--report-dir", filepath.Join(h.dir, "report"))
	if r.code != 3 || !strings.Contains(r.stderr, "no complete run with a KPI value for side=head") {
		t.Errorf("incomplete head: exit %d, want 3:\n%s", r.code, r.stderr)
	}
	// Every output says what the exit status says (the table's last line
	// said "PASSED (exit 0)" while seshat exited 3).
	if want := "NO DATA (exit 3): --baseline side=base: no complete run with a KPI value for side=head"; !strings.Contains(r.stdout, want) {
		t.Errorf("incomplete head: stdout lacks %q:\n%s", want, r.stdout)
	}
	if md, err := os.ReadFile(filepath.Join(h.dir, "report", "summary.md")); err != nil || !strings.Contains(string(md), "NO DATA (exit 3)") {
		t.Errorf("incomplete head: summary.md does not say NO DATA (exit 3) (%v):\n%s", err, md)
	}
	incomplete("base")
	r = runSeshat(t, nil, "regression", "--results-dir", results, "--no-cache", "--baseline", "side=base", "--report-dir", filepath.Join(h.dir, "report"))
	if r.code != 3 || !strings.Contains(r.stderr, "the baseline has no complete run") {
		t.Errorf("incomplete baseline: exit %d, want 3:\n%s", r.code, r.stderr)
	}
}

// TestRunABInterleaved: the rounds of the two sides of an A/B setting
// alternate their order (base head, head base, base head), as the run
// directories' numbers and start times say.
func TestRunABInterleaved(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	results := abRun(t, h, abBenchmark(t, h, 3, 1, 1))
	dirs := runDirsOf(t, results)
	want := []string{"pr/000__side=base_repeat=0", "pr/001__side=head_repeat=0", "pr/002__side=head_repeat=1",
		"pr/003__side=base_repeat=1", "pr/004__side=base_repeat=2", "pr/005__side=head_repeat=2"}
	if strings.Join(dirs, " ") != strings.Join(want, " ") {
		t.Fatalf("run directories %v, want %v", dirs, want)
	}
	var last time.Time
	for _, d := range dirs {
		var u models.Usage
		data, err := os.ReadFile(filepath.Join(results, d, "usage.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &u); err != nil {
			t.Fatal(err)
		}
		if u.Start.Before(last) {
			t.Errorf("%s started at %s, before the run numbered before it (%s)", d, u.Start, last)
		}
		last = u.Start
	}
}

// TestRegressionABConfirmAuto: an A/B too noisy to judge is measured again,
// both sides each round, one run of each in turn and in alternating order
// (base head, head base, ...), until the round cap; the report says how
// many rounds each result took.
func TestRegressionABConfirmAuto(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	// Runs 25% apart; a change must be 1,000% to count, so that no round
	// can decide it by chance: the two rounds are always made.
	bench := abNoisyBenchmark(t, h, 2, 1, 1, 0.25)
	results := abRun(t, h, bench)
	report := filepath.Join(h.dir, "report")
	r := runSeshat(t, map[string]string{"SESHAT_STORE": ""}, "regression", "--results-dir", results, "--baseline", "side=base",
		"--kpi-filter", "rate_gflops", "--report-dir", report, "--benchmark", bench, "--confirm", "auto", "--max-rounds", "2", "--min-effect", "1000")
	if r.code != 0 || !strings.Contains(r.stderr, "--confirm auto: round 2: re-running 2 point(s)") {
		t.Fatalf("exit %d, want 0 after 2 rounds of both sides:\n%s%s", r.code, r.stdout, r.stderr)
	}
	dirs := runDirsOf(t, results)
	want := []string{"pr/000__side=base_repeat=0", "pr/001__side=head_repeat=0", "pr/002__side=head_repeat=1", "pr/003__side=base_repeat=1",
		// round 1, then round 2: one run of each side in turn, alternating
		"pr/004__side=base_repeat=2", "pr/005__side=head_repeat=2", "pr/006__side=head_repeat=3", "pr/007__side=base_repeat=3",
		"pr/008__side=base_repeat=4", "pr/009__side=head_repeat=4", "pr/010__side=head_repeat=5", "pr/011__side=base_repeat=5"}
	if strings.Join(dirs, " ") != strings.Join(want, " ") {
		t.Fatalf("run directories %v, want %v", dirs, want)
	}
	var rep struct {
		Confirm struct {
			Auto      bool
			Rounds    int
			Stopped   string
			Undecided []struct{ Entry string }
		}
		NoisyResults []struct {
			ConfirmRounds int `json:"confirm_rounds"`
		} `json:"noisy_results"`
	}
	data, err := os.ReadFile(filepath.Join(report, "regression_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Confirm.Auto || rep.Confirm.Rounds != 2 || rep.Confirm.Stopped != "max-rounds" || len(rep.Confirm.Undecided) != 1 {
		t.Errorf("confirm: %+v, want 2 rounds stopped by the cap with head undecided\n%s", rep.Confirm, r.stdout)
	}
	if len(rep.NoisyResults) != 1 || rep.NoisyResults[0].ConfirmRounds != 2 {
		t.Errorf("noisy results %+v, want head's, after 2 rounds", rep.NoisyResults)
	}
}

// TestRegressionVaryingSettingIsASeries: a setting that varies across the
// matrix but is no label of the runs (side, read only by the command) is
// never merged: without --baseline each value is an entry of its own, with
// a note that says so, and the stored builds, which lack it, are not their
// history (so no result has history: exit 3).
func TestRegressionVaryingSettingIsASeries(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	results := abRun(t, h, abBenchmark(t, h, 2, 1, 0.5))
	if r := runSeshat(t, nil, "upload", "-q", "--results-dir", results, "--store", h.store); r.code != 0 {
		t.Fatalf("upload: exit %d: %s", r.code, r.stderr)
	}
	report := filepath.Join(h.dir, "report")
	r := runSeshat(t, nil, "regression", "--results-dir", results, "--history", h.store, "--kpi-filter", "rate_gflops", "--report-dir", report)
	// No stored build carries side: no result has history (exit 3).
	if r.code != 3 || !strings.Contains(r.stderr, "setting side (base, head) varies across the matrix of workload pi") {
		t.Fatalf("exit %d, want 3 (no history) with a note on side:\n%s%s", r.code, r.stdout, r.stderr)
	}
	s := summary(t, report)
	if s["entries"].(float64) != 2 || s["no_history"].(float64) != 2 {
		t.Errorf("summary %v, want 2 entries (side=base, side=head) without history", s)
	}
	for _, side := range []string{"side=base", "side=head"} {
		if !strings.Contains(r.stdout, side) {
			t.Errorf("the table has no entry %s:\n%s", side, r.stdout)
		}
	}
}

// TestRunRelativeCommand: a relative command path in a benchmark file
// (the A/B recipe's ab/{side}/bench) is taken from the directory seshat
// run was started in, not from the run directory the command runs in.
func TestRunRelativeCommand(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := filepath.Join(h.dir, "rel.yaml")
	// This test runs in cmd/seshat: the stand-in PI is two levels up.
	h.write(t, bench, "extra_settings: [device]\nexpe:\n  rel:\n    pi: exec\n    device: cpu\n    where: testdata\n    command: [\"../../{where}/pi/fake-rate.sh\"]\n")
	results := filepath.Join(h.dir, "results")
	r := runSeshat(t, nil, "run", "-q", "--benchmark", bench, "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("run: exit %d, want 0: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(results, "rel", "000__run", "pi.json")); err != nil {
		t.Errorf("no pi.json from the relative command: %v (runs %v)", err, runDirsOf(t, results))
	}
}

// TestRegressionABConfirmAutoDecided: an A/B regression is decided by its
// interval, both sides measured in one job: --confirm auto re-runs nothing
// for it (in history mode a failing finding is re-run once to confirm it).
func TestRegressionABConfirmAutoDecided(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := abBenchmark(t, h, 4, 1, 0.8)
	results := abRun(t, h, bench)
	r := runSeshat(t, map[string]string{"SESHAT_STORE": ""}, "regression", "--results-dir", results, "--baseline", "side=base",
		"--kpi-filter", "rate_gflops", "--report-dir", filepath.Join(h.dir, "report"), "--benchmark", bench, "--confirm", "auto")
	if r.code != 2 || !strings.Contains(r.stderr, "--confirm auto: every result is decided, nothing re-run") {
		t.Fatalf("exit %d, want 2 with nothing re-run:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if dirs := runDirsOf(t, results); len(dirs) != 8 {
		t.Errorf("%d run directories, want the 8 of the run: %v", len(dirs), dirs)
	}
}
