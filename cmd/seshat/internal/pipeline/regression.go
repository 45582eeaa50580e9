package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/analyze/report"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// DefaultRegressionReportDir is where `seshat regression` writes its
// reports unless told otherwise.
const DefaultRegressionReportDir = "regression-report"

// The files of a regression report directory (report.WriteDir) that
// visualize links to.
const (
	RegressionHTML    = report.HTMLFile
	RegressionSummary = report.SummaryFile
)

// RegressionOptions are the options of `seshat regression`.
type RegressionOptions struct {
	// ResultsDir is parsed (cached) for the current runs; LTSFile is an LTS
	// file (`parse --output-lts`) of current runs. One of them at least;
	// with both, their runs are analysed together (a run in both once).
	ResultsDir, LTSFile string
	Workload, Filters   string
	NoCache             bool
	// History is the store's URL; lts.DefaultStoreURL when empty.
	History string
	// Connection says how to reach an OpenSearch history (indices, TLS,
	// credentials), as for upload.
	Connection StoreConnection
	Method     string
	Params     analyze.Params
	// Gate decides which changes are findings (the zero value is the
	// defaults).
	Gate analyze.Gate
	// Keys override the workloads' defaults key by key (regression.Keys.Or:
	// a nil list is unset, an empty one sets none).
	Keys regression.Keys
	// Ack is an ack file of known regressions.
	Ack       string
	ReportDir string
	// ReportsIndex is the reports_index.html of `seshat visualize` the
	// HTML report links back to; when empty, one in the report
	// directory's parent, if there is one.
	ReportsIndex string
	KPIFilter    string
	// FailOnRegression and FailOnImprovement decide the exit status 2.
	FailOnRegression, FailOnImprovement bool
	// Disabled (regression_analyses.enabled: false) skips the analysis.
	Disabled bool
	// BatchValues bounds one history query (see regression.Options); 1
	// asks once per series.
	BatchValues int
	// Confirm, when above 0, re-runs the matrix points of the findings
	// that would fail the analysis, and of the suspects, Confirm more times (into ResultsDir,
	// from Benchmark, else the benchmark file the runs' config.yaml names)
	// and judges the current builds again on all their runs. Rerun says
	// how the points run (executor, timeout, interpreter).
	Confirm int
	// ConfirmAuto (--confirm auto) re-runs them instead in rounds, one
	// re-run of each point a round, while a result is undecided: a
	// suspect, or noisy for want of current runs (see undecided). A round
	// starts while MaxRounds is not reached and Budget still has room for
	// one as long as the longest so far (the first always runs); a round
	// is not cut short (Rerun.Timeout bounds a run).
	ConfirmAuto bool
	Budget      time.Duration
	MaxRounds   int
	Benchmark   string
	Rerun       RunOptions
	// Baseline (--baseline KEY=VALUE) makes the analysis an A/B in one
	// job: every other value of KEY in the current runs is judged against
	// the runs of KEY=VALUE (regression.Baseline). The history is then
	// read only when HistoryGiven (a flag, the environment or the config
	// file named a store).
	Baseline     string
	HistoryGiven bool
	// AllowNoHistory passes an analysis in which no result had history (a
	// first run); otherwise it exits 3 (NoData).
	AllowNoHistory bool
	// StoreResults stores the analysis' results in the history store as
	// verdicts (lts.VerdictStore), which `seshat serve` lists as alerts.
	StoreResults bool
}

// The bounds of --confirm auto unless told otherwise.
const (
	DefaultConfirmBudget = 10 * time.Minute
	DefaultConfirmRounds = 5
)

