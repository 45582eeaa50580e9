package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/store"
)

// ConfirmSetting marks the runs --confirm made: the round (1..N) that made
// them. Like @repeat it tells runs of one point apart without being a
// matrix variable.
const ConfirmSetting = "@confirm"

// suspectPoint is one matrix point behind suspect findings: the settings
// of its runs less the @ ones, its experiment, and what its runs were.
type suspectPoint struct {
	expe     string
	settings map[string]any
	runs     int // the runs of the point in the current results, re-runs left out
	repeat   int // the highest @repeat among them, -1 for none
	build    *models.Build
	config   string // a run's config.yaml, to find the benchmark file
	rerun    bool   // a run --confirm made (@confirm set)
}

// undecided tells whether re-running the current build's points can still
// decide a result: a suspect (a new level that nothing confirms yet), or a
// noisy result whose reason is the current runs themselves: too few of
// them (mannwhitney) or disagreeing (segment, a slow phase of the host).
// A noisy result for want of history, or for the build-to-build spread of
// the history (shift's standard error counts builds, not runs), is not:
// no re-run of the current build decides it.
func undecided(r *regression.KPIResult) bool {
	switch r.Status {
	case analyze.StatusSuspect:
		return true
	case analyze.StatusNoisy:
		return slices.ContainsFunc(rerunNoisyReasons, func(p string) bool { return strings.HasPrefix(r.Result.Reason, p) })
	}
	return false
}

// rerunNoisyReasons begin the reasons of the noisy results that more runs
// of the current build can decide (analyze/mannwhitney.go,
// analyze/segment.go, the gate's undecided changes; TestUndecidedReasons
// keeps them in step).
var rerunNoisyReasons = []string{"too few runs to judge", "the current runs disagree", abNoisyReason, analyze.UndecidedReason}

// abNoisyReason begins the reason of an A/B result whose interval is too
// wide (regression's explainNoisyAB): more rounds of both sides narrow it.
const abNoisyReason = "too noisy to judge: the interval of the change against the baseline"

// failingSuspects lists the results of rep that fail the analysis or are
// suspects (a build at a new level that nothing confirms yet), and with
// auto the noisy results re-runs can decide, by entry key and KPI: what
// --confirm re-runs. A change the method found that the false discovery
// rate leaves undecided is a suspect too: re-runs confirm or clear it.
func failingSuspects(rep *regression.Report, auto bool) map[string]*regression.Suspect {
	out := map[string]*regression.Suspect{}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			gated := r.Status == analyze.StatusNoisy && strings.HasPrefix(r.Result.Reason, analyze.UndecidedReason)
			if r.Failing || r.Status == analyze.StatusSuspect || gated || (auto && undecided(r)) {
				out[e.Key()+"\x00"+r.KPI] = &regression.Suspect{Entry: e.Name, KPI: r.KPI, Before: r.Status,
					DeltaBefore: finiteOr0(r.Result.DeltaPercent), RunsBefore: len(r.Current.Samples)}
			}
		}
	}
	return out
}

func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// rerun is what one call of confirmRuns did.
type rerun struct {
	points, runs, failed int
}

