package analyze

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/combin"
)

func TestMannWhitneyPValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		x, y      []float64
		wantU     float64
		wantP     float64
		wantExact bool
	}{
		// Complete separation: p = 2/C(6,3) = 0.1 and 2/C(8,4) = 2/70, as
		// R's wilcox.test and scipy.stats.mannwhitneyu (method="exact") give.
		{"3 vs 3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		{"4 vs 4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0, 2.0 / 70, true},
		// The example of R's ?wilcox.test (Hollander & Wolfe, permeability
		// constants): W = 35, one-sided p = 0.1272; two-sided 0.2544122544
		// (scipy 1.10.1, method="exact").
		{"R wilcox.test example",
			[]float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 35, 0.2544122544122544, true},
		// Ties: normal approximation with tie and continuity corrections;
		// scipy 1.10.1 (method="asymptotic") gives U = 6.5, p = 0.043727859914373765.
		{"ties", []float64{1, 2, 2, 3, 4, 5}, []float64{3, 3, 4, 6, 7, 8, 9}, 6.5, 0.043727859914373765, false},
		// 60 vs 55 values rounded to 0.1 (many ties); scipy gives
		// U = 1225.5, p = 0.017516031163183336.
		{"large with ties", largeX, largeY, 1225.5, 0.017516031163183336, false},
		{"all equal", []float64{2, 2, 2}, []float64{2, 2}, 3, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := MannWhitneyU(tc.x, tc.y)
			if got.U != tc.wantU || got.Exact != tc.wantExact || math.Abs(got.PValue-tc.wantP) > 1e-9*tc.wantP {
				t.Errorf("U=%g p=%.17g exact=%v; want U=%g p=%.17g exact=%v", got.U, got.PValue, got.Exact, tc.wantU, tc.wantP, tc.wantExact)
			}
			// The test is symmetric: swapping the samples gives the same p.
			if swapped := MannWhitneyU(tc.y, tc.x); math.Abs(swapped.PValue-got.PValue) > 1e-12 {
				t.Errorf("swapped p = %g, want %g", swapped.PValue, got.PValue)
			}
		})
	}
}

// TestMannWhitneyCriticalValues checks the exact distribution against the
// table of critical values of U for a two-sided test at alpha = 0.05 (e.g.
// Siegel & Castellan, Nonparametric Statistics, table J; the same in most
// textbooks): U <= crit is significant, crit + 1 is not.
func TestMannWhitneyCriticalValues(t *testing.T) {
	t.Parallel()
	tests := []struct{ n1, n2, crit int }{
		{5, 5, 2}, {6, 6, 5}, {7, 7, 8}, {8, 8, 13}, {10, 10, 23}, {20, 20, 127}, {5, 10, 8},
	}
	for _, tc := range tests {
		d := uDistribution(tc.n1, tc.n2)
		if p := 2 * d.cdf(tc.crit); p > 0.05 {
			t.Errorf("n=%d,%d: p(U<=%d) two-sided = %g, want <= 0.05", tc.n1, tc.n2, tc.crit, p)
		}
		if p := 2 * d.cdf(tc.crit+1); p <= 0.05 {
			t.Errorf("n=%d,%d: p(U<=%d) two-sided = %g, want > 0.05", tc.n1, tc.n2, tc.crit+1, p)
		}
	}
}

// TestUDistributionEnumerated counts U over every assignment of ranks.
func TestUDistributionEnumerated(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {4, 5}, {6, 3}} {
		n1, n2 := sz[0], sz[1]
		want := make([]float64, n1*n2+1)
		for _, xs := range combin.Combinations(n1+n2, n1) {
			// xs are the ranks (0-based) of x; U = Σ rank - n1(n1-1)/2.
			u := -n1 * (n1 - 1) / 2
			for _, r := range xs {
				u += r
			}
			want[u]++
		}
		got := uDistribution(n1, n2)
		for u := range want {
			if got.freq[u] != want[u] {
				t.Errorf("n=%d,%d: f(%d) = %g, want %g", n1, n2, u, got.freq[u], want[u])
			}
		}
	}
}

