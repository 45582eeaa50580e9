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
	"github.com/seshat-bench/seshat/runner"
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
	// Benchmark is the benchmark file the demo writes and runs: the one
	// it embeds (examples/demo.yaml) when nil. Tests give a smaller one.
	Benchmark []byte
}

// Demo runs the whole job on one machine with no server: three nightly
// builds of one stack of gonum PIs, each parsed and uploaded to the
// embedded store, then a second stack analysed for regressions against
// that history, and everything drawn as reports. It fails only on errors:
// a regression found is reported, not an exit status.
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
	benchmark := opts.Benchmark
	if benchmark == nil {
		benchmark = demoBenchmark
	}
	if err := atomicfile.WriteFile(d.benchmark, benchmark, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"run stack A (float32), night 1", func(ctx context.Context) error { return d.run(ctx, "stack_a", "night-1", d.stackA+"-night1") }},
		{"upload night 1 to the embedded store", func(ctx context.Context) error { return d.upload(ctx, d.stackA+"-night1") }},
		{"run stack A, night 2 (a build of its own)", func(ctx context.Context) error { return d.run(ctx, "stack_a", "night-2", d.stackA+"-night2") }},
		{"upload night 2", func(ctx context.Context) error { return d.upload(ctx, d.stackA+"-night2") }},
		{"run stack A, night 3", func(ctx context.Context) error { return d.run(ctx, "stack_a", "night-3", d.stackA+"-night3") }},
		{"upload night 3", func(ctx context.Context) error { return d.upload(ctx, d.stackA+"-night3") }},
		{"run stack B (float64)", func(ctx context.Context) error { return d.run(ctx, "stack_b", "stack-b", d.stackB) }},
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

// run runs one stack as an invocation of its own, a build of its own
// whatever the CI's environment or git say of the directory the demo runs
// in: the demo's history is its stacks, one build each, named as a team
// names its builds (night-1 ... stack-b, then the demo's start, which
// keeps each demo's builds apart in the history they share), so that every
// page and table shows which night a value came from, even cut short.
func (d demo) run(ctx context.Context, expe, name, dir string) error {
	b := runner.InvocationBuild("", time.Now())
	b.ID = name + "-" + filepath.Base(d.this)
	return Run(ctx, d.env, RunOptions{Benchmark: d.benchmark, ResultsDir: dir, Expe: []string{expe}, Build: &b})
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

// regression judges stack B against the history, the stored nights of
// stack A (and every earlier demo) with dtype as the comparison key, by
// the default method: a history point is a build. Stack B is one build at
// a new level: its runs confirm the drop on a quiet host, and two rounds of
// re-runs (--confirm 2) on a busy one, whose nights vary more than their
// runs. The demo shows a regression; it does not fail on it. Its report
// links to the reports index the last step writes.
func (d demo) regression(ctx context.Context) error {
	return Regression(ctx, d.env, RegressionOptions{
		ResultsDir:   d.stackB,
		History:      d.store,
		Confirm:      2,
		Benchmark:    d.benchmark,
		Keys:         regression.Keys{ComparisonKeys: []string{"dtype"}},
		ReportDir:    d.report,
		ReportsIndex: filepath.Join(d.reports, "reports_index.html"),
	})
}