// Regression runs `seshat regression`: current runs from a parse or an LTS
// file, history from the store, every entry x KPI judged by the method,
// the reports written to the report directory and the table to stdout.
// Exit status: 2 for an unacknowledged regression (when failing on them),
// 3 when there is no current entry, 4 for bad options or ack file, 1 for
// other errors.
func Regression(ctx context.Context, env Env, opts RegressionOptions) error {
	if opts.Disabled {
		fmt.Fprintln(env.status(), "regression: disabled by regression_analyses.enabled in the config file; nothing analysed")
		return nil
	}
	if opts.ResultsDir == "" && opts.LTSFile == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--results-dir or --lts is required: where are the current runs?")
	}
	switch {
	case opts.Confirm < 0:
		return exitcode.Errorf(exitcode.InvalidInput, "--confirm %d: must be a number of re-runs, 0 or more, or auto", opts.Confirm)
	case opts.Budget < 0 || (opts.ConfirmAuto && opts.Budget == 0):
		return exitcode.Errorf(exitcode.InvalidInput, "--budget %s: --confirm auto needs a time above 0 (e.g. 10m)", opts.Budget)
	case opts.MaxRounds < 0 || (opts.ConfirmAuto && opts.MaxRounds == 0):
		return exitcode.Errorf(exitcode.InvalidInput, "--max-rounds %d: --confirm auto needs 1 round or more", opts.MaxRounds)
	case (opts.Confirm > 0 || opts.ConfirmAuto) && opts.ResultsDir == "":
		return exitcode.Errorf(exitcode.InvalidInput, "--confirm re-runs the points of a results directory: give --results-dir")
	}
	methodName := opts.Method
	if methodName == "" {
		methodName = analyze.DefaultMethod
	}
	if err := opts.Gate.Validate(); err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "gate: %w", err)
	}
	mp := opts.Params
	mp.MinEffect = opts.Gate.MinEffect // shift's history: a change under it never alerted
	method, err := analyze.New(methodName, mp)
	if err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "--method: %w", err)
	}
	var acks []regression.Ack
	if opts.Ack != "" {
		if acks, err = readAckFile(opts.Ack); err != nil {
			return err
		}
	}
	baseline, err := parseBaseline(opts.Baseline)
	if err != nil {
		return err
	}
	start := time.Now()
	runs, current, entries, err := currentRuns(ctx, &env, opts)
	if err != nil {
		return err
	}
	env.logger().Debug("regression: current runs read", "runs", len(runs), "took", time.Since(start))
	if len(runs) == 0 {
		return exitcode.Errorf(exitcode.NoData, "no current runs in %s", current)
	}
	if baseline != nil {
		withSideLabel(baseline, runs)
		if err := checkBaseline(baseline, runs); err != nil {
			return err
		}
	}
	keys, err := regressionKeys(env, opts, runs)
	if err != nil {
		return err
	}
	storeURL := opts.History
	if storeURL == "" {
		storeURL = lts.DefaultStoreURL
	}
	var s lts.Store
	historyText := redact.URL(storeURL)
	if baseline == nil || opts.HistoryGiven {
		if s, err = openRegressionHistory(ctx, env, storeURL, opts.Connection); err != nil {
			return err
		}
		defer s.Close()
	} else {
		historyText = "none (A/B against --baseline " + baseline.String() + ")"
	}
	if s != nil {
		triaged, err := triageAcks(ctx, s, runs)
		if err != nil {
			return err
		}
		acks = append(acks, triaged...)
	} else if opts.StoreResults {
		return exitcode.Errorf(exitcode.InvalidInput, "--store-results stores the results in the history store: give --history with --baseline")
	}
	ropts := regression.Options{
		Method: method, Gate: opts.Gate, Keys: func(w string) regression.Keys { return keys[w] }, Definition: env.kpiDefinition,
		KPIFilter: opts.KPIFilter, Acks: acks, FailOnRegression: opts.FailOnRegression, FailOnImprovement: opts.FailOnImprovement,
		BatchValues: opts.BatchValues, Baseline: baseline, AllowNoHistory: opts.AllowNoHistory,
	}
	rep, err := regression.Analyze(ctx, runs, s, ropts)
	if err != nil {
		return err
	}
	if opts.Confirm > 0 || opts.ConfirmAuto {
		if rep, err = confirm(ctx, env, opts, rep, entries, s, ropts); err != nil {
			return err
		}
	}
	env.logger().Debug("regression: analysed", "series", rep.History.Series, "queries", rep.History.Queries,
		"records", rep.History.Records, "took", time.Since(start))
	if opts.StoreResults {
		if err := storeVerdicts(ctx, env, s, rep); err != nil {
			return err
		}
	}
	for _, a := range rep.UnusedAcks {
		env.logger().Warn("ack " + a.String() + " matched no regression or improvement")
	}
	params := report.MethodParams(methodName, opts.Params)
	if baseline != nil {
		params = "every side against the baseline " + baseline.String() + " by a hierarchical bootstrap of runs (and per-iteration samples)"
	}
	info := report.Info{Current: current, History: historyText, Params: params + "; gate: " + opts.Gate.String(),
		AckFile: opts.Ack, KPIFilter: opts.KPIFilter, FailOnRegression: opts.FailOnRegression, FailOnImprovement: opts.FailOnImprovement}
	dir := opts.ReportDir
	if dir == "" {
		dir = DefaultRegressionReportDir
	}
	info.ReportsIndex = reportsIndexHref(dir, opts.ReportsIndex)
	if baseline != nil {
		info.Baseline = baseline.String()
		rep.Incomplete = baselineSidesMissing(baseline, runs)
	}
	if err := report.WriteDir(dir, rep, info); err != nil {
		return fmt.Errorf("--report-dir: %w", err)
	}
	env.logger().Debug("regression: reports written", "dir", dir, "took", time.Since(start))
	if err := report.WriteText(env.Stdout, rep); err != nil {
		return err
	}
	fmt.Fprintf(env.status(), "regression: %s; report: %s\n", report.Counts(rep), filepath.Join(dir, RegressionHTML))
	return regressionStatus(rep)
}

