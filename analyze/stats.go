package analyze

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Median is the middle value of xs, the mean of the two middle values for an
// even count; NaN for none. (gonum's stat.Quantile returns the lower middle
// value for an even count, not the conventional median.)
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Segments are the statistics of two neighbouring segments of a series and
// the t-test between them.
type Segments struct {
	MeanBefore, MeanAfter     float64
	StdDevBefore, StdDevAfter float64 // population standard deviations
	NBefore, NAfter           int
	PValue                    float64
}

// CompareSegments computes Hunter's statistics for two neighbouring
// segments: means, population standard deviations (0 for a single point)
// and the p-value of a two-sided pooled Student t-test fed with those
// population deviations. With 2 points or fewer in all, p is 1.
// Both segments must be non-empty.
func CompareSegments(before, after []float64) Segments {
	s := Segments{NBefore: len(before), NAfter: len(after)}
	s.MeanBefore, s.StdDevBefore = popMeanStdDev(before)
	s.MeanAfter, s.StdDevAfter = popMeanStdDev(after)
	s.PValue = 1
	if len(before)+len(after) > 2 {
		s.PValue = PooledTTest(s.MeanBefore, s.StdDevBefore, len(before), s.MeanAfter, s.StdDevAfter, len(after))
	}
	return s
}

func popMeanStdDev(xs []float64) (mean, std float64) {
	if len(xs) < 2 {
		return stat.Mean(xs, nil), 0
	}
	if allEqual(xs) {
		// Summing 1.95 nine times and dividing does not give back 1.95
		// exactly; two constant segments of one value would then differ
		// by a rounding error with no spread, a certain "change" (p = 0).
		return xs[0], 0
	}
	return stat.PopMeanStdDev(xs, nil)
}

// PooledTTest is the two-sided p-value of Student's t-test for equal
// variances from summary statistics, as scipy's ttest_ind_from_stats: the
// pooled variance is ((n1-1)s1² + (n2-1)s2²) / (n1+n2-2). Hunter passes
// population deviations as s1 and s2; so do we. When both deviations are 0
// the test is degenerate: p is 0 if the means differ (t is infinite) and 1
// if they are equal (scipy gives NaN there, which no threshold accepts;
// 1 says the same and keeps every later comparison well defined).
func PooledTTest(mean1, std1 float64, n1 int, mean2, std2 float64, n2 int) float64 {
	df := float64(n1 + n2 - 2)
	if df <= 0 {
		return 1
	}
	svar := (float64(n1-1)*std1*std1 + float64(n2-1)*std2*std2) / df
	denom := math.Sqrt(svar * (1/float64(n1) + 1/float64(n2)))
	d := mean1 - mean2
	if denom == 0 || math.IsNaN(denom) {
		if d == 0 {
			return 1
		}
		return 0
	}
	t := math.Abs(d / denom)
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
	if math.IsNaN(p) {
		return 1
	}
	return math.Min(p, 1)
}
