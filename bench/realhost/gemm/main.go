// Command gemm is a real workload for the exec PI, used by
// bench/realhost-series.sh: one sample times `units` products of two n×n
// float32 matrices with the gonum matmul PI's own kernel
// (kernels.Matmul, gonum's pure-Go Sgemm), on GOMAXPROCS=threads. A
// planted slowdown is an extra product inside the timed loop (units 10 ->
// 11 is 10% more work), never a scaled number; -extra K plants it as a
// change of the code would, K more products per sample with the same
// parameters (bench/realhost). It prints one pi.json document, as the
// exec PI expects:
//
//	gemm -n 256 -units 10 [-extra 0] [-repetitions 15] [-warmup 3] [-threads 1]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi/kernels"
	"github.com/seshat-bench/seshat/workloads/pi/measure"
)

func main() {
	n := flag.Int("n", 256, "matrix size")
	units := flag.Int("units", 10, "products per timed sample")
	extra := flag.Int("extra", 0, "products per timed sample beyond units, not reported: a planted slowdown of the code")
	reps := flag.Int("repetitions", 15, "timed samples")
	warmup := flag.Int("warmup", 3, "untimed samples first")
	threads := flag.Int("threads", 1, "GOMAXPROCS: goroutines of gonum's gemm")
	seed := flag.Uint64("seed", 1, "seed of the random inputs")
	flag.Parse()
	if *n < 1 || *units < 1 || *reps < 1 || *warmup < 0 || *threads < 1 || *extra < 0 {
		fmt.Fprintln(os.Stderr, "gemm: n, units, repetitions and threads must be >= 1, warmup and extra >= 0")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(*threads)
	m := kernels.NewMatmul[float32](*n, *seed)
	for range *warmup {
		for range *units + *extra {
			m.Run()
		}
	}
	samples := make([]float64, *reps)
	for i := range samples {
		t0 := time.Now()
		for range *units + *extra {
			m.Run()
		}
		samples[i] = float64(time.Since(t0).Nanoseconds()) / 1e6
	}
	st, err := measure.Summarize(samples)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gemm:", err)
		os.Exit(1)
	}
	doc := models.PIResult{
		Component: "gonum",
		Name:      "PiHostGemm",
		Parameters: map[string]any{"device": "cpu", "dtype": "float32", "matrix_size": *n, "units": *units,
			"repetitions": *reps, "warmup": *warmup, "threads": *threads, "seed": *seed},
		Result: models.PIMeasurement{Elapsed: st.Median, SamplesMs: samples,
			CI95Low: st.CILow, CI95High: st.CIHigh, CV: st.CV},
		Versions: map[string]string{"go": runtime.Version(), "gonum": gonumVersion()},
	}
	if err := json.NewEncoder(os.Stdout).Encode(doc); err != nil {
		fmt.Fprintln(os.Stderr, "gemm:", err)
		os.Exit(1)
	}
}

// gonumVersion is the version of gonum linked into this binary.
func gonumVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "gonum.org/v1/gonum" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
