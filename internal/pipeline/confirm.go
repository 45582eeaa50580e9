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
	runs     int // the runs of the point in the current results
	repeat   int // the highest @repeat among them, -1 for none
	build    *models.Build
	config   string // a run's config.yaml, to find the benchmark file
}

// failingSuspects lists the results of rep that fail the analysis or are
// suspects (a build at a new level that nothing confirms yet), by entry
// key and KPI: what --confirm re-runs.
func failingSuspects(rep *regression.Report) map[string]*regression.Suspect {
	out := map[string]*regression.Suspect{}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if r.Failing || r.Status == analyze.StatusSuspect {
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

// confirmRuns re-runs, opts.Confirm more times each, the matrix points of
// the failing findings of rep (suspects of them), into the results directory (new run
// directories, the build of the runs they confirm). It returns what it
// did; the caller judges the results again.
func confirmRuns(ctx context.Context, env Env, opts RegressionOptions, rep *regression.Report, suspects int) (*regression.Confirm, error) {
	conf := &regression.Confirm{Rounds: opts.Confirm, Confirmed: []regression.Suspect{}, Cleared: []regression.Suspect{}}
	points := map[string]*suspectPoint{}
	var order []string
	for _, e := range rep.Entries {
		failing := slices.ContainsFunc(e.Results, func(r *regression.KPIResult) bool { return r.Failing })
		if !failing {
			continue
		}
		for _, run := range e.Runs {
			sp, err := readSuspectRun(opts.ResultsDir, run.Path)
			if err != nil {
				return nil, fmt.Errorf("--confirm: %w", err)
			}
			key := sp.expe + "\x00" + models.Settings(sp.settings).Identity()
			if old, ok := points[key]; ok {
				old.runs++
				old.repeat = max(old.repeat, sp.repeat)
				continue
			}
			points[key] = sp
			order = append(order, key)
		}
	}
	if len(order) == 0 {
		return conf, nil
	}
	benchmark := opts.Benchmark
	if benchmark == "" {
		benchmark = benchmarkOf(points[order[0]].config)
	}
	if benchmark == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput,
			"--confirm: which benchmark file made these runs? give --benchmark (their config.yaml names none that exists)")
	}
	all, err := expandBenchmark(env, benchmark, nil)
	if err != nil {
		return nil, fmt.Errorf("--confirm: %w", err)
	}
	templates := map[string]runner.Point{}
	for _, p := range all {
		key := p.Experiment + "\x00" + models.Settings(withoutMeta(p.Settings)).Identity()
		if _, ok := templates[key]; !ok {
			templates[key] = p
		}
	}
	// The runs of one build go together: they are written under it.
	byBuild := map[string][]runner.Point{}
	builds := map[string]*models.Build{}
	for _, key := range order {
		sp := points[key]
		tmpl, ok := templates[key]
		if !ok {
			return nil, exitcode.Errorf(exitcode.InvalidInput,
				"--confirm: %s has no point of experiment %q with the settings %s", benchmark, sp.expe, runner.SettingsText(sp.settings))
		}
		conf.Points++
		next := sp.repeat + 1
		for round := 1; round <= opts.Confirm; round++ {
			for range max(sp.runs, 1) {
				p := tmpl
				p.Settings = maps.Clone(tmpl.Settings)
				p.Settings[runner.RepeatSetting] = next
				p.Settings[ConfirmSetting] = round
				next++
				if !slices.Contains(p.Varying, runner.RepeatSetting) {
					p.Varying = append(slices.Clip(p.Varying), runner.RepeatSetting)
				}
				id := ""
				if sp.build != nil {
					id = sp.build.ID
					builds[id] = sp.build
				}
				byBuild[id] = append(byBuild[id], p)
				conf.Runs++
			}
		}
	}
	fmt.Fprintf(env.status(), "regression: --confirm %d: re-running %d point(s) of %d suspect finding(s), %d run(s)\n",
		opts.Confirm, conf.Points, suspects, conf.Runs)
	for _, id := range slices.Sorted(maps.Keys(byBuild)) {
		ro := opts.Rerun
		ro.Benchmark, ro.ResultsDir, ro.Build = benchmark, opts.ResultsDir, builds[id]
		sum, err := runPoints(ctx, env, ro, byBuild[id])
		conf.RunsFailed += sum.Failed
		// Failed runs are data like any other: the analysis judges what
		// did run. An interruption or a runner's own failure stops here.
		if err != nil && (ctx.Err() != nil || sum.Failed == 0) {
			return nil, fmt.Errorf("--confirm: %w", err)
		}
	}
	return conf, nil
}

// readSuspectRun reads what re-running a current run needs from its
// directory: settings.yaml, build.json and config.yaml.
func readSuspectRun(resultsDir, path string) (*suspectPoint, error) {
	dir := filepath.Join(resultsDir, filepath.FromSlash(path))
	name := filepath.Join(dir, runner.SettingsFile)
	data, err := parsers.ReadLimited(name, 1<<20)
	if err != nil {
		return nil, err
	}
	settings, err := parsers.Settings(name, data)
	if err != nil {
		return nil, err
	}
	sp := &suspectPoint{expe: strings.SplitN(filepath.ToSlash(path), "/", 2)[0], settings: withoutMeta(settings), runs: 1, repeat: -1,
		config: filepath.Join(dir, runner.ConfigFile)}
	if r, ok := settings[runner.RepeatSetting].(int); ok {
		sp.repeat = r
	}
	if data, err := parsers.ReadLimited(filepath.Join(dir, runner.BuildFile), 1<<16); err == nil {
		if b, err := parsers.Build(runner.BuildFile, data); err == nil {
			sp.build = b
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return sp, nil
}

// withoutMeta is settings less the @ ones (@repeat, @confirm...).
func withoutMeta(settings map[string]any) map[string]any {
	out := make(map[string]any, len(settings))
	for k, v := range settings {
		if !strings.HasPrefix(k, "@") {
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
// the second, on all the runs: confirmed when still failing, cleared
// otherwise. It notes each on its result.
func settle(conf *regression.Confirm, suspects map[string]*regression.Suspect, rep *regression.Report) {
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			s, ok := suspects[e.Key()+"\x00"+r.KPI]
			if !ok {
				continue
			}
			delete(suspects, e.Key()+"\x00"+r.KPI)
			s.After, s.DeltaAfter, s.RunsAfter = r.Status, finiteOr0(r.Result.DeltaPercent), len(r.Current.Samples)
			r.Confirmation = s.Text()
			if r.Failing {
				conf.Confirmed = append(conf.Confirmed, *s)
			} else {
				conf.Cleared = append(conf.Cleared, *s)
			}
		}
	}
	rep.Confirm = conf
}
