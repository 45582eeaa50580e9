package analyze

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// naiveQ is Q-hat straight from its definition (Matteson & James 2014 with
// alpha = 1, as Otava's calculator documents it).
func naiveQ(x, y []float64) float64 {
	n, m := float64(len(x)), float64(len(y))
	var between, withinX, withinY float64
	for _, a := range x {
		for _, b := range y {
			between += math.Abs(a - b)
		}
	}
	for i := range x {
		for k := i + 1; k < len(x); k++ {
			withinX += math.Abs(x[i] - x[k])
		}
	}
	for j := range y {
		for k := j + 1; k < len(y); k++ {
			withinY += math.Abs(y[j] - y[k])
		}
	}
	q := 2 / (m + n) * between
	if n > 1 {
		q -= 2 * m / ((m + n) * (n - 1)) * withinX
	}
	if m > 1 {
		q -= 2 * n / ((m + n) * (m - 1)) * withinY
	}
	return q
}

func TestQHatHandComputed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		w       []float64
		s, e    int
		wantTau int
		wantQ   float64
	}{
		// X=[0,0], Y=[1,1]: between 4 -> 2/4·4 = 2, no spread within.
		{"two levels", []float64{0, 0, 1, 1}, 0, 4, 2, 2},
		// tau=2, kappa=3: X=[1,2], Y=[10]: 2/3·17 − 2·1/(3·1)·1 = 32/3,
		// larger than tau=1 (1 and 4/3).
		{"outlier at the end", []float64{1, 2, 10}, 0, 3, 2, 32.0 / 3},
		// The same two levels inside a longer window: offsets are kept.
		{"sub-interval", []float64{5, 0, 0, 1, 1, 9}, 1, 5, 3, 2},
		// No split is better than another: the first (tau = s+1) wins, as
		// numpy's argmax.
		{"constant", []float64{4, 4, 4, 4}, 0, 4, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := newQHat(len(tc.w)).candidate(tc.w, tc.s, tc.e)
			if got.tau != tc.wantTau || math.Abs(got.q-tc.wantQ) > 1e-12 {
				t.Errorf("candidate = tau %d, q %.15g; want tau %d, q %.15g", got.tau, got.q, tc.wantTau, tc.wantQ)
			}
		})
	}
}

func TestQHatMatchesDefinition(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 2 + r.IntN(40)
		w := make([]float64, n)
		for i := range w {
			w[i] = math.Round(r.NormFloat64()*10) / 4 // ties included
			if i > n/2 {
				w[i] += float64(trial % 3)
			}
		}
		s := r.IntN(n - 1)
		e := s + 2 + r.IntN(n-s-1)
		wantTau, wantQ := -1, math.Inf(-1)
		for tau := s + 1; tau < e; tau++ {
			for kappa := tau + 1; kappa <= e; kappa++ {
				if q := naiveQ(w[s:tau], w[tau:kappa]); q > wantQ+1e-9 {
					wantTau, wantQ = tau, q
				}
			}
		}
		got := newQHat(n).candidate(w, s, e)
		if math.Abs(got.q-wantQ) > 1e-9*math.Max(1, wantQ) {
			t.Fatalf("w=%v [%d,%d): max Q %.15g, want %.15g", w, s, e, got.q, wantQ)
		}
		if got.tau != wantTau && math.Abs(naiveQ(w[s:got.tau], w[got.tau:e])-wantQ) > 1e-9 {
			// A different tau is only right on a tie; the check above holds the value.
			t.Logf("w=%v [%d,%d): tau %d, want %d (tie)", w, s, e, got.tau, wantTau)
		}
	}
}

// otavaSequence is the series of Otava's change_point_divisive_test.
var otavaSequence = []float64{0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0}

func TestDivideMatchesOtava(t *testing.T) {
	t.Parallel()
	got := newQHat(len(otavaSequence)).divide(otavaSequence, 0.01)
	if !slices.Equal(got, []int{5, 8}) {
		t.Errorf("divide = %v, want [5 8] (Otava's test_ttest)", got)
	}
}

