package plotting

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes a sample: count, centre, spread and percentiles.
// Percentiles are gonum's stat.Quantile with linear interpolation of the
// empirical distribution; the median is the conventional one (the mean of
// the two middle values for an even count). Every number of an empty
// sample is NaN.
type Summary struct {
	N                 int
	Min, Max          float64
	Median, Mean      float64
	Std               float64 // sample standard deviation (n-1); NaN for one value
	CV                float64 // Std / Mean; NaN for one value
	P5, P25, P75, P95 float64
}

// Summarize computes the Summary of xs; NaN and infinite values are left out.
func Summarize(xs []float64) Summary {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
		}
	}
	nan := math.NaN()
	out := Summary{N: len(s), Min: nan, Max: nan, Median: nan, Mean: nan, Std: nan, CV: nan, P5: nan, P25: nan, P75: nan, P95: nan}
	if len(s) == 0 {
		return out
	}
	slices.Sort(s)
	out.Min, out.Max = s[0], s[len(s)-1]
	out.Median = sortedMedian(s)
	if len(s) == 1 {
		out.Mean = s[0]
	} else {
		out.Mean, out.Std = stat.MeanStdDev(s, nil)
		if out.Mean != 0 {
			out.CV = out.Std / out.Mean
		}
	}
	q := func(p float64) float64 { return stat.Quantile(p, stat.LinInterp, s, nil) }
	out.P5, out.P25, out.P75, out.P95 = q(0.05), q(0.25), q(0.75), q(0.95)
	return out
}

// Ratio is the ratio of two medians with a bootstrap confidence interval.
type Ratio struct {
	Value      float64 // median(numerator) / median(denominator)
	Low, High  float64 // 95% percentile bootstrap interval; NaN when a side has one value
	Resamples  int
	NNum, NDen int
}

// BootstrapResamples is how many resamples BootstrapMedianRatio draws.
const BootstrapResamples = 2000

// BootstrapMedianRatio estimates median(num)/median(den) and its 95%
// percentile bootstrap interval from resamples drawn with a PCG generator
// seeded by seed: the same data and seed give the same interval.
func BootstrapMedianRatio(num, den []float64, seed uint64) Ratio {
	sn, sd := slices.Sorted(slices.Values(num)), slices.Sorted(slices.Values(den))
	r := Ratio{Value: sortedMedian(sn) / sortedMedian(sd), Low: math.NaN(), High: math.NaN(),
		NNum: len(num), NDen: len(den)}
	if len(num) < 2 || len(den) < 2 {
		return r
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e5a7))
	cn, cd := make([]int32, len(sn)), make([]int32, len(sd))
	ratios := make([]float64, 0, BootstrapResamples)
	for range BootstrapResamples {
		if v := resampledMedian(sn, cn, rng) / resampledMedian(sd, cd, rng); !math.IsNaN(v) && !math.IsInf(v, 0) {
			ratios = append(ratios, v)
		}
	}
	r.Resamples = len(ratios)
	if len(ratios) == 0 {
		return r
	}
	slices.Sort(ratios)
	r.Low = stat.Quantile(0.025, stat.Empirical, ratios, nil)
	r.High = stat.Quantile(0.975, stat.Empirical, ratios, nil)
	return r
}

// sortedMedian is the median of a sorted sample: the middle value, or the
// mean of the two middle ones; NaN when empty. The pages get their build
// medians from the analysis (HistorySource); this is for the samples a
// page summarises itself.
func sortedMedian(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// resampledMedian draws len(sorted) values of sorted with replacement and
// returns their median. Drawing indices into the sorted sample and counting
// them finds the median in linear time, without sorting the resample.
func resampledMedian(sorted []float64, counts []int32, rng *rand.Rand) float64 {
	n := len(sorted)
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	// The values at positions lo and hi of the sorted resample.
	lo, hi := (n-1)/2, n/2
	var vlo float64
	found := false
	seen := 0
	for i, c := range counts {
		if c == 0 {
			continue
		}
		seen += int(c)
		if !found && seen > lo {
			vlo, found = sorted[i], true
		}
		if seen > hi {
			return (vlo + sorted[i]) / 2
		}
	}
	return math.NaN()
}

// KDE is a Gaussian kernel density estimate of a sample, evaluated on a grid
// spanning the sample's range (a violin never suggests values that were not
// observed).
type KDE struct {
	Bandwidth float64
	X         []float64 // grid, ascending
	Density   []float64
}

// EstimateDensity evaluates a Gaussian KDE of xs at points grid points, with
// Silverman's rule of thumb for the bandwidth (0.9 min(sd, IQR/1.34) n^-1/5).
// It returns false when the sample has fewer than two distinct values.
func EstimateDensity(xs []float64, points int) (KDE, bool) {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) < 2 || s[0] == s[len(s)-1] || points < 2 {
		return KDE{}, false
	}
	sd := stat.StdDev(s, nil)
	iqr := stat.Quantile(0.75, stat.LinInterp, s, nil) - stat.Quantile(0.25, stat.LinInterp, s, nil)
	spread := sd
	if iqr > 0 {
		spread = math.Min(sd, iqr/1.34)
	}
	h := 0.9 * spread * math.Pow(float64(len(s)), -0.2)
	if !(h > 0) {
		return KDE{}, false
	}
	kernel := distuv.Normal{Mu: 0, Sigma: h}
	k := KDE{Bandwidth: h, X: make([]float64, points), Density: make([]float64, points)}
	lo, hi := s[0], s[len(s)-1]
	// Points further than 5 bandwidths weigh nothing visible: only a window
	// of the sorted sample is summed for each grid point.
	for i := range points {
		x := lo + (hi-lo)*float64(i)/float64(points-1)
		from, _ := slices.BinarySearch(s, x-5*h)
		to, _ := slices.BinarySearch(s, x+5*h)
		d := 0.0
		for _, v := range s[from:to] {
			d += kernel.Prob(x - v)
		}
		k.X[i], k.Density[i] = x, d/float64(len(s))
	}
	return k, true
}
