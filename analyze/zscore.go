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

// ChangePoints implements Detector: a point more than Threshold deviations
// from the mean of the current segment (of at least 3 points) starts a new
// segment.
func (z ZScore) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, zscoreMinPoints+1, "zscore")
	if !ok {
		return nil, warns
	}
	limit := z.limit()
	return sequentialChangePoints(series, func(seg []float64, v float64) bool {
		if len(seg) < zscoreMinPoints {
			return false
		}
		s, _, _ := score(seg, v)
		return math.Abs(s) > limit
	}), warns
}
