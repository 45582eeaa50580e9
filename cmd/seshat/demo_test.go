package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/runner/host"
)

// demoRound is one `seshat demo` and what it left behind it: its output,
// the run directories of the work directory, and the payloads its store
// held with the run directories they came from.
type demoRound struct {
	res    result
	runs   []string
	stored int64
	made   int
	err    error
}

// demoSizes and smallDemoSizes: the demo's matrix sizes, and those TestDemo
// runs it with. The 512 x 512 products take most of the demo's time (about
// 60 CPU seconds for two demos), the 256 x 256 ones still a quarter of
// TestDemo's CPU (23 CPU seconds with 96, 128 and 256; 18 with 48, 64 and
// 96, a run then costing about what starting `seshat pi` does); at every
// size from 48 to 512 float64 does 55-65% of float32's GFLOPS, the
// regression the test expects, and three sizes keep the demo's 15 points a
// stack (60 runs a demo).
const (
	demoSizes      = "matrix_size: [128, 256, 512]"
	smallDemoSizes = "matrix_size: [48, 64, 96]"
)

// smallDemo returns the demo's benchmark with smallDemoSizes; nil when it
// no longer sets demoSizes in both stacks.
func smallDemo() []byte {
	demo, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil || strings.Count(string(demo), demoSizes) != 2 {
		return nil
	}
	return []byte(strings.ReplaceAll(string(demo), demoSizes, smallDemoSizes))
}

// runDemos runs the demo twice in work, as TestDemo checks it, stopping at
// a demo that fails. The demo runs smallDemoSizes when smallDemo can set
// them (TestDemo fails otherwise).
func runDemos(work string) []demoRound {
	demoBenchmark = smallDemo()
	var rounds []demoRound
	for range 2 {
		r := demoRound{res: runCommand(nil, os.Environ(), host.Host{}, "demo", "--workdir", work)}
		if r.res.code == 0 {
			r.runs, r.err = filepath.Glob(filepath.Join(work, "runs", "*"))
			var made []string
			if r.err == nil {
				made, r.err = filepath.Glob(filepath.Join(work, "runs", "*", "results", "*", "*", "*__*"))
				r.made = len(made)
			}
			if r.err == nil {
				var s lts.Store
				if s, r.err = lts.Open(context.Background(), "sqlite:"+filepath.Join(work, "lts.db"), lts.StoreOptions{}); r.err == nil {
					r.stored, r.err = s.Count(context.Background(), lts.Query{})
					s.Close()
				}
			}
		}
		rounds = append(rounds, r)
		if r.res.code != 0 {
			break
		}
	}
	return rounds
}

// demos is a work directory and the demos run in it.
type demos struct {
	work   string
	rounds []demoRound
}

// earlyDemo receives the demos TestMain started before the other tests
// when the whole package runs: the two demos are the package's longest
// test, and a parallel test begins only once every sequential one has
// ended. Nil when TestDemo runs them itself.
var earlyDemo chan demos

// startDemoEarly starts the demos in a directory of their own when the
// whole package runs (no -run, -skip, -list or -short), and returns the
// directory to remove once the tests are done ("" when it started none).
func startDemoEarly() string {
	flag.Parse()
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return ""
		}
	}
	if testing.Short() {
		return ""
	}
	dir, err := os.MkdirTemp("", "seshat-demo-test")
	if err != nil {
		return ""
	}
	work := filepath.Join(dir, "demo")
	earlyDemo = make(chan demos, 1)
	go func() { earlyDemo <- demos{work: work, rounds: runDemos(work)} }()
	return dir
}

// TestDemo runs the whole job as a newcomer would, twice in one work
// directory: each run exits 0, writes the reports it names, and the second
// appends to the history the first stored.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 120 PIs")
	}
	t.Parallel()
	if smallDemo() == nil {
		t.Fatalf("examples/demo.yaml no longer sets %q in both stacks: update TestDemo", demoSizes)
	}
	var d demos
	if earlyDemo != nil {
		d = <-earlyDemo
		earlyDemo <- d // for the next -count
	} else {
		d.work = filepath.Join(t.TempDir(), "demo")
		d.rounds = runDemos(d.work)
	}
	work := d.work
	counts := []int64{}
	for i, round := range d.rounds {
		res := round.res
		if res.code != 0 {
			t.Fatalf("demo %d: exit %d\nstderr:\n%s", i+1, res.code, res.stderr)
		}
		if round.err != nil {
			t.Fatalf("demo %d: %v", i+1, round.err)
		}
		for _, want := range []string{"Seshat demo done", "regression_report.html", "reports_index.html", "sqlite:" + filepath.Join(work, "lts.db")} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("demo %d: stdout lacks %q:\n%s", i+1, want, res.stdout)
			}
		}
		// The stdout table names every entry x KPI judged.
		if !strings.Contains(res.stdout, "rate_gflops") || !strings.Contains(res.stdout, "float64") {
			t.Errorf("demo %d: no regression table on stdout:\n%s", i+1, res.stdout)
		}
		// float64 does about half the GFLOPS of float32: against the three
		// nights of history that is a regression, or, on a host so busy
		// that its nights differ that much, noisy; never ok.
		rates := kpiRows(res.stdout, "rate_gflops")
		if len(rates) != 3 {
			t.Errorf("demo %d: %d rate_gflops results, want 3:\n%s", i+1, len(rates), res.stdout)
		}
		for _, row := range rates {
			if !regexp.MustCompile(` (regression|noisy) `).MatchString(row) {
				t.Errorf("demo %d: a float64 rate_gflops is not a regression (or noisy): %s\n%s", i+1, row, res.stdout)
			}
		}
		runs := round.runs
		if len(runs) != i+1 {
			t.Fatalf("demo %d: run directories %v", i+1, runs)
		}
		for _, f := range []string{"regression-report/regression_report.html", "regression-report/junit.xml", "regression-report/summary.md", "reports/reports_index.html", "reports/kpi_history.html"} {
			if _, err := os.Stat(filepath.Join(runs[i], f)); err != nil {
				t.Errorf("demo %d: %v", i+1, err)
			}
		}
		// The pages link each other: the index to the regression report
		// beside it, the report back to the index.
		for f, link := range map[string]string{"reports/reports_index.html": `href="../regression-report/regression_report.html"`,
			"regression-report/regression_report.html": `href="../reports/reports_index.html"`} {
			if data, err := os.ReadFile(filepath.Join(runs[i], f)); err != nil || !strings.Contains(string(data), link) {
				t.Errorf("demo %d: %s lacks %s (%v)", i+1, f, link, err)
			}
		}
		counts = append(counts, round.stored)
		// Every run of every demo so far is stored once: the 60 runs of a
		// demo and the re-runs its --confirm made (a busy host's suspects).
		if round.stored != int64(round.made) || round.made < 60*(i+1) {
			t.Errorf("demo %d: %d payloads stored, want one per run directory: %d (60 a demo and its re-runs)", i+1, round.stored, round.made)
		}
	}
	if len(d.rounds) != 2 {
		t.Errorf("%d demos ran, want 2", len(d.rounds))
	}
	t.Logf("stored payloads after each demo: %v", counts)
}
