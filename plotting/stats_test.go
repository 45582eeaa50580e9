package plotting

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/integrate"

	"github.com/seshat-bench/seshat/analyze"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	s := Summarize([]float64{4, 1, 3, 2, math.NaN(), math.Inf(1)})
	if s.N != 4 || s.Min != 1 || s.Max != 4 || s.Median != 2.5 || s.Mean != 2.5 {
		t.Errorf("Summarize = %+v", s)
	}
	if want := math.Sqrt(5.0 / 3); math.Abs(s.Std-want) > 1e-12 || math.Abs(s.CV-want/2.5) > 1e-12 {
		t.Errorf("std %v cv %v, want sample std %v", s.Std, s.CV, want)
	}
	if !(s.P5 <= s.P25 && s.P25 <= s.Median && s.Median <= s.P75 && s.P75 <= s.P95) {
		t.Errorf("percentiles out of order: %+v", s)
	}
	one := Summarize([]float64{7})
	if one.N != 1 || one.Median != 7 || !math.IsNaN(one.Std) || !math.IsNaN(one.CV) {
		t.Errorf("one value: %+v (a deviation of one value is undefined)", one)
	}
	if none := Summarize(nil); none.N != 0 || !math.IsNaN(none.Median) {
		t.Errorf("no value: %+v", none)
	}
}

// The counting median of a resample is the median of that resample sorted.
func TestResampledMedianMatchesSorting(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 10, 11, 200} {
		sorted := make([]float64, n)
		for i := range sorted {
			sorted[i] = float64(i*i%17) + float64(i)/100
		}
		slices.Sort(sorted)
		counts := make([]int32, n)
		a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
		for range 50 {
			got := resampledMedian(sorted, counts, a)
			resample := make([]float64, n)
			for i := range resample {
				resample[i] = sorted[b.IntN(n)]
			}
			if want := analyze.Median(resample); got != want {
				t.Fatalf("n=%d: resampled median %v, want %v", n, got, want)
			}
		}
	}
}

func TestBootstrapMedianRatio(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	base := make([]float64, 40)
	faster := make([]float64, 40)
	for i := range base {
		base[i] = 300 * (1 + 0.02*rng.NormFloat64())
		faster[i] = 438 * (1 + 0.02*rng.NormFloat64())
	}
	r := BootstrapMedianRatio(faster, base, 42)
	if math.Abs(r.Value-1.46) > 0.03 {
		t.Errorf("ratio %v, want about 1.46", r.Value)
	}
	if !(r.Low < r.Value && r.Value < r.High) || r.High-r.Low > 0.05 || r.Resamples != BootstrapResamples {
		t.Errorf("interval [%v, %v] of %v over %d resamples", r.Low, r.High, r.Value, r.Resamples)
	}
	if again := BootstrapMedianRatio(faster, base, 42); again != r {
		t.Errorf("same seed, different result: %+v vs %+v", again, r)
	}
	if few := BootstrapMedianRatio([]float64{2}, base, 1); !math.IsNaN(few.Low) || few.Value <= 0 {
		t.Errorf("one run: %+v, want a ratio without interval", few)
	}
}

func TestEstimateDensity(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	xs := make([]float64, 500)
	for i := range xs {
		xs[i] = 10 + rng.NormFloat64()
	}
	k, ok := EstimateDensity(xs, 200)
	if !ok || len(k.X) != 200 || k.Bandwidth <= 0 {
		t.Fatalf("EstimateDensity: ok=%v %d points h=%v", ok, len(k.X), k.Bandwidth)
	}
	// Cut at the sample's range, the density keeps nearly all its mass.
	if area := integrate.Trapezoidal(k.X, k.Density); area < 0.95 || area > 1.01 {
		t.Errorf("density integrates to %v", area)
	}
	peak := k.X[slices.Index(k.Density, slices.Max(k.Density))]
	if math.Abs(peak-10) > 0.5 {
		t.Errorf("mode at %v, want near 10", peak)
	}
	if _, ok := EstimateDensity([]float64{3, 3, 3}, 10); ok {
		t.Error("equal values have no density")
	}
}