// confirm re-runs the points of the failing findings of rep and analyses
// the current runs again, all of them; the returned report tells what was
// confirmed and what cleared.
func confirm(ctx context.Context, env Env, opts RegressionOptions, rep *regression.Report, entries map[string]*store.Entry, history lts.Store, ropts regression.Options) (*regression.Report, error) {
	if opts.ConfirmAuto {
		return confirmAuto(ctx, env, opts, rep, entries, history, ropts)
	}
	suspects := failingSuspects(rep, false)
	if len(suspects) == 0 {
		rep.Confirm = &regression.Confirm{Rounds: opts.Confirm, Confirmed: []regression.Suspect{}, Cleared: []regression.Suspect{}}
		fmt.Fprintln(env.status(), "regression: --confirm: no finding fails the analysis, nothing re-run")
		return rep, nil
	}
	lock, err := holdResults(env, &opts)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	did, err := confirmRuns(ctx, env, opts, rep, entries, suspects, 1, opts.Confirm)
	if err != nil {
		return nil, err
	}
	conf := &regression.Confirm{Rounds: opts.Confirm, Points: did.points, Runs: did.runs, RunsFailed: did.failed,
		Confirmed: []regression.Suspect{}, Cleared: []regression.Suspect{}}
	again, _, err := analyzeAgain(ctx, env, opts, history, ropts)
	if err != nil {
		return nil, err
	}
	settle(conf, suspects, again, opts.Confirm)
	fmt.Fprintf(env.status(), "regression: --confirm %d: %d finding(s) confirmed, %d cleared by %d more run(s)\n",
		opts.Confirm, len(conf.Confirmed), len(conf.Cleared), conf.Runs)
	return again, nil
}

