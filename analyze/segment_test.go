package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// builds makes n history builds of m runs around level(i) with relative
// gaussian noise sd.
func builds(r *rand.Rand, n, m int, sd float64, level func(i int) float64) []Point {
	out := make([]Point, n)
	for i := range out {
		out[i] = runsOf(r, m, sd, level(i))
	}
	return out
}

func runsOf(r *rand.Rand, m int, sd, level float64) Point {
	runs := make([]float64, m)
	for k := range runs {
		runs[k] = level * (1 + sd*r.NormFloat64())
	}
	return PointOf(runs...)
}

func TestReferenceLatestStableSegment(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	// A 15% step ten builds ago: the reference is the new level, built
	// from the ten builds after it.
	h := builds(r, 20, 5, 0.01, func(i int) float64 {
		if i < 10 {
			return 100
		}
		return 85
	})
	ref, ok := NewReference(h, runsOf(r, 5, 0.01, 85), EDivisive{})
	if !ok || ref.Start != 10 || ref.Builds != 10 || math.Abs(ref.Level-85) > 1 || ref.TrendPercent != 0 {
		t.Fatalf("reference %+v, want the 10 builds from 10 at 85", ref)
	}
	if !(ref.Between > 0.002 && ref.Between < 0.02) || !(ref.Within > 0.005 && ref.Within < 0.02) {
		t.Errorf("spreads: between %g, within %g; want about 0.5%% and 1%%", ref.Between, ref.Within)
	}
}

func TestReferenceSpikes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	h := builds(r, 20, 5, 0.01, func(int) float64 { return 100 })
	h[7] = runsOf(r, 5, 0.01, 70)  // one slow build in the middle
	h[19] = runsOf(r, 5, 0.01, 60) // and the last one: a spike until a next build says otherwise
	ref, _ := NewReference(h, runsOf(r, 5, 0.01, 100), EDivisive{})
	if len(ref.Spikes) != 2 || ref.Spikes[0] != 7 || ref.Spikes[1] != 19 || len(ref.ChangePoints) != 0 {
		t.Errorf("spikes %v, change points %v; want spikes [7 19] and no segment", ref.Spikes, ref.ChangePoints)
	}
	if math.Abs(ref.Level-100) > 1 {
		t.Errorf("level %g, want about 100", ref.Level)
	}
}

func TestReferenceDrift(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	// The machine pool gets 1% faster every build: the level of the 21st
	// build is about 100·1.01^20, not the history's median.
	h := builds(r, 20, 5, 0.01, func(i int) float64 { return 100 * math.Pow(1.01, float64(i)) })
	ref, _ := NewReference(h, runsOf(r, 5, 0.01, 122), EDivisive{})
	if want := 100 * math.Pow(1.01, 20); math.Abs(ref.Level/want-1) > 0.015 {
		t.Errorf("level %g, want about %g (the trend extrapolated)", ref.Level, want)
	}
	if math.Abs(ref.TrendPercent-1) > 0.2 || ref.Builds != 20 {
		t.Errorf("trend %g%%/build over %d builds, want about 1%% over 20", ref.TrendPercent, ref.Builds)
	}
}

func TestReferenceShortHistory(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	h := builds(r, 2, 5, 0.02, func(int) float64 { return 100 })
	ref, _ := NewReference(h, runsOf(r, 5, 0.02, 100), EDivisive{})
	// Two builds: no build-to-build spread, the run-to-run one instead and
	// one degree of freedom.
	if !math.IsNaN(ref.Between) || math.IsNaN(ref.Within) || ref.DF != 1 || !(ref.SE > 0) {
		t.Errorf("short history: %+v", ref)
	}
}

func TestSegmentEvaluate(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	h := builds(r, 20, 5, 0.02, func(int) float64 { return 100 })
	for _, c := range []struct {
		name    string
		current Point
		dir     Direction
		want    Status
	}{
		{"20% drop of a rate", runsOf(r, 5, 0.02, 80), HigherIsBetter, StatusRegression},
		{"20% drop of a latency", runsOf(r, 5, 0.02, 80), LowerIsBetter, StatusImprovement},
		{"unchanged", runsOf(r, 5, 0.02, 100), HigherIsBetter, StatusOK},
		// Three of five runs in a slow phase of the host, two at the usual
		// level: the runs disagree, the build cannot be judged.
		{"split build", PointOf(70, 71, 69.5, 100, 101), HigherIsBetter, StatusNoisy},
	} {
		got := Segment{}.Evaluate(Input{History: h, Current: c.current, Direction: c.dir})
		if got.Status != c.want {
			t.Errorf("%s: %s (%s; %s), want %s", c.name, got.Status, got.Details, got.Reason, c.want)
		}
		if !(got.Noise > 0 && got.Noise < 0.03) || got.HistoryBuilds != 20 {
			t.Errorf("%s: noise %g over %d builds", c.name, got.Noise, got.HistoryBuilds)
		}
	}
}

