package compare

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"golang.org/x/perf/benchmath"
)

// TestUTestByRankPattern: a U test kept by rank pattern is the test of
// the samples given, for samples with and without ties, of any sizes,
// and for other samples of the same pattern (the values moved and
// scaled); samples whose patterns differ are told apart.
func TestUTestByRankPattern(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	th := benchmath.DefaultThresholds
	sample := func(vs []float64) *benchmath.Sample { return benchmath.NewSample(append([]float64(nil), vs...), &th) }
	draw := func(n int, ties bool, shift float64) []float64 {
		vs := make([]float64, n)
		for i := range vs {
			if ties {
				vs[i] = float64(rng.IntN(4)) + shift
			} else {
				vs[i] = rng.Float64() + shift
			}
		}
		return vs
	}
	tests := uTests{}
	for i := range 2000 {
		ties := i%2 == 0
		a, b := draw(1+rng.IntN(8), ties, 0), draw(1+rng.IntN(8), ties, rng.Float64()/2)
		if i%100 == 0 {
			a, b = draw(40, ties, 0), draw(30, ties, 0.2) // past maxPatternRuns: not kept
		}
		want := benchmath.AssumeNothing.Compare(sample(a), sample(b))
		for round := range 2 { // made, then kept
			if got := tests.test(sample(a), sample(b)); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, %v against %v: %+v, want %+v", round, a, b, got, want)
			}
		}
		// Another pair of the same pattern: its kept test is its own.
		scale := func(vs []float64) []float64 {
			out := make([]float64, len(vs))
			for k, v := range vs {
				out[k] = 3*v + 7
			}
			return out
		}
		if got, want := tests.test(sample(scale(a)), sample(scale(b))), benchmath.AssumeNothing.Compare(sample(scale(a)), sample(scale(b))); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v against %v, scaled: %+v, want %+v", a, b, got, want)
		}
	}
	// Patterns differ by ties and by order.
	x := sample([]float64{1, 2, 3})
	for _, y := range [][]float64{{1, 2, 4}, {2, 3, 4}, {0.5, 1.5, 2.5}} {
		k1, _ := rankPattern(nil, x, sample([]float64{1.5, 2.5, 3.5}))
		k2, _ := rankPattern(nil, x, sample(y))
		if string(k1) == string(k2) {
			t.Errorf("%v against %v: the pattern of 1.5, 2.5, 3.5", x.Values, y)
		}
	}
	if _, ok := rankPattern(nil, sample([]float64{1, math.NaN()}), x); ok {
		t.Error("a NaN value: a pattern")
	}
}
