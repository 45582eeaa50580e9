package analyze

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// twoLevel draws runs x samples from a two-level process: each run's level
// is center x exp(N(0, between)), each sample the run's level x
// exp(N(0, within)).
func twoLevel(rng *rand.Rand, runs, samples int, center, between, within float64) [][]float64 {
	out := make([][]float64, runs)
	for i := range out {
		lvl := center * math.Exp(between*rng.NormFloat64())
		out[i] = make([]float64, samples)
		for j := range out[i] {
			out[i][j] = lvl * math.Exp(within*rng.NormFloat64())
		}
	}
	return out
}

// TestHierBootstrapCalibration: for sides from the same process (3 runs x
// 15 samples, runs differing by more than their samples suggest) p < 0.05
// in at most 5% of 200 seeded pairs; a 2x change is found in every pair,
// its interval holding 2.
func TestHierBootstrapCalibration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		between, within float64
	}{
		{"between-run noise", 0.05, 0.05},
		{"between-run noise dominates", 0.10, 0.02},
		{"within-run noise dominates", 0.02, 0.20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(21, 2))
			const pairs = 200
			falsePos, missed, outside := 0, 0, 0
			for range pairs {
				a := twoLevel(rng, 3, 15, 10, tc.between, tc.within)
				same := twoLevel(rng, 3, 15, 10, tc.between, tc.within)
				twice := twoLevel(rng, 3, 15, 20, tc.between, tc.within)
				r, err := HierBootstrap{}.Compare(a, same)
				if err != nil {
					t.Fatal(err)
				}
				if r.P < 0.05 {
					falsePos++
				}
				r, err = HierBootstrap{}.Compare(a, twice)
				if err != nil {
					t.Fatal(err)
				}
				if r.P >= 0.05 || r.Ratio < 1 {
					missed++
				}
				if !(r.Lo <= 2 && 2 <= r.Hi) {
					outside++
				}
			}
			t.Logf("p < 0.05 for equal sides: %d/%d; 2x missed: %d/%d; 2 outside the interval: %d/%d", falsePos, pairs, missed, pairs, outside, pairs)
			if falsePos > pairs*5/100 {
				t.Errorf("p < 0.05 in %d of %d pairs of equal sides, want <= 5%%", falsePos, pairs)
			}
			if missed > 0 {
				t.Errorf("a 2x change missed in %d of %d pairs", missed, pairs)
			}
		})
	}
}

// TestHierBootstrapReference checks Compare against an independent NumPy
// implementation of the same algorithm (testdata/hierboot_reference.py),
// on the fixed inputs of testdata/hierboot_cases.json. The numbers are its
// output, `/usr/bin/python3 analyze/testdata/hierboot_reference.py 400000`
// (NumPy 1.24, generator seed 1997): the reference draws 400000 resamples
// and this takes the exact bootstrap variance, so they agree within the
// reference's Monte-Carlo error (the standard errors to about 0.3%); the
// point estimate is exact.
func TestHierBootstrapReference(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/hierboot_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string
		Paired bool
		A, B   [][]float64
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	want := map[string][7]float64{} // ratio, lo, hi, p, df, se A, se B
	for _, r := range []struct {
		name string
		v    [7]float64
	}{
		{"3x15, 2x slower", [7]float64{1.9816, 1.69668, 2.31436, 0.001504, 2.4696, 0.0406892, 0.0140401}},
		{"3x15, same process", [7]float64{1.07224, 0.90748, 1.26692, 0.305421, 3.82503, 0.036996, 0.0459723}},
		{"uneven runs, 10% faster", [7]float64{0.932124, 0.816549, 1.06406, 0.207556, 3.67353, 0.0362632, 0.0283347}},
		{"single values, 5 runs vs 3", [7]float64{1.11702, 1.04167, 1.19783, 0.011844, 3.94458, 0.0142922, 0.0205326}},
		{"5 rounds of a drifting host, 10% slower, paired", [7]float64{1.09756, 1.07964, 1.11577, 9.60005e-05, 4, 0.0917689, 0.0968517}},
		{"4 rounds, same process, paired", [7]float64{0.984865, 0.969801, 1.00016, 0.0513148, 3, 0.0396576, 0.0384091}},
		{"10 rounds, one run of each side slowed 40%, 8% slower, paired", [7]float64{1.08667, 1.07825, 1.09517, 3.90051e-08, 7, 0.0387729, 0.0351987}},
	} {
		want[r.name] = r.v
	}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, %d reference results", len(cases), len(want))
	}
	for _, c := range cases {
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("%s: no reference result", c.Name)
			continue
		}
		compare := HierBootstrap{}.Compare
		if c.Paired {
			compare = HierBootstrap{}.ComparePaired
		}
		r, err := compare(c.A, c.B)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if r.Paired != c.Paired {
			t.Errorf("%s: Paired %v, want %v", c.Name, r.Paired, c.Paired)
		}
		got := [7]float64{r.Ratio, r.Lo, r.Hi, r.P, r.DF, r.A.SE, r.B.SE}
		tol := [7]float64{1e-5, 0.005, 0.005, 0.05, 0.03, 0.015, 0.015} // relative
		names := [7]string{"ratio", "lo", "hi", "p", "df", "se A", "se B"}
		for i := range got {
			if math.Abs(got[i]-w[i]) > tol[i]*math.Abs(w[i]) {
				t.Errorf("%s: %s %.6g, reference %.6g (tolerance %g%%)", c.Name, names[i], got[i], w[i], tol[i]*100)
			}
		}
	}
}

