package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/logging"
	"github.com/seshat-bench/seshat/lts"
	_ "github.com/seshat-bench/seshat/lts/sqlite" // the sqlite: store
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

var regressionBench struct {
	once        sync.Once
	store, file string
	err         error
}

// regressionBenchData is the benchmark's history, a SQLite store of
// 100,000 pi payloads (1,000 series x 10 framework versions x 10 runs),
// and its current runs, an LTS file of 1,000 payloads (one per series, 10
// planted regressions). Built once, in SESHAT_BENCH_DIR when set (kept
// between runs: it takes a while) else in a temporary directory.
func regressionBenchData(b *testing.B) (string, string) {
	r := &regressionBench
	r.once.Do(func() {
		dir := os.Getenv("SESHAT_BENCH_DIR")
		if dir == "" {
			if dir, r.err = os.MkdirTemp("", "seshat-bench-"); r.err != nil {
				return
			}
		}
		r.store = filepath.Join(dir, "regression-history-100k.db")
		r.file = filepath.Join(dir, "regression-current-1k.json")
		history, current := pitest.RegressionHistory(100000, 1000, 10, 7)
		f, err := os.Create(r.file)
		if err != nil {
			r.err = err
			return
		}
		if r.err = lts.WriteJSON(f, current, false); r.err != nil {
			return
		}
		if r.err = f.Close(); r.err != nil {
			return
		}
		s, err := lts.Open(context.Background(), "sqlite:"+r.store, lts.StoreOptions{})
		if err != nil {
			r.err = err
			return
		}
		defer s.Close()
		if n, err := s.Count(context.Background(), lts.Query{}); err == nil && n == int64(len(history)) {
			return
		}
		for i := 0; i < len(history) && r.err == nil; i += 10000 {
			_, r.err = s.Put(context.Background(), history[i:i+10000])
		}
	})
	if r.err != nil {
		b.Fatal(r.err)
	}
	return r.store, r.file
}

// BenchmarkRegression1000x100k is the target of issue 6: `seshat
// regression` for 1,000 current entries against a SQLite history of
// 100,000 payloads, reports written, within 5 s (ns/op). per-series asks
// the store once per series instead of once per varying label.
func BenchmarkRegression1000x100k(b *testing.B) {
	store, file := regressionBenchData(b)
	for _, bc := range []struct {
		name  string
		batch int
	}{{"batched", 0}, {"per-series", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			env := Env{Stdout: io.Discard, Stderr: io.Discard, Log: logging.Discard()}
			opts := RegressionOptions{LTSFile: file, History: "sqlite:" + store, ReportDir: b.TempDir(),
				FailOnRegression: true, BatchValues: bc.batch}
			for b.Loop() {
				// The planted drops are single runs of one build: suspects
				// (or regressions, were their runs to confirm them).
				if err := Regression(context.Background(), env, opts); err != nil && exitcode.Of(err) != exitcode.RegressionFound {
					b.Fatal(err)
				}
			}
			data, err := os.ReadFile(filepath.Join(opts.ReportDir, "regression_summary.json"))
			if err != nil {
				b.Fatal(err)
			}
			var s struct {
				Regressions int `json:"regressions"`
				Suspects    int `json:"suspects"`
			}
			if err := json.Unmarshal(data, &s); err != nil {
				b.Fatal(err)
			}
			if s.Regressions+s.Suspects < 20 {
				b.Fatalf("%d regressions and %d suspects, want the 20 planted drops (10 entries x 2 KPIs) flagged", s.Regressions, s.Suspects)
			}
		})
	}
}
