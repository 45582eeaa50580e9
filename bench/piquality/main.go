// Command piquality measures how repeatable a PI is: it runs one matrix
// point N times as separate runs of `seshat run` (one child process each,
// as in real use) and reports the coefficient of variation of the rate
// across the runs and the wall time of each run.
//
//	go run ./bench/piquality -seshat bench/out/seshat            # gonum matmul 256 float64, auto
//	go run ./bench/piquality -seshat ... -backend numpy -size 512
//
// The targets of issue 3 (CV <= 2%, <= 10 s per run) are printed with the
// verdict; the exit status is 0 either way: this is a measurement, not a test.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/seshat-bench/seshat/models"
)

func main() {
	var (
		seshat     = flag.String("seshat", "seshat", "the seshat executable")
		out        = flag.String("out", "bench/out/piquality", "working directory (its results are replaced)")
		runs       = flag.Int("runs", 10, "separate runs of the point")
		backend    = flag.String("backend", "gonum", "PI backend")
		size       = flag.Int("size", 256, "matrix_size")
		dtype      = flag.String("dtype", "float64", "dtype")
		reps       = flag.String("repetitions", "auto", "repetitions: a count or auto")
		targetCI   = flag.Float64("target-ci", 0.01, "target_ci of the auto mode")
		maxSeconds = flag.Float64("max-seconds", 10, "max_seconds of the auto mode")
		threads    = flag.Int("threads", 0, "threads setting (0: the backend's default)")
		cvTarget   = flag.Float64("cv-target", 0.02, "target CV of the rate across runs")
		timeTarget = flag.Duration("time-target", 10*time.Second, "target wall time per run")
	)
	flag.Parse()
	if err := run(*seshat, *out, *runs, *backend, *size, *dtype, *reps, *targetCI, *maxSeconds, *threads, *cvTarget, *timeTarget); err != nil {
		fmt.Fprintln(os.Stderr, "piquality:", err)
		os.Exit(1)
	}
}

func run(seshat, out string, runs int, backend string, size int, dtype, reps string, targetCI, maxSeconds float64, threads int, cvTarget float64, timeTarget time.Duration) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	results := filepath.Join(out, "results")
	if err := os.RemoveAll(results); err != nil {
		return err
	}
	bench := fmt.Sprintf(`expe:
  quality:
    pi: matmul
    backend: %s
    matrix_size: %d
    dtype: %s
    repetitions: %s
    target_ci: %g
    max_seconds: %g
    repeat: %d
`, backend, size, dtype, reps, targetCI, maxSeconds, runs)
	if threads > 0 {
		bench += fmt.Sprintf("    threads: %d\n", threads)
	}
	benchFile := filepath.Join(out, "benchmark.yaml")
	if err := os.WriteFile(benchFile, []byte(bench), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(seshat, "run", "--benchmark", benchFile, "--results-dir", results)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("seshat run: %w", err)
	}

	dirs, err := filepath.Glob(filepath.Join(results, "quality", "*__*"))
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	var rates, walls []float64
	fmt.Printf("\n%-4s %10s %11s %9s %8s %8s %8s %8s\n", "run", "GFLOPS", "median ms", "CI ±%", "samples", "CV %", "slow %", "wall s")
	for i, d := range dirs {
		var pi models.PIResult
		var u models.Usage
		if err := readJSON(filepath.Join(d, "pi.json"), &pi); err != nil {
			return err
		}
		if err := readJSON(filepath.Join(d, "usage.json"), &u); err != nil {
			return err
		}
		r := pi.Result
		if r.Rate == nil {
			return fmt.Errorf("%s: no rate", d)
		}
		half := 100 * max(r.Elapsed-r.CI95Low, r.CI95High-r.Elapsed) / r.Elapsed
		fmt.Printf("%-4d %10.3f %11.4f %9.2f %8d %8.2f %8.1f %8.2f\n", i, *r.Rate, r.Elapsed, half, len(r.SamplesMs), 100*r.CV, 100*slowShare(r.SamplesMs), u.WallSeconds)
		rates = append(rates, *r.Rate)
		walls = append(walls, u.WallSeconds)
	}
	mean, std := stat.MeanStdDev(rates, nil)
	cv := std / mean
	sort.Float64s(walls)
	wmean := stat.Mean(walls, nil)
	fmt.Printf("\n%s matmul %d %s, repetitions %s, %d runs on %d CPUs\n", backend, size, dtype, reps, len(rates), numCPU())
	fmt.Printf("rate: mean %.3f GFLOPS, min %.3f, max %.3f, CV across runs %.2f%% (target <= %.0f%%: %s)\n",
		mean, minOf(rates), maxOf(rates), 100*cv, 100*cvTarget, verdict(cv <= cvTarget))
	fmt.Printf("time per run: mean %.2f s, max %.2f s (target <= %s: %s)\n",
		wmean, walls[len(walls)-1], timeTarget, verdict(walls[len(walls)-1] <= timeTarget.Seconds()))
	explainOutliers(rates)
	return nil
}

// slowShare is the share of samples more than 25% slower than the run's
// fastest tenth: the time a run spent in the host's slow phases, when its
// samples fall in two levels rather than spreading around one.
func slowShare(samples []float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	fast := stat.Quantile(0.1, stat.Empirical, s, nil)
	slow := 0
	for _, x := range s {
		if x > 1.25*fast {
			slow++
		}
	}
	return float64(slow) / float64(len(s))
}

// explainOutliers names the runs whose rate is far below the others': on a
// shared machine they are the runs the host ran in a slow phase (their
// "slow %" says so), which no change to the PI removes. The verdict above
// counts them; the CV without them is printed beside, for the record.
func explainOutliers(rates []float64) {
	sorted := append([]float64(nil), rates...)
	sort.Float64s(sorted)
	median := stat.Quantile(0.5, stat.Empirical, sorted, nil)
	var kept []float64
	var low []string
	for i, r := range rates {
		if r < 0.85*median {
			low = append(low, fmt.Sprintf("%d (%.3f)", i, r))
		} else {
			kept = append(kept, r)
		}
	}
	if len(low) == 0 || len(kept) < 2 {
		return
	}
	mean, std := stat.MeanStdDev(kept, nil)
	fmt.Printf("runs more than 15%% below the median rate: %s; without them the CV is %.2f%%\n", strings.Join(low, ", "), 100*std/mean)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}
