package store

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

var benchRuns = flag.Int("bench-runs", 2000, "runs in the tree BenchmarkLoad parses")

// benchTree writes n complete runs in experiments of 100, settings split
// between the experiment and the run as TOPSAIL writes them.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	tree := map[string]string{}
	payload := strings.Repeat(`{"rate": 412.7, "samples_ms": [0.651, 0.649, 0.650]}`+"\n", 40) // ~2 KiB
	for i := range n {
		exp := fmt.Sprintf("expe%03d", i/100)
		tree[exp+"/settings.expe.yaml"] = "workload: fake\nframework: numpy\nframework_version: 1.24.2\n"
		r := fmt.Sprintf("%s/%03d__matmul", exp, i%100)
		tree[r+"/settings.yaml"] = fmt.Sprintf("pi: matmul\nsize: %d\ndtype: float32\ndevice: cpu\n\"@repeat\": %d\n", 64<<(i%5), i%3)
		tree[r+"/exit_code"] = "0\n"
		tree[r+"/result.txt"] = payload
	}
	writeTree(b, dir, tree)
	return dir
}

// BenchmarkLoad times a cold and a cached parse; cached also reports the
// CPU time a parse costs (cpu-ns/op), which a busy host changes less than
// the wall time. On Linux, -tags seshat_portabledir measures the cached
// parse with package os instead of dirfd_linux.go's raw system calls.
func BenchmarkLoad(b *testing.B) {
	dir := benchTree(b, *benchRuns)
	p := newFake()
	opts := Options{ResultsDir: dir, Lookup: lookup(p)}
	b.Run("cold", func(b *testing.B) {
		opts := opts
		opts.NoCache = true
		for b.Loop() {
			if _, err := Load(context.Background(), opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		if _, err := Load(context.Background(), opts); err != nil { // fill the caches
			b.Fatal(err)
		}
		cpu := cpuTime()
		for b.Loop() {
			m, err := Load(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			if s := m.Stats(); s.Cached != s.Entries {
				b.Fatalf("not all cached: %v", s)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkVariables times the matrix's variables over 10,000 entries whose
// settings repeat a few values each, as a results tree's do: computed after
// the parallel parse, on one core.
func BenchmarkVariables(b *testing.B) {
	entries := make([]*Entry, 10000)
	for i := range entries {
		entries[i] = &Entry{Settings: models.Settings{
			"workload": "pi", "expe": fmt.Sprintf("expe_%02d", i/1000), "pi": "matmul", "backend": "gonum",
			"device": "cpu", "warmup": 5, "matrix_size": 64 << (i % 6), "dtype": []string{"float32", "float64"}[i%2],
			"repetitions": 200, "@repeat": i % 3,
		}}
	}
	b.ReportAllocs()
	for b.Loop() {
		Variables(entries)
	}
}
