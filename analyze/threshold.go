package analyze

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Threshold flags the current value when it differs from a reference by
// more than Percent: the history mean, or the previous point.
type Threshold struct {
	Percent   float64 // limit in percent; 0 means 10
	Reference string  // "mean" (default) or "previous"
}

// Name implements Method.
func (Threshold) Name() string { return "threshold" }

func (t Threshold) limit() float64 {
	if t.Percent == 0 {
		return 10
	}
	return t.Percent
}

func (t Threshold) previous() bool { return t.Reference == "previous" }

func (t Threshold) validate() error {
	if l := t.limit(); !(l > 0) || math.IsInf(l, 0) {
		return fmt.Errorf("%w: threshold %g%%, must be a number > 0", ErrInvalidParam, t.Percent)
	}
	if t.Reference != "" && t.Reference != "mean" && t.Reference != "previous" {
		return fmt.Errorf("%w: reference %q, must be mean or previous", ErrInvalidParam, t.Reference)
	}
	return nil
}

func (t Threshold) reference(xs []float64) (ref float64, what string) {
	if t.previous() {
		return xs[len(xs)-1], "the previous point"
	}
	return stat.Mean(xs, nil), fmt.Sprintf("the mean of %d history points", len(xs))
}

// Evaluate implements Method.
func (t Threshold) Evaluate(in Input) Result {
	p, r, done := prepare(t.Name(), in)
	if done {
		return r
	}
	ref, what := t.reference(p.history)
	r.Reference = ref
	if ref == 0 {
		r.Status = StatusNotAnalyzed
		r.Reason = "the reference value is 0: a percentage change is undefined"
		return r
	}
	r.DeltaPercent = deltaPercent(ref, p.current)
	r.Score = r.DeltaPercent
	r.Status = judge(in.Direction, math.Abs(r.DeltaPercent) > t.limit(), p.current-ref)
	r.Details = fmt.Sprintf("%+.2f%% against %s (%s), limit ±%g%%", r.DeltaPercent, what, fmtNum(ref), t.limit())
	return r
}

// thresholdAlpha is the significance a threshold change point must reach:
// the method has no level of its own, and a change between segments of a
// few noisy points is no change at all.
const thresholdAlpha = 0.05

// ChangePoints implements Detector: a point differing by more than Percent
// from the current segment's mean (or from the previous point) starts a new
// segment; from a reference of 0, any other value does. A point beyond the
// limit is not yet a change: the change points are then merged as
// e-divisive's, each drop recomputing its neighbours, until none is next to
// a segment of a single point and the t-test between each one's segments
// gives p < 0.05 (thresholdAlpha).
func (t Threshold) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, 2*minSegment, "threshold")
	if !ok {
		return nil, warns
	}
	limit := t.limit()
	return sequentialChangePoints(series, func(seg []float64, v float64) bool {
		ref, _ := t.reference(seg)
		if ref == 0 {
			return v != 0 // an infinite change in percent
		}
		return math.Abs(deltaPercent(ref, v)) > limit
	}, func(cps []ChangePoint) int { return weakest(cps, thresholdAlpha, 0) }), warns
}
