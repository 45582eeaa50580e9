package cpdscore

import (
	"math"
	"slices"
	"testing"
)

// The doctests of TCPDBench's analysis/scripts/metrics.py, and hand-checked
// cases.
func TestTruePositives(t *testing.T) {
	for _, c := range []struct {
		truth, pred []int
		want        int
	}{
		{[]int{1, 10, 20, 23}, []int{3, 8, 20}, 3},
		{[]int{1, 10, 20, 23}, []int{1, 3, 8, 20}, 3},
		{[]int{1, 10, 20, 23}, []int{1, 3, 5, 8, 20}, 3},
		{nil, []int{1, 2, 3}, 0},
		{[]int{1, 2, 3}, nil, 0},
		// One prediction counts once: 11 is within 5 of both.
		{[]int{10, 12}, []int{11}, 1},
		// 10 is 2 from 8 and from 12 and takes the smaller, 8, as
		// TCPDBench's sort of (distance, index) does; 14 then takes 12.
		{[]int{10, 14}, []int{8, 12}, 2},
	} {
		if got := TruePositives(c.truth, c.pred, Margin); got != c.want {
			t.Errorf("TruePositives(%v, %v) = %d, want %d", c.truth, c.pred, got, c.want)
		}
	}
}

func TestFMeasure(t *testing.T) {
	// centralia's annotations in TCPD (annotator id -> change points).
	centralia := map[string][]int{"6": {3, 12}, "7": {}, "8": {12}, "9": {4, 8, 12}, "13": {}}
	for _, c := range []struct {
		name        string
		annotations map[string][]int
		pred        []int
		f, p, r     float64
	}{
		// metrics.py doctests.
		{"doctest 1", map[string][]int{"1": {10, 20}, "2": {11, 20}, "3": {10}, "4": {0, 5}}, []int{10, 20}, 1, 1, 1},
		{"doctest 2", map[string][]int{"1": {}, "2": {10}, "3": {50}}, []int{10}, 0.9090909090909091, 1, 5.0 / 6},
		{"doctest 3", map[string][]int{"1": {}, "2": {10}, "3": {50}}, nil, 0.8, 1, 2.0 / 3},
		// No change on centralia: P = 1 ({0} matched), R = (1/3 + 1 +
		// 1/2 + 1/4 + 1)/5 = 37/60, F = 2PR/(P+R) = 74/97, TCPDBench's
		// published "zero" F1 for centralia (0.7628865979381444).
		{"centralia, no change", centralia, nil, 74.0 / 97, 1, 37.0 / 60},
		// 11 matches 12 (or 8): P = 2/2; R = (2/3 + 1 + 1 + 2/4 + 1)/5 =
		// 5/6; F = 10/11.
		{"centralia, 11", centralia, []int{11}, 10.0 / 11, 1, 5.0 / 6},
		// Precision: 2 of {0, 10, 50, 100} match the union {0, 10}; both
		// annotators fully recalled: F = 2·(1/2)·1/(3/2) = 2/3.
		{"false alarms", map[string][]int{"a": {10}, "b": {}}, []int{10, 50, 100}, 2.0 / 3, 0.5, 1},
	} {
		f, p, r := FMeasure(c.annotations, c.pred, Margin)
		if math.Abs(f-c.f) > 1e-12 || math.Abs(p-c.p) > 1e-12 || math.Abs(r-c.r) > 1e-12 {
			t.Errorf("%s: F, P, R = %v, %v, %v; want %v, %v, %v", c.name, f, p, r, c.f, c.p, c.r)
		}
	}
}

func TestClean(t *testing.T) {
	// summarize.py keeps 1 <= x < n-1, once each.
	if got, want := Clean([]int{0, 5, 5, 3, 98, 99, 100}, 100), []int{3, 5, 98}; !slices.Equal(got, want) {
		t.Errorf("clean = %v, want %v", got, want)
	}
}