// TestHierBootstrapExact: the exact bootstrap variance Compare takes is
// what resamples drawn estimate: with 400,000 of them each side's
// standard error agrees within 0.5% (the Monte-Carlo error of a variance
// from B resamples is about sqrt(2/B), 0.22%, of it; half that of a
// standard error), for runs of one value, of equal and unequal lengths.
func TestHierBootstrapExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		a, b [][]float64
	}{
		{"3x15", twoLevel(rng, 3, 15, 10, 0.05, 0.05), twoLevel(rng, 3, 15, 11, 0.05, 0.05)},
		{"single values", [][]float64{{10}, {11}, {10.5}, {9.8}}, [][]float64{{12}, {11.5}}},
		{"uneven runs", [][]float64{{1, 1.1, 0.9}, {1.2, 1.3}, {0.8, 0.85, 0.9, 0.95, 1}}, [][]float64{{2, 2.2}, {1.9, 2.1, 2, 2.05}}},
	} {
		exact, err := HierBootstrap{}.Compare(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		drawn, err := HierBootstrap{Resamples: 400000}.Compare(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if exact.Resamples != 0 || drawn.Resamples != 400000 {
			t.Errorf("%s: resamples %d and %d, want 0 (exact) and 400000", tc.name, exact.Resamples, drawn.Resamples)
		}
		for _, se := range [][2]float64{{exact.A.SE, drawn.A.SE}, {exact.B.SE, drawn.B.SE}} {
			if math.Abs(se[0]/se[1]-1) > 0.005 {
				t.Errorf("%s: standard error %.6g exact, %.6g from 400000 resamples", tc.name, se[0], se[1])
			}
		}
		if exact.Ratio != drawn.Ratio || math.Abs(exact.P-drawn.P) > 0.01*max(exact.P, 1e-3) {
			t.Errorf("%s: ratio %v p %v exact, ratio %v p %v drawn", tc.name, exact.Ratio, exact.P, drawn.Ratio, drawn.P)
		}
	}
}

// TestHierBootstrapPairedCalibration: sides measured in rounds on a host
// whose state moves both runs of a round (a round effect of 10%, samples
// within a run 3%), 5 rounds x 10 samples: for equal sides p < 0.05 in
// 5% of 1,000 seeded pairs (at most 6.5%, two standard errors of a
// binomial above it), paired; a real 5% slowdown found in nearly every
// pair when paired, where the unpaired comparison, which counts the round
// effect as noise, finds it in few.
func TestHierBootstrapPairedCalibration(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 3))
	rounds := func(ratio float64) (a, b [][]float64) {
		for range 5 {
			host := math.Exp(0.10 * rng.NormFloat64())
			a = append(a, twoLevel(rng, 1, 10, 10*host, 0, 0.03)[0])
			b = append(b, twoLevel(rng, 1, 10, 10*host*ratio, 0, 0.03)[0])
		}
		return a, b
	}
	const pairs = 1000
	var falsePos, pairedFound, unpairedFound int
	for range pairs {
		a, b := rounds(1)
		r, err := HierBootstrap{Resamples: 500}.ComparePaired(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if r.P < 0.05 {
			falsePos++
		}
		a, b = rounds(1.05)
		if r, _ := (HierBootstrap{Resamples: 500}).ComparePaired(a, b); r.P < 0.05 && r.Ratio > 1 {
			pairedFound++
		}
		if r, _ := (HierBootstrap{Resamples: 500}).Compare(a, b); r.P < 0.05 && r.Ratio > 1 {
			unpairedFound++
		}
	}
	t.Logf("equal sides p < 0.05: %d/%d; 5%% found paired %d/%d, unpaired %d/%d", falsePos, pairs, pairedFound, pairs, unpairedFound, pairs)
	if falsePos > pairs*65/1000 {
		t.Errorf("p < 0.05 in %d of %d pairs of equal sides, want about 5%% (<= 6.5%%)", falsePos, pairs)
	}
	if pairedFound < pairs*95/100 {
		t.Errorf("a 5%% slowdown found in %d of %d pairs by rounds, want >= 95%%", pairedFound, pairs)
	}
	if unpairedFound >= pairedFound {
		t.Errorf("unpaired found %d, paired %d: pairing by rounds should find more", unpairedFound, pairedFound)
	}
}

