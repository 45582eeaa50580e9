package analyze

import (
	"math"
	"testing"
)

func TestMAD(t *testing.T) {
	t.Parallel()
	// R: mad(c(1, 2, 3, 4, 100)) = 1.4826: the outlier does not count.
	if got := MAD([]float64{1, 2, 3, 4, 100}); math.Abs(got-1.482602218505602) > 1e-12 {
		t.Errorf("MAD = %g, want 1.4826", got)
	}
	if !math.IsNaN(MAD(nil)) {
		t.Error("MAD of nothing is not NaN")
	}
}

func TestTheilSen(t *testing.T) {
	t.Parallel()
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 2*v + 1
	}
	y[3] = 40 // one wild value does not move the line (scipy.stats.theilslopes: 2, 3)
	slope, intercept := TheilSen(x, y)
	if slope != 2 || intercept != 3 {
		t.Errorf("TheilSen = %g, %g; want 2, 3", slope, intercept)
	}
}

func TestMannKendall(t *testing.T) {
	t.Parallel()
	// pymannkendall.original_test([1, 2, 3, 4, 5]): S=10, var=16.67, z=2.2045, p=0.027486.
	if got := MannKendall([]float64{1, 2, 3, 4, 5}); math.Abs(got-0.0274863) > 1e-6 {
		t.Errorf("increasing: p = %g, want 0.027486", got)
	}
	if got := MannKendall([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}); got < 0.3 {
		t.Errorf("no trend: p = %g", got)
	}
	if got := MannKendall([]float64{2, 2, 2, 2}); got != 1 {
		t.Errorf("constant: p = %g, want 1", got)
	}
}

func TestAdjustBH(t *testing.T) {
	t.Parallel()
	// R: p.adjust(c(.001, .008, .039, .041, .042, .06, .074, .205), "BH"),
	// given shuffled, with a NaN that is not a test.
	ps := []float64{0.205, 0.001, math.NaN(), 0.042, 0.008, 0.074, 0.039, 0.06, 0.041}
	want := []float64{0.205, 0.008, math.NaN(), 0.0672, 0.032, 0.0845714285714, 0.0672, 0.08, 0.0672}
	got := AdjustBH(ps)
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-9) {
			t.Errorf("q[%d] = %g, want %g", i, got[i], want[i])
		}
	}
}