func TestChangePointsOtavaSingleSeries(t *testing.T) {
	t.Parallel()
	// Otava's analysis_test.test_single_series; Otava reports the p-value
	// 1.4271728389900107e-17 for it.
	series := []float64{1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96,
		0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49}
	cps, warns := EDivisive{WindowLen: 10, MaxPValue: 0.0001}.ChangePoints(series)
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	if len(cps) != 1 || cps[0].Index != 10 {
		t.Fatalf("change points %+v, want one at 10", cps)
	}
	c := cps[0]
	if math.Abs(c.PValue-1.4271728389900107e-17)/1.4271728389900107e-17 > 1e-9 {
		t.Errorf("p = %g", c.PValue)
	}
	if math.Abs(c.MeanBefore-1.004) > 1e-12 || math.Abs(c.MeanAfter-0.501) > 1e-12 {
		t.Errorf("means %g -> %g, want 1.004 -> 0.501", c.MeanBefore, c.MeanAfter)
	}
	// magnitude = max(|0.501/1.004 - 1|, |1.004/0.501 - 1|)
	if want := 1.004/0.501 - 1; math.Abs(c.Magnitude()-want) > 1e-12 {
		t.Errorf("magnitude %g, want %g", c.Magnitude(), want)
	}
	if want := (0.501/1.004 - 1) * 100; math.Abs(c.ForwardChangePercent()-want) > 1e-9 {
		t.Errorf("forward change %g%%, want %g%%", c.ForwardChangePercent(), want)
	}
}

