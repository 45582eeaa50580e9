package measure

import (
	"context"
	"errors"
	"fmt"
	"gonum.org/v1/gonum/stat"
	"math"
	"time"
)

// Timer runs the operation under measurement.
type Timer interface {
	// Warmup runs n operations without timing them.
	Warmup(ctx context.Context, n int) error
	// Time runs n operations and returns the duration of each, in
	// milliseconds, measured with a monotonic clock around that operation
	// alone (on a GPU, after synchronising the device).
	Time(ctx context.Context, n int) ([]float64, error)
}

// Plan says how many repetitions to run.
type Plan struct {
	// Warmup operations run untimed first.
	Warmup int
	// Repetitions is the fixed number of timed operations, unless Auto.
	Repetitions int
	// Auto repeats until the Confidence interval of the median lies within
	// TargetCI (relative) of the median, or until another sample would not
	// fit in MaxDuration, which counts from the start of the warm-up (so a
	// measurement never takes longer; it ends 1%, at most 100ms, early to
	// leave the process time to write its result); never fewer than
	// MinRepetitions nor more than MaxRepetitions.
	Auto           bool
	TargetCI       float64
	MaxDuration    time.Duration
	MinRepetitions int
	MaxRepetitions int
	// BatchDuration is roughly how much work runs between two checks of the
	// stopping rule (default 100ms): checking after every sample would make
	// the check itself part of what is measured for tiny operations.
	BatchDuration time.Duration
	// Now is the clock of the time budget; nil means time.Now.
	Now func() time.Time
}

// Defaults of the automatic mode.
const (
	DefaultTargetCI       = 0.01
	DefaultMaxDuration    = 10 * time.Second
	DefaultMinRepetitions = 6 // the fewest samples whose median CI reaches 95%
	DefaultMaxRepetitions = 100000
	defaultBatchDuration  = 100 * time.Millisecond
)

// Result is what Run measured.
type Result struct {
	Samples []float64
	Stats   Stats
	// Converged is true when Auto stopped because the interval was narrow
	// enough (always true for a fixed count).
	Converged bool
	// Duration is the wall time of the timed phase.
	Duration time.Duration
}

// Run warms the timer up, then collects samples per the plan.
func Run(ctx context.Context, t Timer, p Plan) (Result, error) {
	now := p.Now
	if now == nil {
		now = time.Now
	}
	budgetStart := now()
	if p.Warmup > 0 {
		if err := t.Warmup(ctx, p.Warmup); err != nil {
			return Result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	if !p.Auto {
		if p.Repetitions < 1 {
			return Result{}, errors.New("repetitions must be at least 1")
		}
		start := now()
		samples, err := t.Time(ctx, p.Repetitions)
		if err != nil {
			return Result{}, err
		}
		return finish(samples, true, now().Sub(start))
	}
	return runAuto(ctx, t, p, now, budgetStart)
}

func runAuto(ctx context.Context, t Timer, p Plan, now func() time.Time, budgetStart time.Time) (Result, error) {
	target := orDefault(p.TargetCI, DefaultTargetCI)
	maxDur := p.MaxDuration
	if maxDur <= 0 {
		maxDur = DefaultMaxDuration
	}
	// Leave the process room to start and write its result within the
	// budget: 1% of it, at most 100ms.
	maxDur -= min(maxDur/100, 100*time.Millisecond)
	minReps := p.MinRepetitions
	if minReps <= 0 {
		minReps = DefaultMinRepetitions
	}
	maxReps := p.MaxRepetitions
	if maxReps <= 0 {
		maxReps = DefaultMaxRepetitions
	}
	minReps = min(minReps, maxReps)
	batchDur := p.BatchDuration
	if batchDur <= 0 {
		batchDur = defaultBatchDuration
	}

	start := now()
	// One sample first: it sizes the batches.
	samples, err := t.Time(ctx, 1)
	if err != nil {
		return Result{}, err
	}
	for {
		n := len(samples)
		remaining := maxDur - now().Sub(budgetStart)
		var st Stats
		if n >= minReps {
			if st, err = Summarize(samples); err != nil {
				return Result{}, err
			}
			if st.Coverage >= Confidence && st.HalfWidth() <= target {
				return finish(samples, true, now().Sub(start))
			}
			// Stop when the next sample would overrun the budget.
			if ms(remaining) < st.Median || n >= maxReps {
				return finish(samples, false, now().Sub(start))
			}
		}
		batch := nextBatch(samples, n, minReps, maxReps, batchDur, remaining)
		more, err := t.Time(ctx, batch)
		if err != nil {
			return Result{}, err
		}
		samples = append(samples, more...)
	}
}

// nextBatch sizes the next batch: about batchDur of work, growing with the
// sample count so checks stay rare for long runs, and at most half of what
// still fits in the budget, so the last batches shrink towards its end and
// the measurement overruns it by one sample at most. Always enough to
// reach minReps, never past maxReps.
func nextBatch(samples []float64, n, minReps, maxReps int, batchDur, remaining time.Duration) int {
	perOp := math.Max(math.Max(samples[len(samples)-1], stat.Mean(samples, nil)), 1e-6) // ms
	b := int(math.Ceil(ms(batchDur) / perOp))
	b = max(b, n/4, 1)
	b = min(b, max(1, int(ms(remaining)/perOp/2)))
	if n < minReps {
		b = max(b, minReps-n)
	}
	return max(1, min(b, maxReps-n))
}

func finish(samples []float64, converged bool, d time.Duration) (Result, error) {
	st, err := Summarize(samples)
	if err != nil {
		return Result{}, err
	}
	return Result{Samples: samples, Stats: st, Converged: converged, Duration: d}, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func orDefault(v, def float64) float64 {
	if v <= 0 {
		return def
	}
	return v
}

// FuncTimer times an in-process Go function.
type FuncTimer func()

// Warmup implements Timer.
func (f FuncTimer) Warmup(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		f()
	}
	return nil
}

// Time implements Timer with time.Now/time.Since, which read the monotonic
// clock.
func (f FuncTimer) Time(ctx context.Context, n int) ([]float64, error) {
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		f()
		out = append(out, float64(time.Since(t0).Nanoseconds())/1e6)
	}
	return out, nil
}
