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
