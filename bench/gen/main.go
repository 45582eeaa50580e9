// Command gen writes a synthetic results tree that follows the artifact
// directory contract (docs/artifacts.md), with realistic file sizes, for
// benchmarking parse, upload, regression and visualization at scale.
//
//	go run ./bench/gen -runs 10000 -out /tmp/results
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

func main() {
	runs := flag.Int("runs", 10000, "number of run directories")
	out := flag.String("out", "bench/out/results", "results directory to create")
	expes := flag.Int("expes", 10, "number of experiments")
	samples := flag.Int("samples", 200, "timed repetitions per run (pi.json size)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := generate(*out, *runs, *expes, *samples, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var sizes = []int{64, 128, 256, 512, 1024, 2048, 4096}

func generate(out string, runs, expes, samples int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	hw := pitest.HWInfo("go1.26.8")
	hwData, err := json.MarshalIndent(hw, "", "  ")
	if err != nil {
		return err
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	perExpe := (runs + expes - 1) / expes
	n := 0
	for e := 0; e < expes && n < runs; e++ {
		expe := fmt.Sprintf("expe_%02d", e)
		edir := filepath.Join(out, expe)
		if err := os.MkdirAll(edir, 0o755); err != nil {
			return err
		}
		backend := []string{"gonum", "numpy"}[e%2]
		parent := fmt.Sprintf("workload: pi\nexpe: %s\npi: matmul\nbackend: %s\ndevice: cpu\nwarmup: 5\n", expe, backend)
		if err := os.WriteFile(filepath.Join(edir, "settings.expe.yaml"), []byte(parent), 0o644); err != nil {
			return err
		}
		for i := 0; i < perExpe && n < runs; i, n = i+1, n+1 {
			size := sizes[i%len(sizes)]
			dtype := []string{"float32", "float64"}[(i/len(sizes))%2]
			repeat := i / (2 * len(sizes))
			dir := filepath.Join(edir, fmt.Sprintf("%03d__matrix_size=%d_dtype=%s", i, size, dtype))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			t0 := start.Add(time.Duration(n) * time.Minute)
			if err := writeRun(dir, rng, hwData, backend, size, dtype, repeat, samples, t0); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeRun(dir string, rng *rand.Rand, hwData []byte, backend string, size int, dtype string, repeat, samples int, t0 time.Time) error {
	settings := fmt.Sprintf("matrix_size: %d\ndtype: %s\nrepetitions: %d\n\"@repeat\": %d\n", size, dtype, samples, repeat)
	pi := pitest.MatmulResult(rng, backend, dtype, size, samples, map[string]string{backend: "0.15.1", "go": "go1.26.8"})
	usage := models.Usage{Start: t0, End: t0.Add(2 * time.Second), WallSeconds: 2,
		Rusage: models.Rusage{UtimeSeconds: 1.9, StimeSeconds: 0.05, MaxRSSBytes: 64 << 20, Minflt: 12000, Nvcsw: 40, Nivcsw: 12}}
	files := map[string][]byte{
		"settings.yaml": []byte(settings),
		".uuid":         []byte(uuid.Must(uuid.NewRandomFromReader(rngReader{rng})).String() + "\n"),
		"config.yaml":   []byte("workload: pi\npi: matmul\nbackend: " + backend + "\nmatrix_size: [64, 128, 256, 512, 1024, 2048, 4096]\ndtype: [float32, float64]\nrepeat: 3\n"),
		"hwinfo.json":   hwData,
		"stdout.log":    []byte(strings.Repeat("matmul iteration done\n", 20)),
		"stderr.log":    nil,
	}
	var err error
	if files["pi.json"], err = json.MarshalIndent(pi, "", "  "); err != nil {
		return err
	}
	if files["usage.json"], err = json.MarshalIndent(usage, "", "  "); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "exit_code"), []byte("0\n"), 0o644)
}

type rngReader struct{ r *rand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.r.Uint32())
	}
	return len(p), nil
}