// confirmAuto is --confirm auto: rounds of one re-run of each point whose
// results are undecided (the failing ones too in the first round), each
// followed by the whole analysis again, until none is undecided or the
// budget (time, rounds) is spent. Each result keeps the rounds it needed.
func confirmAuto(ctx context.Context, env Env, opts RegressionOptions, rep *regression.Report, entries map[string]*store.Entry, history lts.Store, ropts regression.Options) (*regression.Report, error) {
	conf := &regression.Confirm{Auto: true, MaxRounds: opts.MaxRounds, BudgetSeconds: opts.Budget.Seconds(),
		Confirmed: []regression.Suspect{}, Cleared: []regression.Suspect{}, Undecided: []regression.Suspect{}}
	suspects := failingSuspects(rep, true)
	if opts.Baseline != "" {
		// An A/B finding is decided by its interval, both sides measured in
		// the same job: only the results still undecided need more rounds.
		maps.DeleteFunc(suspects, func(_ string, s *regression.Suspect) bool {
			return s.Before == analyze.StatusRegression || s.Before == analyze.StatusImprovement
		})
	}
	if len(suspects) == 0 {
		conf.Stopped = "decided"
		rep.Confirm = conf
		fmt.Fprintln(env.status(), "regression: --confirm auto: every result is decided, nothing re-run")
		return rep, nil
	}
	lock, err := holdResults(env, &opts)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	open := maps.Clone(suspects) // the results still to decide
	start := time.Now()
	var longest time.Duration
	for round := 1; ; round++ {
		if round > opts.MaxRounds {
			conf.Stopped = "max-rounds"
			break
		}
		if round > 1 && time.Since(start)+longest > opts.Budget {
			conf.Stopped = "budget"
			break
		}
		began := time.Now()
		did, err := confirmRuns(ctx, env, opts, rep, entries, open, round, round)
		conf.Runs += did.runs
		conf.RunsFailed += did.failed
		conf.Points = max(conf.Points, did.points)
		if err != nil {
			return nil, err
		}
		conf.Rounds = round
		if rep, entries, err = analyzeAgain(ctx, env, opts, history, ropts); err != nil {
			return nil, err
		}
		longest = max(longest, time.Since(began))
		decided := 0
		for _, e := range rep.Entries {
			for _, r := range e.Results {
				key := e.Key() + "\x00" + r.KPI
				s, ok := open[key]
				if !ok {
					continue
				}
				s.Rounds = round
				if !undecided(r) {
					delete(open, key)
					decided++
				}
			}
		}
		fmt.Fprintf(env.status(), "regression: --confirm auto: round %d: %d result(s) decided, %d still undecided (%s)\n",
			round, decided, len(open), time.Since(start).Round(time.Second))
		if len(open) == 0 {
			conf.Stopped = "decided"
			break
		}
	}
	for _, s := range open {
		s.Undecided = true
	}
	settle(conf, suspects, rep, 0)
	why := map[string]string{"decided": "every result decided", "budget": "budget of " + opts.Budget.String() + " spent",
		"max-rounds": fmt.Sprintf("round cap of %d reached", opts.MaxRounds)}[conf.Stopped]
	fmt.Fprintf(env.status(), "regression: --confirm auto: %d finding(s) confirmed, %d cleared, %d undecided after %d round(s) (%s) by %d more run(s)\n",
		len(conf.Confirmed), len(conf.Cleared), len(conf.Undecided), conf.Rounds, why, conf.Runs)
	return rep, nil
}

// analyzeAgain reads the current runs again, re-runs included, and
// judges them with the whole analysis (so the false discovery rate still
// covers every test); re-runs can confirm a suspect. It returns the
// parse's entries too, for the next round.
func analyzeAgain(ctx context.Context, env Env, opts RegressionOptions, history lts.Store, ropts regression.Options) (*regression.Report, map[string]*store.Entry, error) {
	runs, _, entries, err := currentRuns(ctx, &env, opts)
	if err != nil {
		return nil, nil, err
	}
	if ropts.Baseline != nil {
		withSideLabel(ropts.Baseline, runs)
	}
	ropts.Rerun = true
	rep, err := regression.Analyze(ctx, runs, history, ropts)
	return rep, entries, err
}

