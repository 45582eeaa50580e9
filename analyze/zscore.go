package analyze

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ZScore flags the current value when it lies more than Threshold sample
// standard deviations from the history mean. It needs 3 history points.
// When the history has no spread at all, any different value is flagged
// (z is infinite), with an all-values-equal warning.
type ZScore struct {
	Threshold float64 // |z| limit; 0 means 3
}

// zscoreMinPoints is the smallest history zscore judges.
const zscoreMinPoints = 3

// Name implements Method.
func (ZScore) Name() string { return "zscore" }

func (z ZScore) limit() float64 {
	if z.Threshold == 0 {
		return 3
	}
	return z.Threshold
}

func (z ZScore) validate() error {
	if t := z.limit(); !(t > 0) || math.IsInf(t, 0) {
		return fmt.Errorf("%w: z threshold %g, must be a number > 0", ErrInvalidParam, z.Threshold)
	}
	return nil
}

// score is z of v against xs, with its sample mean and deviation.
func score(xs []float64, v float64) (z, mean, std float64) {
	mean, std = stat.MeanStdDev(xs, nil)
	switch {
	case std > 0:
		z = (v - mean) / std
	case v == mean:
		z = 0
	default:
		z = math.Copysign(math.Inf(1), v-mean)
	}
	return z, mean, std
}

// Evaluate implements Method.
func (z ZScore) Evaluate(in Input) Result {
	p, r, done := prepare(z.Name(), in)
	if done {
		return r
	}
	if n := len(p.history); n < zscoreMinPoints {
		r.Status = StatusNotAnalyzed
		r.Reason = fmt.Sprintf("too few points: zscore needs at least %d history points, got %d", zscoreMinPoints, n)
		r.Warnings = append(r.Warnings, warnf(WarnTooFewPoints, "%s", r.Reason))
		return r
	}
	score, mean, std := score(p.history, p.current)
	r.Score, r.Reference = score, mean
	r.DeltaPercent = deltaPercent(mean, p.current)
	r.PValue = 2 * distuv.UnitNormal.Survival(math.Abs(score))
	r.Status = judge(in.Direction, math.Abs(score) > z.limit(), p.current-mean)
	r.Details = fmt.Sprintf("z=%.3g against %d history points (mean %s, std %s), limit %g",
		score, len(p.history), fmtNum(mean), fmtNum(std), z.limit())
	return r
}

// alpha is the two-sided normal p-value of |z| = limit (0.0027 for 3):
// the significance a change point must reach to be reported.
func (z ZScore) alpha() float64 { return 2 * distuv.UnitNormal.Survival(z.limit()) }

// ChangePoints implements Detector: a point more than Threshold deviations
// from the mean of the current segment (of at least 3 points) starts a new
// segment. A point beyond the limit is not yet a change: the change points
// are then merged as e-divisive's, each drop recomputing its neighbours,
// until none is next to a segment of a single point and every one is
// significant at the limit's own level, the t-test between its segments
// giving p < alpha (two-sided normal p of |z| = Threshold: 0.0027 for 3).
func (z ZScore) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	// 3 points before the first change, minSegment after it.
	warns, ok := seriesWarnings(series, zscoreMinPoints+minSegment, "zscore")
	if !ok {
		return nil, warns
	}
	limit, alpha := z.limit(), z.alpha()
	return sequentialChangePoints(series, func(seg []float64, v float64) bool {
		if len(seg) < zscoreMinPoints {
			return false
		}
		s, _, _ := score(seg, v)
		return math.Abs(s) > limit
	}, func(cps []ChangePoint) int { return weakest(cps, alpha, 0) }), warns
}