func TestHodgesLehmann(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		x, y                 []float64
		shift, ciLow, ciHigh float64
	}{
		// Differences x−y: −5,−4,−4,−3,−3,−3,−2,−2,−1; median −3. qwilcox(0.025, 3, 3)
		// is 0 (P(U=0) = 0.05), raised to 1 as R does: CI = [d(1), d(9)].
		{"3 vs 3", []float64{1, 2, 3}, []float64{4, 5, 6}, -3, -5, -1},
		// Differences 10+(i−j) for i, j in 1..5: 6, 7×2, 8×3, 9×4, 10×5, 11×4,
		// 12×3, 13×2, 14. qwilcox(0.025, 5, 5) = 3 (P(U<=3) = 7/252): CI = [d(3), d(23)].
		{"5 vs 5", []float64{11, 12, 13, 14, 15}, []float64{1, 2, 3, 4, 5}, 10, 7, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := MannWhitneyU(tc.x, tc.y)
			if got.Shift != tc.shift || got.CILow != tc.ciLow || got.CIHigh != tc.ciHigh {
				t.Errorf("shift %g [%g, %g], want %g [%g, %g]", got.Shift, got.CILow, got.CIHigh, tc.shift, tc.ciLow, tc.ciHigh)
			}
		})
	}
	big := MannWhitneyU(largeX, largeY)
	if !(big.CILow <= big.Shift && big.Shift <= big.CIHigh) || big.CILow >= 0 {
		t.Errorf("large: shift %g [%g, %g]: want an interval around the shift, below 0", big.Shift, big.CILow, big.CIHigh)
	}
}

func TestMannWhitneyMinPValue(t *testing.T) {
	t.Parallel()
	if got := MannWhitneyU([]float64{1, 2, 3}, []float64{4, 5, 6}).MinPValue; math.Abs(got-0.1) > 1e-15 {
		t.Errorf("3 vs 3: min p %g, want 0.1", got)
	}
	if got := MannWhitneyU([]float64{1}, []float64{2}).MinPValue; got != 1 {
		t.Errorf("1 vs 1: min p %g, want 1", got)
	}
}

// largeX and largeY: numpy default_rng(3), normal(10, 1) x60 and
// normal(10.5, 1) x55, rounded to 0.1.
var (
	largeX = []float64{12.0, 7.4, 10.4, 9.4, 9.5, 9.8, 8.0, 9.8, 9.1, 13.3, 10.2, 9.6, 9.7, 9.3, 8.9, 9.6, 10.5, 9.8, 11.0, 9.8, 10.0, 11.5, 10.5, 9.5, 9.8, 10.5, 11.9, 9.7, 9.8, 11.0, 9.1, 9.7, 10.9, 10.6, 10.1, 10.7, 7.2, 11.0, 9.0, 8.3, 10.3, 10.7, 9.6, 8.9, 10.0, 9.9, 11.4, 10.7, 10.2, 11.1, 9.8, 9.1, 10.6, 10.6, 9.8, 9.2, 10.2, 7.5, 10.7, 10.5}
	largeY = []float64{8.9, 10.6, 9.5, 11.3, 8.5, 9.6, 11.2, 11.7, 8.3, 10.0, 10.8, 9.9, 12.1, 9.3, 10.9, 9.5, 11.9, 10.5, 10.1, 8.8, 12.2, 11.3, 11.3, 11.6, 10.8, 9.9, 9.7, 9.7, 11.9, 9.0, 9.9, 10.2, 10.7, 11.1, 9.3, 8.8, 10.5, 11.7, 11.3, 10.7, 10.2, 10.8, 10.3, 11.3, 9.7, 10.6, 10.4, 11.0, 10.7, 13.1, 12.0, 12.0, 8.5, 10.2, 9.9}
)