// regressionStatus is the exit status of an analysis as an error: the one
// report.OutcomeOf gives, which every report file states too.
func regressionStatus(rep *regression.Report) error {
	o := report.OutcomeOf(rep)
	switch o.Kind {
	case report.OutcomeNoData:
		switch {
		case rep.Summary.Entries == 0:
			return exitcode.Errorf(exitcode.NoData, "no current entry to analyse (%d run(s) skipped by ignored_entries)", len(rep.Skipped))
		case rep.NoData():
			return exitcode.Errorf(exitcode.NoData, "no current entry has a KPI value: %d entries not analysed (failed or incomplete runs?)", rep.Summary.Entries)
		}
		return exitcode.Errorf(exitcode.NoData, "%s", o.Text)
	case report.OutcomeFailed:
	default:
		return nil
	}
	var names []string
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if !r.Failing {
				continue
			}
			at := ""
			if e.ComparisonValue != "" {
				at = " @ " + e.ComparisonValue
			}
			names = append(names, fmt.Sprintf("%s %s of #%d %s%s (%+.1f%%)", r.KPI, r.Status, e.ID, e.Name, at, r.Result.DeltaPercent))
		}
	}
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return exitcode.Errorf(exitcode.RegressionFound, "%d unacknowledged finding(s) fail the analysis: %s", len(names), strings.Join(shown, "; "))
}

// reportsIndexHref is the link from the regression report in dir back to
// the reports_index.html of `seshat visualize`: the one named (the file or
// visualize's output directory; it may not exist yet, when visualize runs
// after), else one in dir's parent (the report written under visualize's
// output directory), else one in a directory beside dir (the tour's
// seshat-tour/reports beside seshat-tour/regression), the first by name;
// "" when none.
func reportsIndexHref(dir, named string) string {
	index := named
	if fi, err := os.Stat(named); (err == nil && fi.IsDir()) || (named != "" && !strings.HasSuffix(named, ".html")) {
		index = filepath.Join(named, plotting.IndexFile) // visualize's output directory
	}
	if index == "" {
		parent := filepath.Join(dir, "..")
		if index = firstFile(append([]string{parent}, subdirs(parent)...), plotting.IndexFile); index == "" {
			return ""
		}
	}
	return relativeHref(dir, index)
}

// triageAcks are the acks of the alerts of the current builds triaged
// acknowledged or invalid in the store (none when it keeps no verdicts).
func triageAcks(ctx context.Context, s lts.Store, runs []regression.Run) ([]regression.Ack, error) {
	vs, ok := s.(lts.VerdictStore)
	if !ok {
		return nil, nil
	}
	var builds []string
	for _, r := range runs {
		if r.Labels != nil && !slices.Contains(builds, r.BuildID()) {
			builds = append(builds, r.BuildID())
		}
	}
	if len(builds) == 0 {
		return nil, nil
	}
	verdicts, err := vs.Verdicts(ctx, lts.VerdictQuery{AlertsOnly: true, Builds: builds})
	if err != nil {
		return nil, fmt.Errorf("--history: reading the triage of the current builds' alerts: %w", err)
	}
	return regression.TriageAcks(verdicts), nil
}

// storeVerdicts stores the results of rep in the history store as the
// verdicts of a new analysis (--store-results).
func storeVerdicts(ctx context.Context, env Env, s lts.Store, rep *regression.Report) error {
	vs, err := lts.AsVerdictStore(s)
	if err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "--store-results: %w", err)
	}
	now := time.Now()
	id := now.UTC().Format("20060102T150405Z") + "-" + uuid.NewString()[:8]
	verdicts := regression.Verdicts(rep, id, now)
	if err := vs.PutVerdicts(ctx, verdicts); err != nil {
		return fmt.Errorf("--store-results: %w", err)
	}
	fmt.Fprintf(env.status(), "regression: stored %d result(s) of analysis %s in %s\n", len(verdicts), id, s)
	return nil
}

// ackFileLimit bounds the ack file read whole.
const ackFileLimit = 4 << 20

func readAckFile(path string) ([]regression.Ack, error) {
	data, err := parsers.ReadLimited(path, ackFileLimit)
	if err != nil {
		return nil, exitcode.Input(fmt.Errorf("--ack: %w", err))
	}
	acks, err := regression.ReadAcks(path, data)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--ack: %w", err)
	}
	return acks, nil
}