// confirmRuns re-runs the matrix points of the entries of rep that hold a
// result of targets (by entry key and KPI), rounds first..last, each round
// as many runs as the point had before --confirm, into the results
// directory (new run directories, the build of the runs they confirm). The
// caller judges the results again. The run directories it adds are
// complete or removed: when the runs are interrupted or the runner fails,
// those left without exit_code are deleted, so that no later analysis
// counts a half run.
func confirmRuns(ctx context.Context, env Env, opts RegressionOptions, rep *regression.Report, entries map[string]*store.Entry, targets map[string]*regression.Suspect, first, last int) (rerun, error) {
	var did rerun
	points := map[string]*suspectPoint{}
	var order []string
	inOrder := map[string]bool{}
	for _, e := range rep.Entries {
		// The baseline entries of an A/B are read too: their points are
		// re-run beside the points they are the reference of.
		target := slices.ContainsFunc(e.Results, func(r *regression.KPIResult) bool { return targets[e.Key()+"\x00"+r.KPI] != nil })
		base := opts.Baseline != "" && slices.ContainsFunc(e.Results, func(r *regression.KPIResult) bool { return r.Status == regression.StatusBaseline })
		if !target && !base {
			continue
		}
		for _, run := range e.Runs {
			e, ok := entries[run.Path]
			if !ok {
				return did, fmt.Errorf("--confirm: %s: not a run of %s (read from an LTS file?)", run.Path, opts.ResultsDir)
			}
			sp := suspectOf(opts.ResultsDir, e)
			key := sp.expe + "\x00" + models.Settings(sp.settings).Identity()
			if old, ok := points[key]; ok {
				if !sp.rerun {
					old.runs++
				}
				old.repeat = max(old.repeat, sp.repeat)
			} else {
				if sp.rerun {
					sp.runs = 0
				}
				points[key] = sp
			}
			if target && !inOrder[key] {
				inOrder[key] = true
				order = append(order, key)
			}
		}
	}
	if len(order) == 0 {
		return did, nil
	}
	benchmark := opts.Benchmark
	if benchmark == "" {
		benchmark = benchmarkOf(points[order[0]].config)
	}
	if benchmark == "" {
		return did, exitcode.Errorf(exitcode.InvalidInput,
			"--confirm: which benchmark file made these runs? give --benchmark (their config.yaml names none that exists)")
	}
	all, err := expandBenchmark(&env, benchmark, nil)
	if err != nil {
		return did, fmt.Errorf("--confirm: %w", err)
	}
	templates := map[string]runner.Point{}
	for _, p := range all {
		key := p.Experiment + "\x00" + models.Settings(withoutMeta(p.Settings)).Identity()
		if _, ok := templates[key]; !ok {
			templates[key] = p
		}
	}
	if opts.Baseline != "" {
		order = withBaselinePoints(opts.Baseline, points, order, templates)
	}
	for _, key := range order {
		if _, ok := templates[key]; !ok {
			sp := points[key]
			return did, exitcode.Errorf(exitcode.InvalidInput,
				"--confirm: %s has no point of experiment %q with the settings %s", benchmark, sp.expe, runner.SettingsText(sp.settings))
		}
	}
	// The runs of one build go together: they are written under it. A
	// round runs every point as many times as it had runs, one run of
	// each point in turn, in reverse order every other turn, so that the
	// two sides of an A/B alternate (A B, B A, ...) as the runner's own
	// rounds do.
	byBuild := map[string][]runner.Point{}
	builds := map[string]*models.Build{}
	next := map[string]int{}
	turns := 0
	for _, key := range order {
		next[key] = points[key].repeat + 1
		turns = max(turns, points[key].runs, 1)
	}
	did.points = len(order)
	turn := (first - 1) * turns // rounds of --confirm auto go on alternating
	for round := first; round <= last; round++ {
		for j := range turns {
			keys := slices.Clone(order)
			if turn%2 == 1 {
				slices.Reverse(keys)
			}
			turn++
			for _, key := range keys {
				sp, tmpl := points[key], templates[key]
				if j >= max(sp.runs, 1) {
					continue
				}
				p := tmpl
				p.Settings = maps.Clone(tmpl.Settings)
				p.Settings[runner.RepeatSetting] = next[key]
				p.Settings[ConfirmSetting] = round
				next[key]++
				if !slices.Contains(p.Varying, runner.RepeatSetting) {
					p.Varying = append(slices.Clip(p.Varying), runner.RepeatSetting)
				}
				id := ""
				if sp.build != nil {
					id = sp.build.ID
					builds[id] = sp.build
				}
				byBuild[id] = append(byBuild[id], p)
				did.runs++
			}
		}
	}
	if opts.ConfirmAuto {
		fmt.Fprintf(env.status(), "regression: --confirm auto: round %d: re-running %d point(s) of %d undecided result(s), %d run(s)\n",
			first, did.points, len(targets), did.runs)
	} else {
		fmt.Fprintf(env.status(), "regression: --confirm %d: re-running %d point(s) of %d suspect finding(s), %d run(s)\n",
			opts.Confirm, did.points, len(targets), did.runs)
	}
	before := runDirs(opts.ResultsDir)
	for _, id := range slices.Sorted(maps.Keys(byBuild)) {
		ro := opts.Rerun
		ro.Benchmark, ro.ResultsDir, ro.Build = benchmark, opts.ResultsDir, builds[id]
		sum, err := runPoints(ctx, env, ro, byBuild[id])
		did.failed += sum.Failed
		// Failed runs are data like any other: the analysis judges what
		// did run. An interruption or a runner's own failure stops here,
		// and takes back the run directories it left incomplete.
		if err != nil && (ctx.Err() != nil || sum.Failed == 0) {
			if n, rmErr := removeIncomplete(opts.ResultsDir, before); n > 0 || rmErr != nil {
				fmt.Fprintf(env.status(), "regression: --confirm: removed %d incomplete run director(ies) it had started\n", n)
				if rmErr != nil {
					err = errors.Join(err, rmErr)
				}
			}
			return did, fmt.Errorf("--confirm: %w", err)
		}
	}
	return did, nil
}