// TestChangePointsOtavaVectors compares with change points Apache Otava
// computed (testdata/otava/gen.py): the weak change points of the split
// step with their p-values, then the final ones with their statistics.
// Otava keeps segments of a single point, which ChangePoints then merges
// (TestNoSinglePointSegment); the comparison is with the steps before.
func TestChangePointsOtavaVectors(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/otava/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	type cp struct {
		Index        int     `json:"index"`
		PValue       float64 `json:"pvalue"`
		MeanBefore   float64 `json:"mean_before"`
		MeanAfter    float64 `json:"mean_after"`
		StdDevBefore float64 `json:"stddev_before"`
		StdDevAfter  float64 `json:"stddev_after"`
	}
	var doc struct {
		Cases []struct {
			Series       []float64 `json:"series"`
			WindowLen    int       `json:"window_len"`
			MaxPValue    float64   `json:"max_pvalue"`
			MinMagnitude float64   `json:"min_magnitude"`
			Weak         []cp      `json:"weak"`
			Final        []cp      `json:"final"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no cases")
	}
	closeP := func(got, want float64) bool {
		return got == want || math.Abs(got-want) <= 1e-6*math.Max(want, 1e-300) || (got < 1e-300 && want < 1e-300)
	}
	for i, c := range doc.Cases {
		weak := splitWindows(c.Series, c.WindowLen, firstPassPValue(c.MaxPValue))
		if len(weak) != len(c.Weak) {
			t.Errorf("case %d: weak change points %v, Otava %v", i, weak, c.Weak)
			continue
		}
		for j, idx := range weak {
			got := changePointAt(c.Series, idx, prevIndex(weak, j), nextIndex(weak, j, len(c.Series)))
			if idx != c.Weak[j].Index || !closeP(got.PValue, c.Weak[j].PValue) {
				t.Errorf("case %d: weak %d: index %d p %g, Otava index %d p %g", i, j, idx, got.PValue, c.Weak[j].Index, c.Weak[j].PValue)
			}
		}
		final := EDivisive{WindowLen: c.WindowLen, MaxPValue: c.MaxPValue, MinMagnitude: c.MinMagnitude}.withDefaults().changePoints(c.Series)
		if len(final) != len(c.Final) {
			t.Errorf("case %d: change points %v, Otava %v", i, final, c.Final)
			continue
		}
		for j, g := range final {
			w := c.Final[j]
			if g.Index != w.Index || !closeP(g.PValue, w.PValue) ||
				math.Abs(g.MeanBefore-w.MeanBefore) > 1e-9 || math.Abs(g.MeanAfter-w.MeanAfter) > 1e-9 ||
				math.Abs(g.StdDevBefore-w.StdDevBefore) > 1e-9 || math.Abs(g.StdDevAfter-w.StdDevAfter) > 1e-9 {
				t.Errorf("case %d: change point %d: %+v, Otava %+v", i, j, g, w)
			}
		}
	}
}

func TestMergeHandComputed(t *testing.T) {
	t.Parallel()
	// Weak change points at 4 and 8; 8 splits two segments of the same
	// level (means 20 and 20.025), so its p-value is large and it goes;
	// 4 is then recomputed against [4, 12): mean 160.1/8 = 20.0125.
	series := []float64{10, 10.1, 9.9, 10, 20, 20.1, 19.9, 20, 20.05, 19.95, 20, 20.1}
	weak := []ChangePoint{changePointAt(series, 4, 0, 8), changePointAt(series, 8, 4, 12)}
	if weak[1].PValue < 0.5 {
		t.Fatalf("setup: p at 8 = %g, want large", weak[1].PValue)
	}
	got := mergeChangePoints(series, slices.Clone(weak), 0.001, 0)
	if len(got) != 1 || got[0].Index != 4 {
		t.Fatalf("merge = %+v, want one change point at 4", got)
	}
	if got[0].NAfter != 8 || math.Abs(got[0].MeanAfter-20.0125) > 1e-12 || got[0].MeanBefore != 10 {
		t.Errorf("change point at 4 not recomputed: %+v", got[0])
	}
	// magnitude max(|20.0125/10 − 1|, |10/20.0125 − 1|) = 1.00125 <= 1.5: dropped too.
	if got := mergeChangePoints(series, slices.Clone(weak), 0.001, 1.5); len(got) != 0 {
		t.Errorf("min magnitude 1.5 kept %+v", got)
	}
	if got := mergeChangePoints(series, slices.Clone(weak), 0.001, 1.001); len(got) != 1 {
		t.Errorf("min magnitude 1.001 dropped the change of magnitude 1.00125: %+v", got)
	}
}

func TestMergeRecomputesBothNeighbours(t *testing.T) {
	t.Parallel()
	// Levels 10 | 20 | 20 | 30 with weak change points at 4, 8, 12: the
	// middle one goes, and both 4 and 12 must then see the merged segment
	// [4, 12) of 8 points.
	series := []float64{10, 10.2, 9.8, 10, 20, 20.2, 19.8, 20, 20.1, 19.9, 20, 20, 30, 30.2, 29.8, 30}
	idx := []int{4, 8, 12}
	weak := make([]ChangePoint, len(idx))
	for i, at := range idx {
		weak[i] = changePointAt(series, at, prevIndex(idx, i), nextIndex(idx, i, len(series)))
	}
	got := mergeChangePoints(series, weak, 0.001, 0)
	if len(got) != 2 || got[0].Index != 4 || got[1].Index != 12 {
		t.Fatalf("merge = %+v, want change points at 4 and 12", got)
	}
	if got[0].NAfter != 8 || got[1].NBefore != 8 {
		t.Errorf("neighbours not recomputed: %+v", got)
	}
}

// noisy returns n points of 100 with 2% Gaussian noise, multiplied by
// factor from index step on.
func noisy(seed uint64, n, step int, factor float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x5e5ba7))
	x := make([]float64, n)
	for i := range x {
		x[i] = 100 * (1 + 0.02*r.NormFloat64())
		if i >= step {
			x[i] *= factor
		}
	}
	return x
}

func TestStepFoundAtItsIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		n      int
		step   int
		factor float64
	}{
		{"up 10% mid-series", 200, 120, 1.10},
		{"down 10% mid-series", 200, 120, 0.90},
		{"up 10% in a short history", 40, 25, 1.10},
		{"down 10% near the start", 300, 12, 0.90},
		{"up 10% across window boundaries", 500, 260, 1.10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 10; seed++ {
				x := noisy(seed, tc.n, tc.step, tc.factor)
				// At the defaults the step is always found; noise now and
				// then adds a small change (Hunter's t-test is taken after
				// choosing the best split). Those are below 5%, so with
				// min_magnitude 0.05 the step is the only change left.
				cps, _ := EDivisive{}.ChangePoints(x)
				at := slices.IndexFunc(cps, func(c ChangePoint) bool { return c.Index == tc.step })
				if at < 0 {
					t.Errorf("seed %d: change points %+v, none at %d", seed, cps, tc.step)
					continue
				}
				if got, want := cps[at].ForwardChangePercent(), (tc.factor-1)*100; math.Abs(got-want) > 2 {
					t.Errorf("seed %d: forward change %.2f%%, want about %.0f%%", seed, got, want)
				}
				for _, c := range cps {
					if c.Index != tc.step && c.Magnitude() >= 0.05 {
						t.Errorf("seed %d: spurious change point of magnitude %.3f: %+v", seed, c.Magnitude(), c)
					}
				}
				cps, _ = EDivisive{MinMagnitude: 0.05}.ChangePoints(x)
				if len(cps) != 1 || cps[0].Index != tc.step {
					t.Errorf("seed %d, min magnitude 0.05: change points %+v, want one at %d", seed, cps, tc.step)
				}
			}
		})
	}
}

func TestNoChangePoint(t *testing.T) {
	t.Parallel()
	cps, warns := EDivisive{}.ChangePoints(slices.Repeat([]float64{42}, 120))
	if len(cps) != 0 {
		t.Errorf("constant series: %+v", cps)
	}
	// Values whose sums round: the segment means must still be equal.
	for _, v := range []float64{1.95, 0.1, 1e-7} {
		if cps, _ := (EDivisive{}).ChangePoints(slices.Repeat([]float64{v}, 9)); len(cps) != 0 {
			t.Errorf("constant series of %g: %+v", v, cps)
		}
	}
	if len(warns) != 1 || warns[0].Kind != WarnAllEqual {
		t.Errorf("constant series warnings %v, want all-values-equal", warns)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if cps, warns := (EDivisive{}).ChangePoints(noisy(seed, 100, 100, 1)); len(cps) != 0 || len(warns) != 0 {
			t.Errorf("noise seed %d: change points %+v, warnings %v", seed, cps, warns)
		}
	}
	// Hunter's p-value is taken after choosing the best split, so pure
	// noise shows a change now and then (about 4% of 50-point windows at
	// the defaults). It must stay rare.
	false := 0
	for seed := uint64(100); seed < 200; seed++ {
		if cps, _ := (EDivisive{}).ChangePoints(noisy(seed, 100, 100, 1)); len(cps) > 0 {
			false++
		}
	}
	if false > 10 {
		t.Errorf("%d of 100 pure-noise series have a change point", false)
	}
}

func TestChangePointsWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		series []float64
		kind   WarningKind
	}{
		{"empty", nil, WarnTooFewPoints},
		{"two points", []float64{1, 2}, WarnTooFewPoints},
		{"NaN", []float64{1, math.NaN(), 3, 4}, WarnNonFinite},
		{"Inf", []float64{1, 2, math.Inf(1), 4}, WarnNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cps, warns := EDivisive{}.ChangePoints(tc.series)
			if len(cps) != 0 || len(warns) != 1 || warns[0].Kind != tc.kind {
				t.Errorf("change points %+v, warnings %v; want none and %s", cps, warns, tc.kind)
			}
		})
	}
}

// TestReportedStatisticsAreFinal checks that every change point reported
// carries the statistics of its segments in the final segmentation.
func TestReportedStatisticsAreFinal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 100 {
		n := 20 + r.IntN(300)
		x := make([]float64, n)
		level := 100.0
		for i := range x {
			if r.Float64() < 0.03 {
				level *= 1 + 0.3*(r.Float64()-0.5)
			}
			x[i] = level * (1 + 0.02*r.NormFloat64())
		}
		cps, _ := EDivisive{WindowLen: 20 + r.IntN(40)}.ChangePoints(x)
		idx := make([]int, len(cps))
		for i, c := range cps {
			idx[i] = c.Index
		}
		for i, c := range cps {
			if want := changePointAt(x, c.Index, prevIndex(idx, i), nextIndex(idx, i, n)); c != want {
				t.Fatalf("trial %d: change point %d has stale statistics %+v, want %+v", trial, i, c, want)
			}
			if c.PValue >= 0.001 {
				t.Fatalf("trial %d: change point %+v kept with p >= 0.001", trial, c)
			}
		}
	}
}

func TestEDivisiveDeterministic(t *testing.T) {
	t.Parallel()
	x := noisy(3, 400, 150, 1.1)
	first, _ := EDivisive{}.ChangePoints(x)
	for range 5 {
		again, _ := EDivisive{}.ChangePoints(slices.Clone(x))
		if !slices.Equal(first, again) {
			t.Fatalf("change points differ between runs: %+v vs %+v", first, again)
		}
	}
}