// currentRuns reads the current runs of the analysis (CurrentRuns):
// every payload, and the incomplete entries too, to be reported; and says
// where they came from. It returns the parse's entries, for --confirm. The
// workload files found beside the runs join env's workloads.
func currentRuns(ctx context.Context, env *Env, opts RegressionOptions) ([]regression.Run, string, map[string]*store.Entry, error) {
	set, err := CurrentRuns{ResultsDir: opts.ResultsDir, LTSFile: opts.LTSFile, Workload: opts.Workload, Filters: opts.Filters, NoCache: opts.NoCache}.Read(ctx, env)
	if err != nil {
		return nil, "", nil, err
	}
	runs := make([]regression.Run, 0, len(set.Records)+len(set.Incomplete))
	for _, r := range set.Records {
		runs = append(runs, runOf(*env, r, opts.Baseline != ""))
	}
	for _, e := range set.Incomplete {
		problems := []string{"incomplete run, not parsed"}
		if len(e.Warnings) > 0 {
			problems = e.Warnings
		}
		runs = append(runs, regression.Run{Path: e.Path, Record: lts.Record{Workload: e.Workload}, Problems: problems, Settings: settingsText(e.Settings)})
	}
	abKey, _, _ := strings.Cut(opts.Baseline, "=")
	for _, note := range labelMergedSettings(runs, abKey) {
		env.logger().Warn(note)
	}
	return runs, set.From, set.Entries, nil
}

// runOf is the current run of an entry's payload, with the per-iteration
// samples of its KPIs when asked (an A/B analysis).
func runOf(env Env, r lts.EntryPayload, samples bool) regression.Run {
	run := regression.Run{Path: r.Path, Problems: r.Warnings}
	if p := r.Payload; p != nil {
		run.Record = lts.RecordOf(p)
		run.Settings = settingsText(p.Metadata.Settings)
		if r, ok := p.Metadata.Settings[models.RepeatSetting]; ok {
			run.Round = models.FormatValue(r)
		}
		if code := p.Metadata.ExitCode; code != nil && *code != 0 && len(p.KPIs) == 0 && len(r.Warnings) == 0 {
			// A payload read back from an LTS file carries no build warnings.
			run.Problems = []string{fmt.Sprintf("exit code %d: no KPIs for a failed run", *code)}
		}
		if samples {
			for name := range run.Values {
				if s := env.compareSamples(p, name); len(s) > 0 {
					if run.Samples == nil {
						run.Samples = map[string][]float64{}
					}
					run.Samples[name] = s
				}
			}
		}
	}
	return run
}

// regressionKeys resolves the keys of each workload of the runs: the
// workload's defaults under the keys the user set (regression.Keys.Or).
func regressionKeys(env Env, opts RegressionOptions, runs []regression.Run) (map[string]regression.Keys, error) {
	if _, err := opts.Keys.Filters(); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--ignored-entries: %w", err)
	}
	out := map[string]regression.Keys{}
	for _, r := range runs {
		if _, done := out[r.Workload]; done {
			continue
		}
		var defaults regression.Keys
		if w, ok := env.registry().Get(r.Workload); ok {
			if rd, ok := w.(workloads.RegressionDefaults); ok {
				defaults = rd.RegressionKeys()
			}
		}
		out[r.Workload] = opts.Keys.Or(defaults)
	}
	return out, nil
}

// kpiDefinition finds a KPI's definition in its workload's catalog.
func (e Env) kpiDefinition(workload, name string) (kpi.Definition, bool) {
	w, ok := e.registry().Get(workload)
	if !ok {
		return kpi.Definition{}, false
	}
	p, ok := w.(workloads.KPIProvider)
	if !ok {
		return kpi.Definition{}, false
	}
	return p.KPIs().Definition(name)
}

// openRegressionHistory opens the history store. One that does not exist
// is invalid input, as for visualize --history: a mistyped path would read
// as an empty history, and pass every run. It is not created.
func openRegressionHistory(ctx context.Context, env Env, url string, conn StoreConnection) (lts.Store, error) {
	s, err := openStore(ctx, env, url, conn)
	if errors.Is(err, lts.ErrNoStore) {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--history %s: %w (seshat upload creates it: check the path, or upload first)", redact.URL(url), err)
	}
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	return s, nil
}
