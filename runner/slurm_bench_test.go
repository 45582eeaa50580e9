package runner

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"
)

var slurmBenchPoints = flag.Int("slurm-points", 1000, "points of BenchmarkSlurmSubmitAndTrack")

// timeHandler records when the first record of a level arrives.
type timeHandler struct {
	mu    sync.Mutex
	first time.Time
}

func (h *timeHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *timeHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first.IsZero() && r.Level == slog.LevelInfo {
		h.first = time.Now()
	}
	return nil
}
func (h *timeHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *timeHandler) WithGroup(string) slog.Handler      { return h }

// BenchmarkSlurmSubmitAndTrack: the time to submit a matrix of trivial
// points (the helper exiting 0 at once) to the local single-node Slurm
// cluster and follow it to the end, per point; and the same matrix run by
// the local executor, for the cost of the points themselves.
//
//	go test -run '^$' -bench SlurmSubmitAndTrack -benchtime 1x ./runner
func BenchmarkSlurmSubmitAndTrack(b *testing.B) {
	c := slurmFor(b)
	n := *slurmBenchPoints
	src := fmt.Sprintf("expe:\n  e:\n    helper: exit 0\n    repeat: %d\n", n)
	for _, name := range []string{"slurm", "local"} {
		b.Run(name, func(b *testing.B) {
			var submit, total time.Duration
			for b.Loop() {
				opts := runOpts(b, b.TempDir(), src)
				h := &timeHandler{}
				if name == "slurm" {
					opts.Executor = &Slurm{Env: c.Env(), PollInterval: time.Second, Log: slog.New(h)}
				}
				start := time.Now()
				s, err := Run(context.Background(), opts)
				if err != nil || s.Succeeded != n {
					b.Fatalf("%+v %v", s, err)
				}
				total += time.Since(start)
				if !h.first.IsZero() {
					submit += h.first.Sub(start)
				}
			}
			b.ReportMetric(total.Seconds()/float64(b.N)/float64(n)*1e3, "ms/point")
			if name == "slurm" {
				b.ReportMetric(submit.Seconds()/float64(b.N), "s-to-submit")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
