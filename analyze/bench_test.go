package analyze

import "testing"

// BenchmarkEDivisive500 is one series of 500 points with a step, at the
// defaults (10 windows of 50 stepping by 25).
func BenchmarkEDivisive500(b *testing.B) {
	x := noisy(1, 500, 300, 1.1)
	for b.Loop() {
		EDivisive{}.ChangePoints(x)
	}
}

// BenchmarkMannWhitneyExact49 is the largest exact case: 49 vs 49 runs.
func BenchmarkMannWhitneyExact49(b *testing.B) {
	x, y := noisy(1, 49, 49, 1), noisy(2, 49, 49, 1)
	for b.Loop() {
		MannWhitneyU(x, y)
	}
}

// BenchmarkWindow500 is the default detector on a series of 500 points
// with a step (bench/changepoints.sh runs 1,000 of them: target 0.5 s).
func BenchmarkWindow500(b *testing.B) {
	x := noisy(1, 500, 300, 1.1)
	d := Window()
	for b.Loop() {
		d.ChangePoints(x)
	}
}

// BenchmarkShiftEvaluate100 is the default method judging one build
// against 100 builds of 5 runs (bench/regression.sh judges 1,000 entries
// against 100,000 stored payloads: target 5 s).
func BenchmarkShiftEvaluate100(b *testing.B) {
	vals := noisy(3, 505, 505, 1)
	h := make([]Point, 100)
	for i := range h {
		h[i] = PointOf(vals[5*i : 5*i+5]...)
	}
	cur := PointOf(vals[500:]...)
	m := Shift{}
	for b.Loop() {
		m.Evaluate(Input{History: h, Current: cur, Direction: HigherIsBetter})
	}
}