// holdResults takes the results directory's lock for the re-runs of
// --confirm, until the caller releases it after its last round (one
// writer per results directory: no `seshat run` plans run directories
// meanwhile), and sets opts.Rerun.Lock. It then removes what an earlier
// --confirm that was killed left: its re-runs without exit_code. (One
// that is interrupted removes its own; one killed cannot, and its
// incomplete runs would be listed as not analysed forever, a complete
// re-run of the same @repeat written beside them.) No one else writes
// there while the lock is held: none of them is a run in progress.
func holdResults(env Env, opts *RegressionOptions) (*runner.ResultsLock, error) {
	lock, err := runner.LockResults(opts.ResultsDir)
	if err != nil {
		return nil, fmt.Errorf("--confirm: %w", err)
	}
	opts.Rerun.Lock = lock
	if lock.Warning != "" {
		env.Log.Warn(lock.Warning)
	}
	n, err := removeLeftovers(opts.ResultsDir)
	if n > 0 {
		fmt.Fprintf(env.status(), "regression: --confirm: removed %d incomplete re-run director(ies) an earlier --confirm left\n", n)
	}
	if err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("--confirm: remove the incomplete re-runs of an earlier --confirm: %w", err)
	}
	return lock, nil
}

// removeLeftovers deletes the run directories of resultsDir that have no
// exit_code and whose settings.yaml holds @confirm: re-runs an earlier
// --confirm started and never finished. It returns how many it removed.
func removeLeftovers(resultsDir string) (int, error) {
	return removeIncompleteRuns(resultsDir, func(dir string) bool {
		name := filepath.Join(dir, runner.SettingsFile)
		data, err := parsers.ReadLimited(name, 1<<20)
		if err != nil {
			return true
		}
		settings, err := parsers.Settings(name, data)
		return err != nil || settings[ConfirmSetting] == nil
	})
}

// runDirs are the run directories of a results directory
// (EXPERIMENT/NNN__slug).
func runDirs(resultsDir string) map[string]bool {
	out := map[string]bool{}
	matches, _ := filepath.Glob(filepath.Join(resultsDir, "*", "*__*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			out[m] = true
		}
	}
	return out
}

// removeIncomplete deletes the run directories of resultsDir that are not
// in before and have no exit_code (the runner writes it last): the runs an
// interrupted --confirm started. It returns how many it removed.
func removeIncomplete(resultsDir string, before map[string]bool) (int, error) {
	return removeIncompleteRuns(resultsDir, func(dir string) bool { return before[dir] })
}

