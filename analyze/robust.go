package analyze

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// madConsistency makes the median absolute deviation a consistent
// estimator of the standard deviation of normal data (1/Φ⁻¹(3/4)), as R's
// mad() and scipy's median_abs_deviation(scale="normal").
const madConsistency = 1.482602218505602

// MAD is the scaled median absolute deviation of xs around their median
// (R's mad(xs)): a spread that a minority of outliers cannot inflate. NaN
// for no values.
func MAD(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	return madConsistency * Median(dev)
}

// TheilSen fits y = intercept + slope·x robustly: the slope is the median
// of the slopes of all pairs of points (Theil 1950, Sen 1968), the
// intercept median(y) - slope·median(x), as scipy.stats.theilslopes. Pairs
// with equal x are skipped. x and y have the same length, at least 2.
func TheilSen(x, y []float64) (slope, intercept float64) {
	slopes := make([]float64, 0, len(x)*(len(x)-1)/2)
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if dx := x[j] - x[i]; dx != 0 {
				slopes = append(slopes, (y[j]-y[i])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return 0, Median(y)
	}
	slope = Median(slopes)
	return slope, Median(y) - slope*Median(x)
}

// MannKendall is the two-sided p-value of the Mann-Kendall test for a
// monotonic trend in y, taken in order (Mann 1945; Kendall 1975): S is the
// sum of the signs of all later-minus-earlier differences, its variance
// n(n-1)(2n+5)/18 less the tie correction, and Z = (S - sign(S)) / sd(S)
// against the normal distribution, as pymannkendall's original_test and
// R's Kendall::MannKendall. 1 for fewer than 3 values.
func MannKendall(y []float64) float64 {
	n := len(y)
	if n < 3 {
		return 1
	}
	var s float64
	for i := range y {
		for j := i + 1; j < n; j++ {
			switch {
			case y[j] > y[i]:
				s++
			case y[j] < y[i]:
				s--
			}
		}
	}
	variance := float64(n*(n-1)*(2*n+5)) / 18
	sorted := slices.Clone(y)
	slices.Sort(sorted)
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		if t := float64(j - i); t > 1 {
			variance -= t * (t - 1) * (2*t + 5) / 18
		}
		i = j
	}
	if variance <= 0 || s == 0 {
		return 1
	}
	z := (s - math.Copysign(1, s)) / math.Sqrt(variance)
	return math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(z)))
}

// AdjustBH returns the Benjamini-Hochberg adjusted p-values (q-values) of
// ps, in their order: rejecting every test whose q-value is at most q
// controls the false discovery rate at q (Benjamini & Hochberg 1995), as
// R's p.adjust(method = "BH"). NaN p-values are not tests: they stay NaN
// and do not count in the number of tests.
func AdjustBH(ps []float64) []float64 {
	out := make([]float64, len(ps))
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	m := float64(len(idx))
	running := 1.0
	for rank := len(idx); rank >= 1; rank-- {
		i := idx[rank-1]
		running = math.Min(running, ps[i]*m/float64(rank))
		out[i] = running
	}
	return out
}

// studentTwoSided is the two-sided p-value of t with df degrees of freedom.
func studentTwoSided(t, df float64) float64 {
	if math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)))
}

// studentQuantile is the two-sided critical value of Student's t with df
// degrees of freedom at level alpha.
func studentQuantile(alpha, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - alpha/2)
}
