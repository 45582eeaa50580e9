// Command realhost measures, on this machine and under its own background
// load, how often `seshat regression` catches a real slowdown and how often
// it fails identical code, in its two modes:
//
//   - history: one `seshat run` of the current build, judged against the
//     builds of identical code stored before it (`--history`), with
//     `--confirm auto` re-running what stays undecided;
//   - A/B: one `seshat run` of the base and the head side interleaved, the
//     head judged against the base (`--baseline side=base`), with
//     `--confirm auto` adding rounds of both sides while undecided.
//
// Each job runs three real workloads through the exec PI, each timing its
// own loop (bench/realhost/work.py and bench/realhost/gemm): numpy's float32
// matmul on one BLAS thread, the gonum matmul PI's kernel on one thread, and
// a single-threaded numpy mix of sort, FFT, cumsum and exp/log. A planted
// slowdown of s% is real extra work in the timed loop, as a change of the
// code would make it: units*s/100 more iterations per sample with the same
// parameters (units 20: 5% is 1 more, 10% 2, 20% 4), never a scaled
// number. Every job of every slowdown (0: identical code) and mode is run
// in turn, job 1 of each, then job 2 of each, so that the host's slow
// phases fall on all of them alike.
//
// With -busy N the host's load changes as a shared runner's does: jobs
// N+1 to 2N, 3N+1 to 4N... run beside one busy loop per CPU (a shell
// spinning, as a colleague's build would), the history stored without;
// the table then gives each phase its own row, and counts the results
// `seshat regression` made noisy because the host was busier than when
// the history was stored (host-noisy).
//
// It prints per mode and slowdown the jobs that failed (exit 2) with the
// slowed KPI among the findings (catch rate) or, for identical code, at
// all (false failures), the points caught, the jobs that neither passed
// nor failed, the re-run rounds and the median time of a job against one
// plain build of the same points (a history job's `seshat run`).
//
//	go run ./bench/realhost [-jobs 50] [-slowdowns 0,5,10,20] [-modes ab,history] [-repeat 5] [-history 12] [-nightly N] [-busy N] [-v]
//
// It takes about 25 s a job on 2 shared cores (bench/realhost.sh).
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/analyze"
)

// workload is one of the three real workloads of a job.
type workload struct {
	name string
	// command runs it with extra iterations per timed sample.
	command func(c config, extra int) []string
}

type config struct {
	tmp, python, root      string
	units, reps, warmup    int
	repeat, historyBuilds  int
	jobs                   int
	slowdowns              []int
	modes                  []string
	verbose, keep, noBuild bool
	// busy: jobs busy+1..2*busy, 3*busy+1..4*busy... run beside one
	// busy loop per CPU (0: never).
	busy int
	// nightly: with N > 0, one more build of identical code is stored in
	// the history after every N job rounds (0: the history is stored
	// before the jobs only).
	nightly int
}

var workloads = []workload{
	{"numpy_matmul", func(c config, extra int) []string {
		return []string{c.python, filepath.Join(c.root, "bench/realhost/work.py"), "--op", "matmul", "--n", "256", "--threads", "1",
			"--units", strconv.Itoa(c.units), "--extra", strconv.Itoa(extra), "--repetitions", strconv.Itoa(c.reps), "--warmup", strconv.Itoa(c.warmup)}
	}},
	{"gonum_matmul", func(c config, extra int) []string {
		return []string{filepath.Join(c.tmp, "gemm"), "-n", "128", "-threads", "1",
			"-units", strconv.Itoa(c.units), "-extra", strconv.Itoa(extra), "-repetitions", strconv.Itoa(c.reps), "-warmup", strconv.Itoa(c.warmup)}
	}},
	{"numpy_mix", func(c config, extra int) []string {
		return []string{c.python, filepath.Join(c.root, "bench/realhost/work.py"), "--op", "mix",
			"--units", strconv.Itoa(c.units), "--extra", strconv.Itoa(extra), "--repetitions", strconv.Itoa(c.reps), "--warmup", strconv.Itoa(c.warmup)}
	}},
}

