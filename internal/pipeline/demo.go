package pipeline

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

//go:embed demodata/benchmark.yaml
var demoBenchmark []byte

// DemoOptions are the options of `seshat demo`.
type DemoOptions struct {
	// Workdir receives everything; running the demo again in the same
	// directory appends to its history.
	Workdir string
	// Now stamps this demo's run directory (time.Now when zero).
	Now time.Time
}

// Demo runs the whole job on one machine with no server: two stacks of
// gonum PIs, parsed, uploaded to the embedded store, analysed for
// regressions against that history, and drawn as reports. It fails only on
// errors: a regression found is reported, not an exit status.
func Demo(ctx context.Context, env Env, opts DemoOptions) error {
	if opts.Workdir == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--workdir is required")
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	work, err := filepath.Abs(opts.Workdir)
	if err != nil {
		return err
	}
	this := filepath.Join(work, "runs", now.UTC().Format("20060102T150405Z"))
	for i := 2; ; i++ { // two demos in one second get directories of their own
		if _, err := os.Stat(this); errors.Is(err, fs.ErrNotExist) {
			break
		}
		this = filepath.Join(work, "runs", fmt.Sprintf("%s-%d", now.UTC().Format("20060102T150405Z"), i))
	}
	d := demo{
		env:       env,
		benchmark: filepath.Join(work, "benchmark.yaml"),
		store:     "sqlite:" + filepath.Join(work, "lts.db"),
		this:      this,
		stackA:    filepath.Join(this, "results", "stack_a"),
		stackB:    filepath.Join(this, "results", "stack_b"),
		reports:   filepath.Join(this, "reports"),
		report:    filepath.Join(this, DefaultRegressionReportDir),
	}
	if err := os.MkdirAll(this, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := atomicfile.WriteFile(d.benchmark, demoBenchmark, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"run stack A (float32)", func(ctx context.Context) error { return d.run(ctx, "stack_a", d.stackA) }},
		{"upload stack A to the embedded store", func(ctx context.Context) error { return d.upload(ctx, d.stackA) }},
		{"run stack B (float64)", func(ctx context.Context) error { return d.run(ctx, "stack_b", d.stackB) }},
		{"regression analysis of stack B against the history", d.regression},
		{"upload stack B", func(ctx context.Context) error { return d.upload(ctx, d.stackB) }},
		{"reports", d.visualize},
	}
	for i, s := range steps {
		env.Log.Info(fmt.Sprintf("demo step %d/%d: %s", i+1, len(steps), s.what))
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("demo step %q: %w", s.what, err)
		}
	}
	fmt.Fprintf(env.Stdout, `
Seshat demo done. Everything is under %s:
  benchmark file     %s
  run directories    %s
  LTS store          %s (history grows each time the demo runs)
  regression report  %s
  reports            %s
Try: seshat history --store %s
`, work, d.benchmark, filepath.Join(this, "results"), d.store,
		filepath.Join(d.report, "regression_report.html"), filepath.Join(d.reports, "reports_index.html"), d.store)
	return nil
}

type demo struct {
	env                                    Env
	benchmark, store, this, stackA, stackB string
	reports, report                        string
}

func (d demo) run(ctx context.Context, expe, dir string) error {
	return Run(ctx, d.env, RunOptions{Benchmark: d.benchmark, ResultsDir: dir, Expe: []string{expe}})
}

func (d demo) upload(ctx context.Context, dir string) error {
	return Upload(ctx, d.env, UploadOptions{ResultsDir: dir, Store: d.store})
}

// visualize draws the reports; their index links to the regression
// report beside them (found there, as it would be in CI).
func (d demo) visualize(ctx context.Context) error {
	return Visualize(ctx, d.env, VisualizeOptions{
		ResultsDir: filepath.Join(d.this, "results"),
		History:    d.store,
		BatchKey:   "dtype",
		OutputDir:  d.reports,
	})
}

// regression judges stack B against the history: the stored stack A runs
// (and every earlier demo) with dtype as the comparison key, batch
// against batch with Mann-Whitney, as the repeats of each point allow. The
// demo shows a regression; it does not fail on it. Its report links to
// the reports index the last step writes.
func (d demo) regression(ctx context.Context) error {
	return Regression(ctx, d.env, RegressionOptions{
		ResultsDir:   d.stackB,
		History:      d.store,
		Method:       "mannwhitney",
		Keys:         regression.Keys{ComparisonKeys: []string{"dtype"}},
		ReportDir:    d.report,
		ReportsIndex: filepath.Join(d.reports, "reports_index.html"),
	})
}
