package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/runner/host"
)

// TestRegressionConfirmAutoDecides: --confirm auto stops as soon as every
// result is decided. A one-off slow phase of the host over four of the
// five runs of the night is cleared by the first round (4 slow runs of
// 10; a regression or, its runs disagreeing, a suspect before), a real
// drop of the code confirmed by it; each result tells the
// rounds it needed. (A slow phase over all five runs would leave them split
// half and half after one round: a suspect, or ok when the split is not
// significant, by chance; TestRegressionConfirmAutoBudget adds rounds.)
func TestRegressionConfirmAutoDecides(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := h.benchmark(t, 0.01)
	h.stableHistory(t)
	auto := func(results, report string) result {
		return h.seshat(t, "regression", "--results-dir", results, "--history", h.store,
			"--report-dir", filepath.Join(h.dir, report), "--confirm", "auto", "--benchmark", bench, "--kpi-filter", "rate_gflops")
	}

	h.slowPhase(t, 4)
	slow := h.night(t, bench, "night4", false)
	r := auto(slow, "r1")
	if r.code != 0 || !strings.Contains(r.stderr, "0 finding(s) confirmed, 1 cleared, 0 undecided after 1 round(s) (every result decided) by 5 more run(s)") {
		t.Fatalf("slow phase: exit %d, want 0 with the finding cleared after one round:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(unwrapped(r.stdout), "cleared by re-running (1 round(s)): ") {
		t.Errorf("the table does not say what was cleared in how many rounds:\n%s", r.stdout)
	}
	if got := len(runDirsOf(t, slow)); got != 10 {
		t.Errorf("%d run directories after one round, want 5 + 5", got)
	}
	conf := summary(t, filepath.Join(h.dir, "r1"))["confirm"].(map[string]any)
	if conf["auto"] != true || conf["rounds"].(float64) != 1 || conf["stopped"] != "decided" || conf["runs"].(float64) != 5 ||
		len(conf["cleared"].([]any)) != 1 || conf["cleared"].([]any)[0].(map[string]any)["rounds"].(float64) != 1 {
		t.Errorf("summary confirm: %v", conf)
	}

	h.setSpeed(t, 0.8)
	drop := h.night(t, bench, "night5", false)
	r = auto(drop, "r2")
	if r.code != 2 || !strings.Contains(r.stderr, "1 finding(s) confirmed, 0 cleared, 0 undecided after 1 round(s)") {
		t.Fatalf("real drop: exit %d, want 2 with the finding confirmed after one round:\n%s%s", r.code, r.stdout, r.stderr)
	}
	findings := summary(t, filepath.Join(h.dir, "r2"))["findings"].([]any)
	if len(findings) != 1 || findings[0].(map[string]any)["confirm_rounds"].(float64) != 1 {
		t.Errorf("findings: %v, want one with confirm_rounds 1", findings)
	}
}

// smallBatches writes a benchmark of two runs per point: too few for
// mannwhitney to ever reach p < 0.05 against two runs of history (noisy,
// "too few runs to judge") until the current build has 8 runs.
func (h *fakeHost) smallBatches(t *testing.T) string {
	t.Helper()
	script := fakeRate(t)
	path := filepath.Join(h.dir, "benchmark-2.yaml")
	h.write(t, path, fmt.Sprintf("extra_settings: [device]\nexpe:\n  nightly:\n    pi: exec\n    device: cpu\n    repeat: 2\n    command: [awk, -f, %q, %q, %q, \"0.01\"]\n",
		script, h.speed, h.slow))
	return path
}

// TestRegressionConfirmAutoBudget: --confirm auto adds rounds while a
// result is noisy for want of runs, and stops on the round cap or the
// budget with the result still undecided (and not failing).
func TestRegressionConfirmAutoBudget(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := h.smallBatches(t)
	h.history(t, bench)
	auto := func(night, report string, more ...string) (result, string) {
		results := h.night(t, bench, night, false)
		args := append([]string{"regression", "--results-dir", results, "--history", h.store, "--method", "mannwhitney",
			"--report-dir", filepath.Join(h.dir, report), "--confirm", "auto", "--benchmark", bench, "--kpi-filter", "rate_gflops"}, more...)
		return h.seshat(t, args...), results
	}

	// 2 + 2 + 2 + 2 runs against 2: decided in the third round.
	r, results := auto("night4", "r1")
	if r.code != 0 || !strings.Contains(r.stderr, "0 undecided after 3 round(s) (every result decided) by 6 more run(s)") {
		t.Fatalf("exit %d, want 0 with the result decided after 3 rounds:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := len(runDirsOf(t, results)); got != 8 {
		t.Errorf("%d run directories, want 2 + 3 x 2", got)
	}

	for _, c := range []struct {
		flags   []string
		stopped string
		text    string
	}{
		{[]string{"--max-rounds", "2"}, "max-rounds", "1 undecided after 2 round(s) (round cap of 2 reached)"},
		// The first round always runs; none fits after it in 1ms.
		{[]string{"--budget", "1ms"}, "budget", "1 undecided after 1 round(s) (budget of 1ms spent)"},
	} {
		r, _ := auto("night-"+c.stopped, "r-"+c.stopped, c.flags...)
		if r.code != 0 || !strings.Contains(r.stderr, c.text) {
			t.Errorf("%v: exit %d, want 0 and %q:\n%s%s", c.flags, r.code, c.text, r.stdout, r.stderr)
			continue
		}
		if !strings.Contains(unwrapped(r.stdout), "still undecided by re-running") {
			t.Errorf("%v: the table does not say the result is undecided:\n%s", c.flags, r.stdout)
		}
		conf := summary(t, filepath.Join(h.dir, "r-"+c.stopped))["confirm"].(map[string]any)
		if conf["stopped"] != c.stopped || len(conf["undecided"].([]any)) != 1 {
			t.Errorf("%v: summary confirm: %v", c.flags, conf)
		}
	}
}

// TestRegressionConfirmInterrupted: a confirm interrupted mid-round takes
// back the run directory it left incomplete: a later analysis counts the
// same runs as before it.
func TestRegressionConfirmInterrupted(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench, hang, started, cur, analyse := h.hangingNight(t)
	h.write(t, hang, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- execute(&process{ctx: ctx, getenv: func(string) (string, bool) { return "", false }, environ: os.Environ(),
			stdin: &bytes.Buffer{}, stdout: &stdout, stderr: &stderr, host: host.Host{},
			args: []string{"regression", "--results-dir", cur, "--history", h.store, "--report-dir", filepath.Join(h.dir, "confirm"),
				"--confirm", "auto", "--benchmark", bench, "--kpi-filter", "rate_gflops"}})
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the re-run never started:\n%s", stderr.String())
		}
	}
	cancel()
	if code := <-done; code == 0 {
		t.Fatalf("interrupted confirm: exit 0:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "removed 1 incomplete run director(ies)") {
		t.Errorf("stderr does not say the incomplete run was removed:\n%s", stderr.String())
	}
	if got := runDirsOf(t, cur); len(got) != 5 {
		t.Errorf("run directories after the interrupted confirm: %v, want the 5 of the night", got)
	}
	r := analyse("after")
	if r.code != h.before {
		t.Fatalf("after: exit %d, want %d as before:\n%s%s", r.code, h.before, r.stdout, r.stderr)
	}
	if s := summary(t, filepath.Join(h.dir, "after")); s["not_analyzed"].(float64) != 0 || s["entries"].(float64) != 1 {
		t.Errorf("after the interrupted confirm, the analysis counts other runs: %v", s)
	}
}

// hangingNight makes the history and a night of five runs, the night in
// a slow phase of the host, of a benchmark whose runs, while the file hang
// exists, touch the file started and wait. analyse runs the analysis
// (without --confirm) into a report directory: a regression.
func (h *fakeHost) hangingNight(t *testing.T) (bench, hang, started, night string, analyse func(report string) result) {
	t.Helper()
	script := fakeRate(t)
	hang, started = filepath.Join(h.dir, "hang"), filepath.Join(h.dir, "started")
	bench = filepath.Join(h.dir, "benchmark-hang.yaml")
	h.write(t, bench, fmt.Sprintf("extra_settings: [device]\nexpe:\n  nightly:\n    pi: exec\n    device: cpu\n    repeat: 5\n"+
		"    command: [sh, -c, 'if [ -f \"$0\" ]; then touch \"$1\"; sleep 60; fi; exec awk -f \"$2\" \"$3\" \"$4\" 0.01', %q, %q, %q, %q, %q]\n",
		hang, started, script, h.speed, h.slow))
	h.stableHistory(t)
	h.slowPhase(t, 5)
	night = h.night(t, bench, "night4", false)
	analyse = func(report string) result {
		return h.seshat(t, "regression", "--results-dir", night, "--history", h.store,
			"--report-dir", filepath.Join(h.dir, report), "--kpi-filter", "rate_gflops")
	}
	// A regression, or a suspect when the three nights of history happen
	// to vary more than their runs predict (their noise is drawn afresh
	// each run): --confirm re-runs both.
	r := analyse("before")
	if r.code != 2 && (r.code != 0 || len(kpiRows(r.stdout, "rate_gflops")) != 1 || !strings.Contains(kpiRows(r.stdout, "rate_gflops")[0], " suspect ")) {
		t.Fatalf("before: exit %d, want 2 or a suspect:\n%s%s", r.code, r.stdout, r.stderr)
	}
	h.before = r.code
	return bench, hang, started, night, analyse
}

// TestRegressionConfirmKilled: a --confirm is the one writer of its
// results directory while it re-runs (a second is refused, naming it); one
// killed (SIGKILL: no chance to take back its run directory) leaves an
// incomplete re-run, which the next --confirm removes before re-running,
// so that no @repeat is written twice and the analysis after it counts
// every run.
func TestRegressionConfirmKilled(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench, hang, started, cur, analyse := h.hangingNight(t)
	h.write(t, hang, 1)
	args := []string{"regression", "--results-dir", cur, "--history", h.store, "--report-dir", filepath.Join(h.dir, "confirm"),
		"--confirm", "1", "--benchmark", bench, "--kpi-filter", "rate_gflops"}
	killed := startSeshatProcess(t, args...)
	waitUntil(t, "the re-run to start", func() bool { _, err := os.Stat(started); return err == nil || killed.exited() })
	// Meanwhile, a second --confirm would write the same results directory.
	busy := h.seshat(t, append(args[:len(args):len(args)], "--report-dir", filepath.Join(h.dir, "busy"))...)
	if want := fmt.Sprintf("is in use by seshat pid %d", killed.cmd.Process.Pid); busy.code != 1 || !strings.Contains(busy.stderr, want) {
		t.Errorf("a --confirm beside a running one: exit %d, want 1 and %q:\n%s", busy.code, want, busy.stderr)
	}
	killed.cmd.Process.Signal(syscall.SIGKILL)
	<-killed.done
	if got := runDirsOf(t, cur); len(got) != 6 {
		t.Fatalf("run directories after the killed confirm: %v, want the 5 of the night and an incomplete re-run", got)
	}

	if err := os.Remove(hang); err != nil {
		t.Fatal(err)
	}
	r := h.seshat(t, args...)
	if r.code == 1 || r.code == 4 {
		t.Fatalf("confirm after the killed one: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "removed 1 incomplete re-run director(ies) an earlier --confirm left") {
		t.Errorf("stderr does not say the killed confirm's run was removed:\n%s", r.stderr)
	}
	repeats := map[string]string{}
	for _, d := range runDirsOf(t, cur) {
		data, err := os.ReadFile(filepath.Join(cur, d, "settings.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := yaml.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		rep := fmt.Sprint(s["@repeat"])
		if other, dup := repeats[rep]; dup {
			t.Errorf("@repeat %s written twice: %s and %s", rep, other, d)
		}
		repeats[rep] = d
	}
	if len(repeats) != 10 {
		t.Errorf("runs %v, want the 5 of the night and 5 re-runs", repeats)
	}
	r = analyse("after")
	if s := summary(t, filepath.Join(h.dir, "after")); s["not_analyzed"].(float64) != 0 {
		t.Errorf("after the confirms, the analysis does not count every run: %v", s)
	}
}

// TestRegressionConfirmBadInput: --confirm is auto or a whole number of
// rounds, --budget a time above 0, --max-rounds 1 or more: else exit 4,
// naming the flag, before anything is read.
func TestRegressionConfirmBadInput(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		args []string
		flag string
	}{
		{nil, []string{"--confirm", "maybe"}, "--confirm"},
		{nil, []string{"--confirm", "-1"}, "--confirm"},
		{nil, []string{"--confirm", "1.5"}, "--confirm"},
		{map[string]string{"SESHAT_CONFIRM": "sometimes"}, nil, "--confirm"},
		{nil, []string{"--confirm", "auto", "--budget", "0"}, "--budget"},
		{nil, []string{"--confirm", "auto", "--budget", "-5m"}, "--budget"},
		{nil, []string{"--confirm", "auto", "--budget", "10"}, "--budget"},
		{nil, []string{"--confirm", "auto", "--max-rounds", "0"}, "--max-rounds"},
	} {
		r := runSeshat(t, c.env, append([]string{"regression", "--results-dir", results}, c.args...)...)
		if r.code != 4 || !strings.Contains(r.stderr, c.flag) {
			t.Errorf("%v %v: exit %d, want 4 naming %s: %s", c.env, c.args, r.code, c.flag, r.stderr)
		}
	}
}