// TestHierBootstrapDeterministic: the same input gives the same answer;
// bad inputs are errors.
func TestHierBootstrapDeterministic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := twoLevel(rng, 3, 15, 10, 0.05, 0.05), twoLevel(rng, 3, 15, 11, 0.05, 0.05)
	r1, err1 := HierBootstrap{}.Compare(a, b)
	r2, err2 := HierBootstrap{}.Compare(a, b)
	if err1 != nil || err2 != nil || r1 != r2 {
		t.Errorf("two answers to one input: %+v, %v; %+v, %v", r1, err1, r2, err2)
	}
	same, err := HierBootstrap{}.Compare(a, a)
	if err != nil || same.Ratio != 1 || same.P < 0.99 {
		t.Errorf("a side against itself: %+v, %v", same, err)
	}
	flat := [][]float64{{2, 2}, {2, 2}}
	if r, err := (HierBootstrap{}).Compare(flat, flat); err != nil || r.P != 1 || r.Lo != 1 || r.Hi != 1 {
		t.Errorf("equal constant sides: %+v, %v", r, err)
	}
	if r, err := (HierBootstrap{}).Compare(flat, [][]float64{{4}, {4}}); err != nil || r.P != 0 || r.Ratio != 2 {
		t.Errorf("constant sides apart: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		name string
		a, b [][]float64
		want error
	}{
		{"one run", [][]float64{{1, 2}}, a, ErrTooFewRuns},
		{"zero", a, [][]float64{{1}, {0}}, ErrNotPositive},
		{"NaN", a, [][]float64{{1}, {math.NaN()}}, ErrNotPositive},
	} {
		if _, err := (HierBootstrap{}).Compare(tc.a, tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := (HierBootstrap{Resamples: -1}).Compare(a, b); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("-1 resamples: %v", err)
	}
	p1, err1 := HierBootstrap{}.ComparePaired(a, b)
	p2, err2 := HierBootstrap{}.ComparePaired(a, b)
	if err1 != nil || err2 != nil || p1 != p2 || !p1.Paired || p1.DF != 2 {
		t.Errorf("two paired answers to one input, or not paired: %+v, %v; %+v, %v", p1, err1, p2, err2)
	}
	if r, err := (HierBootstrap{}).ComparePaired(flat, [][]float64{{4}, {4}}); err != nil || r.P != 0 || r.Ratio != 2 {
		t.Errorf("constant sides apart, paired: %+v, %v", r, err)
	}
	if _, err := (HierBootstrap{}).ComparePaired(a, a[:2]); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("3 runs against 2, paired: %v, want %v", err, ErrInvalidParam)
	}
	if _, err := (HierBootstrap{}).ComparePaired(a[:1], b[:1]); !errors.Is(err, ErrTooFewRuns) {
		t.Errorf("one round: %v, want %v", err, ErrTooFewRuns)
	}
}