// kpi is the KPI the planted slowdown moves: the median milliseconds of a
// timed sample.
const kpi = "elapsed_ms"

// job is what one job did.
type job struct {
	Mode     string        `json:"mode"`
	Slowdown int           `json:"slowdown_percent"`
	N        int           `json:"job"`
	Exit     int           `json:"exit"`
	Caught   []string      `json:"caught"`   // workloads whose slowed KPI failed as a regression
	Findings []string      `json:"findings"` // every failing finding: workload/KPI status
	Rounds   int           `json:"confirm_rounds"`
	Undecid  int           `json:"undecided"`
	Run      time.Duration `json:"run_ns"`
	Total    time.Duration `json:"total_ns"`
	Load     string        `json:"load"`
	// Busy tells that the job ran beside the -busy loops; HostNoisy
	// counts its results made noisy because the host was busier (or
	// quieter) than when the history was stored.
	Busy      bool `json:"busy,omitempty"`
	HostNoisy int  `json:"host_noisy"`
}

func main() {
	var c config
	var slowdowns, modes, out string
	flag.IntVar(&c.jobs, "jobs", 50, "jobs per mode and slowdown")
	flag.StringVar(&slowdowns, "slowdowns", "0,5,10,20", "planted slowdowns in percent (0: identical code)")
	flag.StringVar(&modes, "modes", "ab,history", "modes: ab, history")
	flag.IntVar(&c.repeat, "repeat", 5, "runs of each point (and side) in a job")
	flag.IntVar(&c.historyBuilds, "history", 12, "builds of identical code stored before the history jobs")
	flag.IntVar(&c.units, "units", 20, "iterations per timed sample of the base code")
	flag.IntVar(&c.reps, "repetitions", 10, "timed samples per run")
	flag.IntVar(&c.warmup, "warmup", 2, "untimed samples first")
	flag.StringVar(&c.python, "python", "/usr/bin/python3", "interpreter with numpy")
	flag.StringVar(&out, "out", "", "also write every job as JSON to this file")
	flag.BoolVar(&c.verbose, "v", false, "print each job")
	flag.BoolVar(&c.keep, "keep", false, "keep the runs (printed at the end)")
	flag.IntVar(&c.nightly, "nightly", 0, "with N > 0, store one more build of identical code in the history after every N jobs of each mode and slowdown, as a nightly build of the main branch is (0: the history is stored before the jobs only)")
	flag.IntVar(&c.busy, "busy", 0, "with N > 0, jobs N+1..2N, 3N+1..4N... run beside one busy loop per CPU, the history stored without")
	flag.Parse()
	var err error
	if c.slowdowns, err = ints(slowdowns); err != nil {
		fatal(fmt.Errorf("-slowdowns: %w", err))
	}
	c.modes = strings.Split(modes, ",")
	for _, m := range c.modes {
		if m != "ab" && m != "history" {
			fatal(fmt.Errorf("-modes: %q is neither ab nor history", m))
		}
	}
	if c.jobs < 1 || c.repeat < 2 || c.units < 1 {
		fatal(errors.New("-jobs >= 1, -repeat >= 2 and -units >= 1"))
	}
	if c.root, err = os.Getwd(); err != nil {
		fatal(err)
	}
	if c.tmp, err = os.MkdirTemp("", "realhost."); err != nil {
		fatal(err)
	}
	jobs, err := measure(c, os.Stderr)
	if c.keep || err != nil {
		fmt.Fprintln(os.Stderr, "realhost: runs kept in", c.tmp)
	} else {
		os.RemoveAll(c.tmp)
	}
	if err != nil {
		fatal(err)
	}
	if out != "" {
		data, _ := json.MarshalIndent(jobs, "", "  ")
		if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
			fatal(err)
		}
	}
	table(os.Stdout, c, jobs)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "realhost:", err)
	os.Exit(1)
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a percentage >= 0", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// measure builds the binaries, stores the history and runs every job.
func measure(c config, log io.Writer) ([]job, error) {
	for _, b := range [][2]string{{"seshat", "./cmd/seshat"}, {"gemm", "./bench/realhost/gemm"}} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(c.tmp, b[0]), b[1]).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %w\n%s", b[1], err, out)
		}
	}
	if err := exec.Command(c.python, "-c", "import numpy").Run(); err != nil {
		return nil, fmt.Errorf("%s cannot import numpy: %w", c.python, err)
	}
	start := time.Now()
	history := slices.Contains(c.modes, "history")
	if history {
		fmt.Fprintf(log, "realhost: storing %d builds of identical code\n", c.historyBuilds)
		for b := 1; b <= c.historyBuilds; b++ {
			if err := storeHistoryBuild(c, b, log); err != nil {
				return nil, err
			}
		}
	}
	var jobs []job
	var hog *busyLoops
	defer func() { hog.stop() }()
	for n := 1; n <= c.jobs; n++ {
		busy := c.busy > 0 && ((n-1)/c.busy)%2 == 1
		switch {
		case busy && hog == nil:
			hog = startBusyLoops(runtime.NumCPU())
		case !busy && hog != nil:
			hog.stop()
			hog = nil
		}
		for _, s := range c.slowdowns {
			for _, m := range c.modes {
				j, err := runJob(c, m, s, n)
				j.Busy = busy
				if err != nil {
					return jobs, err
				}
				jobs = append(jobs, j)
				if c.verbose {
					fmt.Fprintf(log, "realhost: %-7s %2d%% job %2d: exit %d caught %v findings %v rounds %d: %s (load %s; %s in all)\n",
						m, s, n, j.Exit, j.Caught, j.Findings, j.Rounds, j.Total.Round(time.Second), j.Load, time.Since(start).Round(time.Second))
				}
			}
		}
		if history && c.nightly > 0 && n%c.nightly == 0 && n < c.jobs {
			if err := storeHistoryBuild(c, c.historyBuilds+n/c.nightly, log); err != nil {
				return jobs, err
			}
		}
		if !c.verbose {
			fmt.Fprintf(log, "realhost: job %d of %d of each mode and slowdown done (%s, load %s)\n", n, c.jobs, time.Since(start).Round(time.Second), load())
		}
	}
	return jobs, nil
}

