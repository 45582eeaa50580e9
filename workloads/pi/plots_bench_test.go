package pi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// syntheticMatrix is n parsed matmul runs: two backends, seven sizes, two
// dtypes, repeats, as bench/gen writes them, without the parse.
func syntheticMatrix(n int) *store.Matrix {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{64, 128, 256, 512, 1024, 2048, 4096}
	m := &store.Matrix{ResultsDir: "bench"}
	exit0 := 0
	for i := range n {
		backend := []string{"gonum", "numpy"}[i%2]
		size := sizes[(i/2)%len(sizes)]
		dtype := []string{"float32", "float64"}[(i/14)%2]
		rate := 50 * (1 + 0.02*rng.NormFloat64())
		if backend == "numpy" {
			rate *= 8
		}
		flops := 2 * float64(size*size*size)
		elapsed := flops / rate / 1e6
		m.Entries = append(m.Entries, &store.Entry{
			Path: fmt.Sprintf("expe/%05d", i), Workload: Name, Complete: true, ExitCode: &exit0,
			Settings: models.Settings{"workload": Name, "pi": "matmul", "backend": backend, "matrix_size": size, "dtype": dtype, "@repeat": i / 28},
			Results: &Results{PI: &models.PIResult{Component: backend, Name: "PiMatmul",
				Result: models.PIMeasurement{Rate: &rate, Elapsed: elapsed, FLOPs: &flops}}},
		})
	}
	return m
}

// BenchmarkAllReports10k draws every pi report for 10,000 runs (the parse
// excluded: bench/run.sh times the whole command).
func BenchmarkAllReports10k(b *testing.B) {
	m := syntheticMatrix(10000)
	job := plotting.Job{Generate: plots.Reports()}
	for b.Loop() {
		_, err := plotting.Generate(context.Background(), m, plotting.Options{
			OutputDir: b.TempDir(), Jobs: []plotting.Job{job}, Registries: []*plotting.Registry{plots},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