func TestSegmentChangePoints(t *testing.T) {
	t.Parallel()
	s := []float64{10, 10.1, 9.9, 10, 30, 10.1, 10, 9.9, 10, 10.1, 20, 20.1, 19.9, 20, 20.2, 19.8, 20}
	cps, _ := Segment{}.ChangePoints(s)
	if len(cps) != 1 || cps[0].Index != 10 {
		t.Errorf("change points %+v, want one at 10 (the spike at 4 is not a segment)", cps)
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	res := func(status Status, p, delta, noise float64) *Result {
		return &Result{Status: status, PValue: p, DeltaPercent: delta, Noise: noise, Detectable: 4, HistoryBuilds: 20}
	}
	big := res(StatusRegression, 1e-6, -20, 0.01)
	small := res(StatusRegression, 1e-6, -2.5, 0.002) // real but under the 3% minimum effect
	noisy := res(StatusRegression, 0.001, -8, 0.04)   // under 3 x 4% of noise, and could not see 12%
	weak := res(StatusImprovement, 0.045, 10, 0.01)   // p 0.045 alone, not after BH over 7 tests: undecided
	faint := res(StatusImprovement, 0.045, 2, 0.002)  // neither significant nor beyond the floor
	steady := res(StatusOK, 0.5, 0.1, 0.01)
	calm := res(StatusOK, 0.5, 12, 0.01) // a large difference the method did not take for a change
	Gate{}.Apply([]*Result{big, small, noisy, weak, faint, steady, calm})
	for _, c := range []struct {
		name string
		r    *Result
		want Status
		text string
	}{
		{"big", big, StatusRegression, ""},
		{"small", small, StatusOK, "under the floor of 3.00% (minimum effect)"},
		{"noisy", noisy, StatusNoisy, "changes under 12.0%"},
		{"weak", weak, StatusNoisy, "undecided: a change of +10.0% is not significant across the analysis (q=0.063 over the false discovery rate 0.05 across 7 tests)"},
		{"faint", faint, StatusOK, "over the false discovery rate 0.05 across 7 tests"},
		{"steady", steady, StatusOK, ""},
		{"calm", calm, StatusOK, ""},
	} {
		if c.r.Status != c.want || !strings.Contains(c.r.Details+c.r.Reason, c.text) {
			t.Errorf("%s: %s (%q %q), want %s with %q", c.name, c.r.Status, c.r.Details, c.r.Reason, c.want, c.text)
		}
	}
	if math.Abs(weak.QValue-0.063) > 1e-12 || big.Floor != 3 || noisy.Floor != 12 {
		t.Errorf("q %g, floors %g %g", weak.QValue, big.Floor, noisy.Floor)
	}
	if err := (Gate{FDR: 2}).Validate(); err == nil {
		t.Error("FDR 2 accepted")
	}
}

// TestHampelLeavesPatternsAlone: a bump every third build (a periodic
// load on a shared pool) is the series' noise, not spikes; one value far
// from both sides is a spike.
func TestHampelLeavesPatternsAlone(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	var bumps []float64
	for i := range 24 {
		v := 10 + 0.001*r.NormFloat64()
		if i%3 == 2 {
			v++
		}
		bumps = append(bumps, v)
	}
	for i, spike := range hampel(bumps) {
		if spike {
			t.Errorf("value %d of a periodic series taken for a spike", i)
		}
	}
	flat := []float64{10, 10.1, 9.9, 10, 10.1, 30, 10, 9.9, 10.1, 10, 9.9, 10}
	if got := hampel(flat); !got[5] || slices.Contains(append(got[:5:5], got[6:]...), true) {
		t.Errorf("spikes %v, want only index 5", got)
	}
}