// storeHistoryBuild runs build b of identical code and stores it in the
// history, as a CI job stores each build of the main branch.
func storeHistoryBuild(c config, b int, log io.Writer) error {
	dir := filepath.Join(c.tmp, "history", fmt.Sprintf("build-%02d", b))
	if err := writeCode(c, "current", 0); err != nil {
		return err
	}
	bench, err := writeBenchmark(c, dir, false)
	if err != nil {
		return err
	}
	id := fmt.Sprintf("history-%02d", b)
	if _, err := seshat(c, "run", "-q", "--benchmark", bench, "--results-dir", filepath.Join(dir, "results"), "--build-id", id); err != nil {
		fmt.Fprintf(log, "realhost: %s: %v (its failed runs are left out)\n", id, err)
	}
	if _, err := seshat(c, "upload", "-q", "--results-dir", filepath.Join(dir, "results"), "--store", store(c)); err != nil {
		return fmt.Errorf("upload %s: %w", id, err)
	}
	return nil
}

func store(c config) string { return "sqlite:" + filepath.Join(c.tmp, "history", "lts.db") }

// runJob runs one job: a build of the code slowed by s percent, judged.
func runJob(c config, mode string, s, n int) (job, error) {
	j := job{Mode: mode, Slowdown: s, N: n}
	dir := filepath.Join(c.tmp, mode, fmt.Sprintf("slow%02d-job%03d", s, n))
	extra := (c.units*s + 50) / 100
	ab := mode == "ab"
	sides := map[string]int{"current": extra}
	if ab {
		sides = map[string]int{"base": 0, "head": extra}
	}
	for side, e := range sides {
		if err := writeCode(c, side, e); err != nil {
			return j, err
		}
	}
	bench, err := writeBenchmark(c, dir, ab)
	if err != nil {
		return j, err
	}
	results := filepath.Join(dir, "results")
	t0 := time.Now()
	if _, err := seshat(c, "run", "-q", "--benchmark", bench, "--results-dir", results, "--build-id", fmt.Sprintf("%s-%d-%d", mode, s, n)); err != nil {
		j.Findings = append(j.Findings, "run: "+err.Error())
	}
	j.Run = time.Since(t0)
	args := []string{"regression", "-q", "--results-dir", results, "--benchmark", bench, "--confirm", "auto", "--report-dir", filepath.Join(dir, "report")}
	if ab {
		args = append(args, "--baseline", "side=base")
	} else {
		args = append(args, "--history", store(c))
	}
	j.Exit, err = seshat(c, args...)
	j.Total = time.Since(t0)
	j.Load = load()
	if err != nil && j.Exit != 2 {
		j.Findings = append(j.Findings, "regression: "+err.Error())
	}
	return j, readSummary(filepath.Join(dir, "report", "regression_summary.json"), &j)
}

