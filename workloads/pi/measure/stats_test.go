package measure

import (
	"math"
	"testing"
)

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i + 1)
	}
	return s
}

func TestMedianCI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		n           int
		lo, hi      float64 // 1-based ranks, as order-statistics tables give them
		minCoverage float64
		maxCoverage float64
	}{
		// Too few samples: the whole range, with its exact (lower) coverage.
		{name: "n=1", n: 1, lo: 1, hi: 1, minCoverage: 0, maxCoverage: 0.01},
		{name: "n=5", n: 5, lo: 1, hi: 5, minCoverage: 0.9375, maxCoverage: 0.9375},
		{name: "n=6", n: 6, lo: 1, hi: 6, minCoverage: 0.968, maxCoverage: 0.969},
		{name: "n=10", n: 10, lo: 2, hi: 9, minCoverage: 0.978, maxCoverage: 0.979},
		// Published tables: n=100 gives the 40th and 61st values.
		{name: "n=100", n: 100, lo: 40, hi: 61, minCoverage: 0.95, maxCoverage: 0.97},
		{name: "n=1000", n: 1000, lo: 469, hi: 532, minCoverage: 0.95, maxCoverage: 0.96},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lo, hi, cov := MedianCI(seq(tc.n), Confidence)
			if lo != tc.lo || hi != tc.hi {
				t.Errorf("interval = [x(%v), x(%v)], want [x(%v), x(%v)]", lo, hi, tc.lo, tc.hi)
			}
			if cov < tc.minCoverage || cov > tc.maxCoverage {
				t.Errorf("coverage = %v, want in [%v, %v]", cov, tc.minCoverage, tc.maxCoverage)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		samples []float64
		median  float64
		mean    float64
		cv      float64
	}{
		{name: "odd", samples: []float64{3, 1, 2}, median: 2, mean: 2, cv: 0.5},
		{name: "even", samples: []float64{4, 1, 3, 2}, median: 2.5, mean: 2.5, cv: math.Sqrt(5.0/3) / 2.5},
		{name: "single", samples: []float64{7}, median: 7, mean: 7, cv: 0},
		{name: "constant", samples: []float64{5, 5, 5, 5, 5, 5}, median: 5, mean: 5, cv: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]float64(nil), tc.samples...)
			s, err := Summarize(in)
			if err != nil {
				t.Fatal(err)
			}
			if s.Median != tc.median || s.Mean != tc.mean || math.Abs(s.CV-tc.cv) > 1e-12 || s.N != len(in) {
				t.Errorf("got %+v, want median %v mean %v cv %v", s, tc.median, tc.mean, tc.cv)
			}
			for i := range in {
				if in[i] != tc.samples[i] {
					t.Fatal("Summarize reordered its input: samples must be kept in order")
				}
			}
		})
	}
}

func TestSummarizeRejects(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1)}, {-1}} {
		if _, err := Summarize(bad); err == nil {
			t.Errorf("Summarize(%v) accepted", bad)
		}
	}
}
