package analyze

import (
	"math"
	"testing"
)

// studentsT4Survival is P(T > t) for 4 degrees of freedom, from the closed
// form of the CDF: F(t) = 1/2 + 3/8 · t/√(1+t²/4) · (1 − t²/(12(1+t²/4))).
func studentsT4Survival(t float64) float64 {
	a := 1 + t*t/4
	return 0.5 - 3.0/8*t/math.Sqrt(a)*(1-t*t/(12*a))
}

func TestCompareSegments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		before, after []float64
		want          Segments
		tol           float64
	}{
		{
			// means 2 and 5, population variances 2/3; pooled variance
			// (2·2/3 + 2·2/3)/4 = 2/3; t = -3/√(2/3·(1/3+1/3)) = -4.5 with
			// 4 degrees of freedom. scipy 1.10.1 ttest_ind_from_stats gives
			// p = 0.010822550462608247.
			name: "hand-computed", before: []float64{1, 2, 3}, after: []float64{4, 5, 6},
			want: Segments{MeanBefore: 2, MeanAfter: 5, StdDevBefore: math.Sqrt(2.0 / 3), StdDevAfter: math.Sqrt(2.0 / 3),
				NBefore: 3, NAfter: 3, PValue: 2 * studentsT4Survival(4.5)},
			tol: 1e-12,
		},
		{
			// Otava's analysis_test: a drop from ~1.0 to ~0.8; scipy gives
			// p = 8.867907052957251e-06.
			name: "otava significant", before: []float64{1.00, 1.02, 1.05, 0.95, 0.98}, after: []float64{0.80, 0.82, 0.85, 0.79, 0.77},
			want: Segments{MeanBefore: 1, MeanAfter: 0.806, StdDevBefore: math.Sqrt(0.00116), StdDevAfter: math.Sqrt(0.000744),
				NBefore: 5, NAfter: 5, PValue: 8.867907052957251e-06},
			tol: 1e-9,
		},
		{
			// Unequal sizes; scipy gives p = 0.015023914879850836.
			name: "unequal sizes", before: []float64{10.0, 10.5, 9.5, 10.2}, after: []float64{11.0, 11.5},
			want: Segments{MeanBefore: 10.05, MeanAfter: 11.25, StdDevBefore: math.Sqrt(0.1325), StdDevAfter: 0.25,
				NBefore: 4, NAfter: 2, PValue: 0.015023914879850836},
			tol: 1e-9,
		},
		{
			name: "identical halves", before: []float64{1.00, 1.02, 1.05, 0.95, 0.98}, after: []float64{1.00, 1.02, 1.05, 0.95, 0.98},
			want: Segments{MeanBefore: 1, MeanAfter: 1, StdDevBefore: math.Sqrt(0.00116), StdDevAfter: math.Sqrt(0.00116), NBefore: 5, NAfter: 5, PValue: 1},
			tol:  1e-9,
		},
		{
			name: "two points in all: p is 1", before: []float64{1}, after: []float64{100},
			want: Segments{MeanBefore: 1, MeanAfter: 100, NBefore: 1, NAfter: 1, PValue: 1},
		},
		{
			name: "no spread, different means: p is 0", before: []float64{3, 3}, after: []float64{4},
			want: Segments{MeanBefore: 3, MeanAfter: 4, NBefore: 2, NAfter: 1, PValue: 0},
		},
		{
			name: "no spread, same means: p is 1", before: []float64{3, 3}, after: []float64{3, 3},
			want: Segments{MeanBefore: 3, MeanAfter: 3, NBefore: 2, NAfter: 2, PValue: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := CompareSegments(tc.before, tc.after)
			near := func(what string, g, w float64) {
				if math.Abs(g-w) > tc.tol*math.Max(1, math.Abs(w)) {
					t.Errorf("%s = %.17g, want %.17g", what, g, w)
				}
			}
			near("MeanBefore", got.MeanBefore, tc.want.MeanBefore)
			near("MeanAfter", got.MeanAfter, tc.want.MeanAfter)
			near("StdDevBefore", got.StdDevBefore, tc.want.StdDevBefore)
			near("StdDevAfter", got.StdDevAfter, tc.want.StdDevAfter)
			if math.Abs(got.PValue-tc.want.PValue) > tc.tol*math.Max(tc.want.PValue, 1e-300) && got.PValue != tc.want.PValue {
				t.Errorf("PValue = %.17g, want %.17g", got.PValue, tc.want.PValue)
			}
			if got.NBefore != tc.want.NBefore || got.NAfter != tc.want.NAfter {
				t.Errorf("sizes = %d, %d, want %d, %d", got.NBefore, got.NAfter, tc.want.NBefore, tc.want.NAfter)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"odd", []float64{3, 1, 2}, 2},
		{"even takes the mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"one", []float64{7}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Median(tc.in); got != tc.want {
				t.Errorf("Median(%v) = %g, want %g", tc.in, got, tc.want)
			}
		})
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

// TestPerfherderT: Perfherder's t is 0 between two windows of one constant
// value, whatever their lengths (the weighted means must not differ by a
// rounding error), infinite between two constant windows at different
// values, and signed by the fore window's side; Welch's t is the same
// statistic with plain means.
func TestPerfherderT(t *testing.T) {
	t.Parallel()
	constant := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	for back := 1; back <= 30; back++ {
		for fore := 1; fore <= 12; fore++ {
			if got := PerfherderT(constant(back, 0.1), constant(fore, 0.1)); got != 0 {
				t.Fatalf("back %d, fore %d of 0.1: t %g, want 0", back, fore, got)
			}
		}
	}
	if got := PerfherderT(constant(12, 100), constant(4, 110)); !math.IsInf(got, 1) {
		t.Errorf("constant 100 then 110: t %g, want +Inf", got)
	}
	if got := PerfherderT([]float64{100, 101, 99, 100}, []float64{90, 91, 89}); !(got < -7) {
		t.Errorf("a 10%% drop: t %g, want below -7", got)
	}
	// Welch's t, unweighted: means 100 and 90, variances 2/3 and 1.
	want := -10 / math.Sqrt(2.0/3/4+1.0/3)
	if got := WelchT([]float64{100, 101, 99, 100}, []float64{90, 91, 89}); math.Abs(got-want) > 1e-9 {
		t.Errorf("Welch's t of a 10%% drop: %g, want %g", got, want)
	}
	if got := WelchT(constant(7, 0.1), constant(3, 0.1)); got != 0 {
		t.Errorf("Welch's t of two constant windows of 0.1: %g, want 0", got)
	}
}