// readSummary reads the findings of a job's regression_summary.json.
func readSummary(path string, j *job) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // the job's error says why
		}
		return err
	}
	var s struct {
		Noisy []struct {
			Reason string `json:"reason"`
		} `json:"noisy_results"`
		Findings []struct {
			KPI     string            `json:"kpi"`
			Status  string            `json:"status"`
			Failing bool              `json:"failing"`
			Labels  map[string]string `json:"labels"`
		} `json:"findings"`
		Confirm *struct {
			Rounds    int               `json:"rounds"`
			Undecided []json.RawMessage `json:"undecided"`
		} `json:"confirm"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if s.Confirm != nil {
		j.Rounds, j.Undecid = s.Confirm.Rounds, len(s.Confirm.Undecided)
	}
	for _, n := range s.Noisy {
		if strings.HasPrefix(n.Reason, analyze.HostReason) {
			j.HostNoisy++
		}
	}
	for _, f := range s.Findings {
		if !f.Failing {
			continue
		}
		w := workloadOf(f.Labels)
		j.Findings = append(j.Findings, w+"/"+f.KPI+" "+f.Status)
		if f.KPI == kpi && f.Status == "regression" && !slices.Contains(j.Caught, w) {
			j.Caught = append(j.Caught, w)
		}
	}
	return nil
}

// workloadOf names the workload of a finding by the labels its pi.json
// gives (the exec PI's runs carry no experiment name).
func workloadOf(labels map[string]string) string {
	switch {
	case labels["backend"] == "gonum":
		return "gonum_matmul"
	case labels["dtype"] == "float64":
		return "numpy_mix"
	case labels["backend"] == "numpy":
		return "numpy_matmul"
	}
	return fmt.Sprint(labels)
}

// writeCode writes the code of one side: a script per workload running it
// with extra iterations. The scripts' paths stay the same from job to job
// (the benchmark's command, a label of the runs, does not change).
func writeCode(c config, side string, extra int) error {
	dir := filepath.Join(c.tmp, "code", side)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, w := range workloads {
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec")
		for _, a := range w.command(c, extra) {
			b.WriteString(" '" + a + "'")
		}
		b.WriteString("\n")
		if err := os.WriteFile(filepath.Join(dir, w.name+".sh"), []byte(b.String()), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writeBenchmark writes a job's benchmark file: the three workloads, with
// the setting side (base, head) in an A/B job.
func writeBenchmark(c config, dir string, ab bool) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# bench/realhost\nextra_settings: [device]\ncommon_settings:\n  pi: exec\n  device: cpu\n  repeat: %d\nexpe:\n", c.repeat)
	for _, w := range workloads {
		side := "current"
		fmt.Fprintf(&b, "  %s:\n", w.name)
		if ab {
			side = "{side}"
			b.WriteString("    side: [base, head]\n")
		}
		fmt.Fprintf(&b, "    command: [%q]\n", filepath.Join(c.tmp, "code", side, w.name+".sh"))
	}
	path := filepath.Join(dir, "benchmark.yaml")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// seshat runs the built seshat and returns its exit status; err carries
// the last line of its stderr when it is not 0.
func seshat(c config, args ...string) (int, error) {
	// seshat inherits this environment: every job names its store
	// (--history) or has none (A/B), whatever SESHAT_STORE says.
	cmd := exec.Command(filepath.Join(c.tmp, "seshat"), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		return ee.ExitCode(), fmt.Errorf("seshat %s: exit %d: %s", args[0], ee.ExitCode(), lines[len(lines)-1])
	}
	return 0, err
}

// busyLoops are processes that keep CPUs busy, as a colleague's build on
// a shared runner does.
type busyLoops struct{ cmds []*exec.Cmd }

func startBusyLoops(n int) *busyLoops {
	b := &busyLoops{}
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		dieWithParent(cmd)
		if err := cmd.Start(); err == nil {
			b.cmds = append(b.cmds, cmd)
		}
	}
	return b
}

func (b *busyLoops) stop() {
	if b == nil {
		return
	}
	for _, cmd := range b.cmds {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

func load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// table prints the rates per mode and slowdown.
func table(w io.Writer, c config, jobs []job) {
	var plain []time.Duration
	for _, j := range jobs {
		if j.Mode == "history" {
			plain = append(plain, j.Run)
		}
	}
	stored := "no history"
	if slices.Contains(c.modes, "history") {
		stored = fmt.Sprintf("%d build(s) of history", c.historyBuilds)
		if c.nightly > 0 {
			stored += fmt.Sprintf(" and one more after every %d job(s)", c.nightly)
		}
	}
	fmt.Fprintf(w, "bench/realhost: %d job(s) per mode and slowdown, 3 points (%s) × %d runs (a side), --confirm auto, %s\n",
		c.jobs, strings.Join(names(), ", "), c.repeat, stored)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tslowdown\thost\tjobs\tfailed\tcaught\tpoints caught\tother exits\tmean rounds\tundecided\thost-noisy\tmedian job\t× plain build\t")
	phases := []string{"as found"}
	if c.busy > 0 {
		phases = []string{"as found", "busy loops"}
	}
	for _, m := range c.modes {
		for _, s := range c.slowdowns {
			for _, phase := range phases {
				var n, failed, caught, points, other, rounds, undecided, hostNoisy int
				var times []time.Duration
				for _, j := range jobs {
					if j.Mode != m || j.Slowdown != s || j.Busy != (phase == "busy loops") {
						continue
					}
					n++
					hostNoisy += j.HostNoisy
					rounds += j.Rounds
					undecided += j.Undecid
					times = append(times, j.Total)
					switch {
					case j.Exit == 2:
						failed++
					case j.Exit != 0:
						other++
					}
					if j.Exit == 2 && len(j.Caught) > 0 {
						caught++
					}
					points += len(j.Caught)
				}
				if n == 0 {
					continue
				}
				caughtText := fmt.Sprintf("%d (%.0f%%)", caught, 100*float64(caught)/float64(n))
				if s == 0 {
					caughtText = "-"
				}
				ratio := "-"
				if p := median(plain); p > 0 {
					ratio = fmt.Sprintf("%.1f", float64(median(times))/float64(p))
				}
				fmt.Fprintf(tw, "%s\t%d%%\t%s\t%d\t%d (%.0f%%)\t%s\t%d/%d\t%d\t%.1f\t%d\t%d\t%s\t%s\t\n", m, s, phase, n, failed, 100*float64(failed)/float64(n),
					caughtText, points, 3*n, other, float64(rounds)/float64(n), undecided, hostNoisy, median(times).Round(time.Second), ratio)
			}
		}
	}
	tw.Flush()
	if len(plain) > 0 {
		fmt.Fprintf(w, "plain build (a history job's seshat run of the 3 points): median %s\n", median(plain).Round(100*time.Millisecond))
	}
}

func names() []string {
	var out []string
	for _, w := range workloads {
		out = append(out, w.name)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.SortFunc(s, cmp.Compare)
	return s[len(s)/2]
}
