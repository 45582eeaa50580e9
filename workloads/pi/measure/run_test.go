package measure

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// fakeTimer returns samples from gen and advances a fake clock by each one,
// so time budgets are tested without real time.
type fakeTimer struct {
	gen     func() float64
	clock   time.Time
	warmups int
	calls   []int
}

func (f *fakeTimer) now() time.Time { return f.clock }

func (f *fakeTimer) Warmup(_ context.Context, n int) error {
	f.warmups += n
	for range n {
		f.clock = f.clock.Add(time.Duration(f.gen() * float64(time.Millisecond)))
	}
	return nil
}

func (f *fakeTimer) Time(_ context.Context, n int) ([]float64, error) {
	f.calls = append(f.calls, n)
	out := make([]float64, n)
	for i := range out {
		out[i] = f.gen()
		f.clock = f.clock.Add(time.Duration(out[i] * float64(time.Millisecond)))
	}
	return out, nil
}

func TestRunFixed(t *testing.T) {
	t.Parallel()
	ft := &fakeTimer{gen: func() float64 { return 2 }}
	res, err := Run(context.Background(), ft, Plan{Warmup: 5, Repetitions: 30, Now: ft.now})
	if err != nil {
		t.Fatal(err)
	}
	if ft.warmups != 5 {
		t.Errorf("warm-up ran %d operations, want 5", ft.warmups)
	}
	if len(res.Samples) != 30 || res.Stats.Median != 2 || !res.Converged {
		t.Errorf("got %d samples, median %v, converged %v", len(res.Samples), res.Stats.Median, res.Converged)
	}
	if res.Duration != 60*time.Millisecond {
		t.Errorf("duration %v, want 60ms", res.Duration)
	}
}

func TestRunAuto(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		gen       func(r *rand.Rand) float64
		plan      Plan
		converged bool
		check     func(t *testing.T, res Result, ft *fakeTimer)
	}{
		{
			name:      "stable operation stops at the minimum count",
			gen:       func(*rand.Rand) float64 { return 1 },
			plan:      Plan{Auto: true, BatchDuration: time.Millisecond},
			converged: true,
			check: func(t *testing.T, res Result, _ *fakeTimer) {
				if len(res.Samples) != DefaultMinRepetitions {
					t.Errorf("%d samples, want %d", len(res.Samples), DefaultMinRepetitions)
				}
			},
		},
		{
			name:      "noisy operation runs until the interval is within target",
			gen:       func(r *rand.Rand) float64 { return 10 + r.NormFloat64() },
			plan:      Plan{Auto: true, TargetCI: 0.01},
			converged: true,
			check: func(t *testing.T, res Result, _ *fakeTimer) {
				if hw := res.Stats.HalfWidth(); hw > 0.01 {
					t.Errorf("half width %v > target", hw)
				}
				if len(res.Samples) < 50 {
					t.Errorf("only %d samples for a 10%% spread and a 1%% target", len(res.Samples))
				}
			},
		},
		{
			name:      "an impossible target stops at the time budget",
			gen:       func(r *rand.Rand) float64 { return 1 + 99*r.Float64() },
			plan:      Plan{Auto: true, TargetCI: 1e-9, MaxDuration: 2 * time.Second},
			converged: false,
			check: func(t *testing.T, res Result, _ *fakeTimer) {
				// At most one sample (<= 100ms) past the budget, and not far below it.
				if res.Duration > 2080*time.Millisecond || res.Duration < 1780*time.Millisecond {
					t.Errorf("timed phase %v, want about the 2s budget", res.Duration)
				}
			},
		},
		{
			name:      "the warm-up counts in the budget",
			gen:       func(r *rand.Rand) float64 { return 1 + r.Float64() },
			plan:      Plan{Auto: true, TargetCI: 1e-9, MaxDuration: 2 * time.Second, Warmup: 700},
			converged: false,
			check: func(t *testing.T, res Result, _ *fakeTimer) {
				// 700 warm-up operations of ~1.5ms leave ~0.95s of the 2s.
				if res.Duration > 1100*time.Millisecond || res.Duration < 800*time.Millisecond {
					t.Errorf("timed phase %v, want what the warm-up left of the budget", res.Duration)
				}
			},
		},
		{
			name:      "MaxRepetitions caps the count",
			gen:       func(r *rand.Rand) float64 { return 1 + r.Float64() },
			plan:      Plan{Auto: true, TargetCI: 1e-9, MaxDuration: time.Hour, MaxRepetitions: 500},
			converged: false,
			check: func(t *testing.T, res Result, _ *fakeTimer) {
				if len(res.Samples) != 500 {
					t.Errorf("%d samples, want 500", len(res.Samples))
				}
			},
		},
		{
			name:      "an operation longer than the budget still gets MinRepetitions",
			gen:       func(*rand.Rand) float64 { return 5000 },
			plan:      Plan{Auto: true, MaxDuration: time.Second, MinRepetitions: 3},
			converged: false,
			check: func(t *testing.T, res Result, ft *fakeTimer) {
				if len(res.Samples) != 3 {
					t.Errorf("%d samples (batches %v), want 3", len(res.Samples), ft.calls)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, 2))
			ft := &fakeTimer{gen: func() float64 { return tc.gen(r) }}
			tc.plan.Now = ft.now
			res, err := Run(context.Background(), ft, tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			if res.Converged != tc.converged {
				t.Errorf("converged = %v, want %v (%d samples, half width %v)", res.Converged, tc.converged, len(res.Samples), res.Stats.HalfWidth())
			}
			tc.check(t, res, ft)
		})
	}
}

func TestFuncTimer(t *testing.T) {
	t.Parallel()
	calls := 0
	ft := FuncTimer(func() { calls++ })
	if err := ft.Warmup(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	s, err := ft.Time(context.Background(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 7 || len(s) != 4 {
		t.Errorf("calls %d, samples %d", calls, len(s))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ft.Time(ctx, 1); err == nil {
		t.Error("a cancelled context must stop the timing loop")
	}
}
