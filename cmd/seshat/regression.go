package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/runner/executors"
)

func newRegressionCmd(g *globals) *cobra.Command {
	var o pipeline.RegressionOptions
	var threshold float64
	cmd := &cobra.Command{
		Use:   "regression",
		Short: "Judge the current runs' KPIs against their history and fail CI on regressions",
		Long: `Analyse the KPIs of the current runs (--results-dir, parsed with the cache, or
--lts, an LTS file) against their history in the store (--history).

A history is every stored run with the same labels, less the comparison keys
(what changes from one point to the next, e.g. framework_version), the
ignored keys and the meta keys; the current runs themselves are left out.
It is ordered by time, and the runs sharing a comparison value are one
point, their median. The workload declares default keys; seshat.yaml
(regression_analyses) and the flags override them.

Writes regression_report.html, regression_summary.json, junit.xml and
summary.md to --report-dir and a table to stdout. With --confirm N, the matrix points of the findings that would fail the
analysis, and of the suspects, are first run N more times (same benchmark
file, same results directory, new run directories, the same build) and the
current builds are judged again on all their runs: the report says what was
confirmed and what was cleared. With --confirm auto, they are re-run in
rounds, once each a round, while a result is still suspect or noisy for want
of runs, until every result is decided, --max-rounds is reached or
--budget has no room for another round; the report says how many rounds
each result needed. An interrupted confirm removes the run directories it
left incomplete.

Exit status: 2 when an
unacknowledged regression is found (unless --fail-on-regression=false; and
for improvements with --fail-on-improvement), 3 when there is no current
entry, or when no result had history (the store holds none of these series:
unless --allow-no-history, for a first run), 4 for bad flags or ack file or
a history store that does not exist (a mistyped path), 1 for other errors,
else 0.

With --baseline KEY=VALUE (an A/B in one job: the two sides are two
values of one setting, run interleaved by seshat run), every entry whose
KEY has another value is judged against the entry with the same labels
and KEY=VALUE in the current runs, by a hierarchical bootstrap of their
runs and per-iteration samples: regression or improvement when the
interval of the ratio excludes 1, the change reaches --min-effect and
passes the false discovery rate; noisy when the interval is wider than
±--max-noise. The baseline's entries are listed as the reference. No
store is needed: the history is read only when --history (SESHAT_STORE,
a config key) names one. --confirm re-runs both sides of a point, one
run of each in turn in alternating order. A KEY or VALUE not in the
results exits 4, listing the values there are; a side without a complete
run exits 3.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("threshold") {
				o.Params.ZThreshold, o.Params.ChangePercent = threshold, threshold
			}
			if f := g.settings.File; f != nil && f.File.Regression.Enabled != nil {
				o.Disabled = !*f.File.Regression.Enabled
			}
			if f := g.settings.File; f != nil {
				o.Rerun.ExecutorConfig = f.File.Executor
			}
			o.Rerun.Cluster = g.settings.Cluster
			o.HistoryGiven = cmd.Flags().Changed("history")
			g.credentials(&o.Connection)
			return pipeline.Regression(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "results directory of the current runs (parsed, cached)")
	f.StringVar(&o.LTSFile, "lts", "", "LTS file of the current runs (parse --output-lts)")
	f.StringVar(&o.Workload, "workload", "", "parse every entry with this workload instead of its `workload` setting")
	f.StringVar(&o.Filters, "filters", "", "select current entries by setting: key=v1:v2,key2=v (values read as YAML: 512 matches the number)")
	addNoCacheFlag(f, &o.NoCache)
	f.StringVar(&o.History, "history", lts.DefaultStoreURL, "history store: sqlite:PATH or http(s)://host:port (OpenSearch); unset, the store uploads go to (SESHAT_STORE, lts.store)")
	f.StringVar(&o.Method, "method", analyze.DefaultMethod, "method: shift (a shift that persists over recent builds, against every level the history visits), segment (the current build against the latest stable segment of its history), edivisive, perfherder, window, zscore, mannwhitney or threshold")
	f.IntVar(&o.Params.WindowLen, "window-len", analyze.DefaultWindowLen, "edivisive: points per window")
	f.Float64Var(&o.Params.MaxPValue, "max-pvalue", analyze.DefaultMaxPValue, "edivisive: largest p-value of a change kept")
	f.Float64Var(&o.Params.MinMagnitude, "min-magnitude", 0, "edivisive: smallest relative change kept (0.05 = 5%)")
	f.Float64Var(&threshold, "threshold", 0, "zscore: |z| limit (default 3); threshold: change in percent (default 10)")
	f.Float64Var(&o.Gate.FDR, "fdr", analyze.DefaultFDR, "false discovery rate controlled across every entry x KPI of the analysis (Benjamini-Hochberg)")
	f.Float64Var(&o.Gate.MinEffect, "min-effect", analyze.DefaultMinEffect, "smallest change in percent that counts as a finding")
	f.Float64Var(&o.Gate.NoiseFactor, "noise-factor", analyze.DefaultNoiseFactor, "a finding must also exceed this many times the series' own noise")
	f.Float64Var(&o.Gate.MaxNoise, "max-noise", analyze.DefaultMaxNoise, "a KPI that could not see a change of this many percent is noisy, not ok")
	// Set by a flag, the environment or seshat.yaml, a key list overrides
	// the workload's default, even when empty; unset, it stays nil.
	f.StringSliceVar(&o.Keys.ComparisonKeys, "comparison-keys", nil, "labels telling history points apart (default: the workload's)")
	f.StringSliceVar(&o.Keys.IgnoredKeys, "ignored-keys", nil, "labels left out of the series key (default: the workload's)")
	f.StringSliceVar(&o.Keys.SortingKeys, "sorting-keys", nil, "labels ordering the report's entries (default: the workload's)")
	f.StringArrayVar(&o.Keys.IgnoredEntries, "ignored-entries", nil, "skip runs matching label=v1:v2,label2=v (repeat for several)")
	f.Var(confirmValue{&o.Confirm, &o.ConfirmAuto}, "confirm", "before failing, re-run the matrix points of the failing findings and suspects this many more times (each time as many runs as they had) and judge on all the runs; auto: in rounds while a result is suspect or noisy for want of runs, within --budget and --max-rounds")
	f.DurationVar(&o.Budget, "budget", pipeline.DefaultConfirmBudget, "--confirm auto: start no round that would end past this time since the first")
	f.IntVar(&o.MaxRounds, "max-rounds", pipeline.DefaultConfirmRounds, "--confirm auto: at most this many rounds")
	f.StringVar(&o.Benchmark, "benchmark", "", "--confirm: the benchmark file of the current runs (default: the one their config.yaml names)")
	f.StringVar(&o.Rerun.Executor, "executor", executors.Default, "--confirm: where the points run again: local, slurm or kubernetes (the executor section of seshat.yaml)")
	f.DurationVar(&o.Rerun.Timeout, "timeout", 0, "--confirm: kill every process of a run after this long (0: no limit)")
	f.StringVar(&o.Rerun.Python, "python", "", "--confirm: Python interpreter of the numpy and torch PIs")
	f.StringVar(&o.Baseline, "baseline", "", "A/B in one job: judge every other value of this label in the current runs against the runs of KEY=VALUE (a hierarchical bootstrap), not against history; the history, if given, is context")
	f.StringVar(&o.Ack, "ack", "", "YAML or JSON file of acknowledged regressions: [{test_uuid or comparison, kpi, reason}]")
	f.StringVar(&o.ReportDir, "report-dir", pipeline.DefaultRegressionReportDir, "directory of the reports")
	f.StringVar(&o.ReportsIndex, "reports-index", "", "reports_index.html of seshat visualize the HTML report links back to (default: one in the parent of --report-dir, else in a directory beside it, if there)")
	f.BoolVar(&o.FailOnRegression, "fail-on-regression", true, "exit 2 on an unacknowledged regression")
	f.BoolVar(&o.FailOnImprovement, "fail-on-improvement", false, "exit 2 on an unacknowledged improvement too")
	f.BoolVar(&o.AllowNoHistory, "allow-no-history", false, "pass when no result had history (a first run) instead of exiting 3")
	f.BoolVar(&o.StoreResults, "store-results", false, "store every result (status, change, builds compared) in the history store, where seshat serve lists the alerts and their triage")
	f.StringVar(&o.KPIFilter, "kpi-filter", "", "analyse only the KPIs whose name contains this")
	f.IntVar(&o.BatchValues, "batch-values", 0, "values of one label asked in one history query (1: one query per series)")
	_ = f.MarkHidden("batch-values")
	addConnectionFlags(f, &o.Connection)
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	config.BindKey(f, "history", "regression_analyses.history")
	// Without one of its own, the history is the store uploads go to.
	config.BindFallback(f, "history", config.EnvName("store"), "lts.store")
	config.BindKey(f, "method", "regression_analyses.method")
	config.BindKey(f, "window-len", "regression_analyses.window_len")
	config.BindKey(f, "max-pvalue", "regression_analyses.max_pvalue")
	config.BindKey(f, "min-magnitude", "regression_analyses.min_magnitude")
	config.BindKey(f, "fdr", "regression_analyses.fdr")
	config.BindKey(f, "min-effect", "regression_analyses.min_effect")
	config.BindKey(f, "noise-factor", "regression_analyses.noise_factor")
	config.BindKey(f, "max-noise", "regression_analyses.max_noise")
	config.BindKey(f, "comparison-keys", "regression_analyses.comparison_keys")
	config.BindKey(f, "ignored-keys", "regression_analyses.ignored_keys")
	config.BindKey(f, "sorting-keys", "regression_analyses.sorting_keys")
	config.BindKey(f, "ignored-entries", "regression_analyses.ignored_entries")
	config.BindKey(f, "confirm", "regression_analyses.confirm")
	config.BindKey(f, "budget", "regression_analyses.budget")
	config.BindKey(f, "max-rounds", "regression_analyses.max_rounds")
	config.BindKey(f, "benchmark", "run.benchmark")
	config.BindKey(f, "executor", "executor.name")
	config.BindKey(f, "timeout", "run.timeout")
	config.BindKey(f, "python", "run.python")
	config.BindKey(f, "baseline", "regression_analyses.baseline")
	config.BindKey(f, "ack", "regression_analyses.ack")
	config.BindKey(f, "report-dir", "regression_analyses.report_dir")
	config.BindKey(f, "reports-index", "regression_analyses.reports_index")
	config.BindKey(f, "fail-on-regression", "regression_analyses.fail_on_regression")
	config.BindKey(f, "fail-on-improvement", "regression_analyses.fail_on_improvement")
	config.BindKey(f, "allow-no-history", "regression_analyses.allow_no_history")
	config.BindKey(f, "store-results", "regression_analyses.store_results")
	return cmd
}

// confirmValue is --confirm: a number of rounds, or auto.
type confirmValue struct {
	n    *int
	auto *bool
}

func (v confirmValue) String() string {
	if v.auto != nil && *v.auto {
		return "auto"
	}
	if v.n == nil {
		return "0"
	}
	return strconv.Itoa(*v.n)
}

func (v confirmValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "auto") {
		*v.n, *v.auto = 0, true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want auto or a whole number of rounds, 0 or more")
	}
	*v.n, *v.auto = n, false
	return nil
}

func (v confirmValue) Type() string { return "N or auto" }