// BenchmarkHierBootstrap: one comparison of 3 runs x 15 samples a side,
// by the exact bootstrap variance (2000 resamples drawn took 1.1 ms).
func BenchmarkHierBootstrap(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := twoLevel(rng, 3, 15, 10, 0.05, 0.05), twoLevel(rng, 3, 15, 11, 0.05, 0.05)
	for b.Loop() {
		if _, err := (HierBootstrap{}).Compare(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHierBootstrapStats: a comparison from the runs' summaries
// (CompareStats, what seshat serve reads from a store) is Compare's on the
// samples, figure for figure; summaries no run can have, too few runs and
// drawn resamples are refused.
func TestHierBootstrapStats(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	summarize := func(runs [][]float64) []RunStats {
		out := make([]RunStats, len(runs))
		for i, run := range runs {
			var err error
			if out[i], err = SummarizeRun(run); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		a, b [][]float64
	}{
		{"3x15", twoLevel(rng, 3, 15, 10, 0.05, 0.05), twoLevel(rng, 3, 15, 11, 0.05, 0.05)},
		{"uneven runs", [][]float64{{1, 1.1, 0.9}, {1.2, 1.3}, {0.8, 0.85, 0.9, 0.95, 1}}, [][]float64{{2, 2.2}, {1.9, 2.1, 2, 2.05}}},
		{"equal samples", [][]float64{{3, 3}, {3, 3, 3}}, [][]float64{{3}, {3, 3}}},
		{"a side of equal samples", [][]float64{{3, 3}, {3, 3, 3}}, [][]float64{{4, 4.2}, {3.9, 4}}},
	} {
		want, err := HierBootstrap{Confidence: 0.9}.Compare(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := HierBootstrap{Confidence: 0.9}.CompareStats(summarize(tc.a), summarize(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: from summaries %+v, from samples %+v", tc.name, got, want)
		}
	}
	if s, err := SummarizeRun([]float64{2, 2, 2}); err != nil || s != (RunStats{N: 3, LogMean: math.Log(2)}) {
		t.Errorf("SummarizeRun of equal samples: %+v, %v; want the variance exactly 0", s, err)
	}
	for _, bad := range [][]float64{nil, {1, 0}, {1, math.Inf(1)}, {math.NaN()}} {
		if _, err := SummarizeRun(bad); err == nil {
			t.Errorf("SummarizeRun(%v): no error", bad)
		}
	}
	good := RunStats{N: 3, LogMean: 1, LogVar: 0.1}
	for name, side := range map[string][]RunStats{
		"one run":           {good},
		"no sample":         {good, {N: 0, LogMean: 1}},
		"negative variance": {good, {N: 2, LogMean: 1, LogVar: -1}},
		"NaN mean":          {good, {N: 2, LogMean: math.NaN()}},
	} {
		if _, err := (HierBootstrap{}).CompareStats([]RunStats{good, good}, side); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := (HierBootstrap{Resamples: 100}).CompareStats([]RunStats{good, good}, []RunStats{good, good}); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("resamples from summaries: %v, want ErrInvalidParam", err)
	}
}

// TestHierBootstrapNoRatioInterval: without the ratio's interval (what
// seshat serve asks), a comparison's every other figure is as with it,
// by Compare, CompareStats and ComparePaired alike, and Lo and Hi are NaN.
func TestHierBootstrapNoRatioInterval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	a, b := twoLevel(rng, 4, 10, 10, 0.05, 0.05), twoLevel(rng, 4, 10, 10.5, 0.05, 0.05)
	equal := [][]float64{{3, 3}, {3, 3, 3}}
	for _, tc := range []struct {
		name string
		f    func(HierBootstrap) (HierResult, error)
	}{
		{"Compare", func(h HierBootstrap) (HierResult, error) { return h.Compare(a, b) }},
		{"Compare, a side of equal samples", func(h HierBootstrap) (HierResult, error) { return h.Compare(equal, b) }},
		{"Compare, resampled", func(h HierBootstrap) (HierResult, error) { h.Resamples = 200; return h.Compare(a, b) }},
		{"ComparePaired", func(h HierBootstrap) (HierResult, error) { return h.ComparePaired(a, b) }},
	} {
		want, err := tc.f(HierBootstrap{Confidence: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tc.f(HierBootstrap{Confidence: 0.9, NoRatioInterval: true})
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(got.Lo) || !math.IsNaN(got.Hi) {
			t.Errorf("%s: ratio interval [%v, %v], want NaN", tc.name, got.Lo, got.Hi)
		}
		got.Lo, got.Hi = want.Lo, want.Hi
		if got != want {
			t.Errorf("%s: without the ratio's interval %+v, with it %+v", tc.name, got, want)
		}
	}
}
