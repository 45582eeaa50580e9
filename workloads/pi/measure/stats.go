package measure

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of the interval around the median.
const Confidence = 0.95

// Stats summarises samples of one operation's duration (milliseconds).
type Stats struct {
	N      int
	Median float64
	// CILow and CIHigh bound the Confidence interval of the median. With
	// fewer than 6 samples no interval reaches 95%; they are then the
	// minimum and maximum, and Coverage says how sure that is.
	CILow, CIHigh float64
	// Coverage is the exact probability that [CILow, CIHigh] holds the true
	// median (>= Confidence when N >= 6).
	Coverage float64
	Mean     float64
	StdDev   float64
	// CV is StdDev / Mean, 0 with fewer than two samples.
	CV float64
}

// ErrNoSamples is returned when there is nothing to summarise.
var ErrNoSamples = errors.New("no samples")

// Summarize computes the statistics of samples (not modified).
func Summarize(samples []float64) (Stats, error) {
	n := len(samples)
	if n == 0 {
		return Stats{}, ErrNoSamples
	}
	for _, x := range samples {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return Stats{}, errors.New("samples must be finite, non-negative durations")
		}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	s := Stats{N: n, Median: median(sorted)}
	s.CILow, s.CIHigh, s.Coverage = MedianCI(sorted, Confidence)
	if n >= 2 {
		s.Mean, s.StdDev = stat.MeanStdDev(samples, nil)
		if s.Mean > 0 {
			s.CV = s.StdDev / s.Mean
		}
	} else {
		s.Mean = samples[0]
	}
	return s, nil
}

// median of sorted values: the mean of the two middle ones for even counts.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// MedianCI returns the distribution-free confidence interval of the median
// of sorted samples: the order statistics [x(j), x(n+1-j)] for the largest j
// whose exact coverage, 1 - 2·P(B <= j-1) with B ~ Binomial(n, 1/2), is at
// least level. When no j reaches level (n too small) it returns the minimum
// and maximum with their coverage.
func MedianCI(sorted []float64, level float64) (lo, hi, coverage float64) {
	n := len(sorted)
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	b := distuv.Binomial{N: float64(n), P: 0.5}
	cover := func(j int) float64 { return 1 - 2*b.CDF(float64(j-1)) }
	// Coverage decreases as j grows: binary search the largest j in
	// [1, ceil(n/2)] that still reaches level.
	best := 0
	for low, high := 1, (n+1)/2; low <= high; {
		mid := (low + high) / 2
		if cover(mid) >= level {
			best, low = mid, mid+1
		} else {
			high = mid - 1
		}
	}
	if best == 0 {
		return sorted[0], sorted[n-1], cover(1)
	}
	return sorted[best-1], sorted[n-best], cover(best)
}

// HalfWidth is the larger distance from the median to a bound of its
// interval, relative to the median: the precision `target_ci` bounds.
func (s Stats) HalfWidth() float64 {
	if s.Median <= 0 {
		return math.Inf(1)
	}
	return math.Max(s.Median-s.CILow, s.CIHigh-s.Median) / s.Median
}