// removeIncompleteRuns deletes the run directories of resultsDir without
// exit_code that keep does not keep, and returns how many it removed.
func removeIncompleteRuns(resultsDir string, keep func(dir string) bool) (int, error) {
	var errs []error
	n := 0
	for dir := range runDirs(resultsDir) {
		if _, err := os.Lstat(filepath.Join(dir, runner.ExitCodeFile)); !errors.Is(err, fs.ErrNotExist) || keep(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// suspectOf is what re-running a current run needs, from what its parse
// read of it (its settings, build and experiment).
func suspectOf(resultsDir string, e *store.Entry) *suspectPoint {
	sp := &suspectPoint{expe: strings.SplitN(e.Path, "/", 2)[0], settings: withoutMeta(e.Settings), runs: 1, repeat: -1,
		build: e.Build, config: filepath.Join(resultsDir, filepath.FromSlash(e.Path), runner.ConfigFile)}
	if r, ok := e.Settings[runner.RepeatSetting].(int); ok {
		sp.repeat = r
	}
	_, sp.rerun = e.Settings[ConfirmSetting]
	return sp
}

// withoutMeta is settings less the @ ones (@repeat, @confirm...).
func withoutMeta(settings map[string]any) map[string]any {
	out := make(map[string]any, len(settings))
	for k, v := range settings {
		if !models.IsMeta(k) {
			out[k] = v
		}
	}
	return out
}

// benchmarkOf is the benchmark file a run's config.yaml names, when it
// still exists.
func benchmarkOf(configPath string) string {
	data, err := os.ReadFile(configPath)
	if err != nil {
		return ""
	}
	var c struct {
		Benchmark string `yaml:"benchmark"`
	}
	if yaml.Unmarshal(data, &c) != nil || c.Benchmark == "" {
		return ""
	}
	if _, err := os.Stat(c.Benchmark); err != nil {
		return ""
	}
	return c.Benchmark
}

// settle compares the suspects of the first analysis with the results of
// the last, on all the runs: confirmed when still failing, undecided when
// --confirm auto left it so (Suspect.Undecided), cleared otherwise. It
// notes each on its result.
func settle(conf *regression.Confirm, suspects map[string]*regression.Suspect, rep *regression.Report, rounds int) {
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			s, ok := suspects[e.Key()+"\x00"+r.KPI]
			if !ok {
				continue
			}
			delete(suspects, e.Key()+"\x00"+r.KPI)
			s.After, s.DeltaAfter, s.RunsAfter = r.Status, finiteOr0(r.Result.DeltaPercent), len(r.Current.Samples)
			r.Confirmation = s.Text()
			r.ConfirmRounds = rounds
			if s.Rounds > 0 {
				r.ConfirmRounds = s.Rounds
			}
			switch {
			case r.Failing:
				conf.Confirmed = append(conf.Confirmed, *s)
			case s.Undecided:
				conf.Undecided = append(conf.Undecided, *s)
			default:
				conf.Cleared = append(conf.Cleared, *s)
			}
		}
	}
	rep.Confirm = conf
}

// withBaselinePoints adds to the points to re-run, for every one of them
// on another side of the A/B (--baseline KEY=VALUE), the baseline's point
// with the same other settings, right before it: an A/B re-run measures
// both sides again, interleaved, never one side against the other's old
// runs. The baseline's point takes as many runs as the point it is the
// reference of, and keeps its own highest @repeat. Points without a
// baseline point in the benchmark are left as they are (the analysis says
// so).
func withBaselinePoints(baseline string, points map[string]*suspectPoint, order []string, templates map[string]runner.Point) []string {
	b, err := parseBaseline(baseline)
	if err != nil || b == nil {
		return order // checked before any run: not reached
	}
	key, value := b.Key, b.Value
	out := make([]string, 0, 2*len(order))
	seen := map[string]bool{}
	for _, k := range order {
		sp := points[k]
		v, ok := sp.settings[key]
		if ok && models.FormatValue(v) != value {
			if bk, base := baselineTemplate(sp, key, value, templates); bk != "" && !seen[bk] {
				if old, ok := points[bk]; ok {
					old.runs = max(old.runs, sp.runs)
				} else {
					points[bk] = &suspectPoint{expe: sp.expe, settings: withoutMeta(base.Settings), runs: sp.runs, repeat: -1, build: sp.build, config: sp.config}
				}
				seen[bk] = true
				out = append(out, bk)
			}
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// baselineTemplate is the benchmark point of sp's experiment with key=value
// and sp's other settings, and its key; "" when the benchmark has none.
func baselineTemplate(sp *suspectPoint, key, value string, templates map[string]runner.Point) (string, runner.Point) {
	for tk, t := range templates {
		if t.Experiment != sp.expe {
			continue
		}
		settings := withoutMeta(t.Settings)
		if v, ok := settings[key]; !ok || models.FormatValue(v) != value {
			continue
		}
		same := len(settings) == len(sp.settings)
		for k, v := range sp.settings {
			if k == key {
				continue
			}
			if w, ok := settings[k]; !ok || models.FormatValue(w) != models.FormatValue(v) {
				same = false
				break
			}
		}
		if same {
			return tk, t
		}
	}
	return "", runner.Point{}
}
