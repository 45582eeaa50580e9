package analyze_test

import (
	"math"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/analyze"
)

func loaded(loads ...float64) []analyze.Point {
	out := make([]analyze.Point, len(loads))
	for i, l := range loads {
		out[i] = analyze.Point{Value: 100, HostLoad: l}
	}
	return out
}

// TestHostChange: the current runs' load against the reference builds':
// busier or quieter only past both the ratio and the margin, unknown when
// the current load or most reference loads are not recorded.
func TestHostChange(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		name string
		now  float64
		ref  []float64
		want int
	}{
		{"as loaded", 1.4, []float64{1.2, 1.5, 1.3}, 0},
		{"busier", 2.6, []float64{1.2, 1.5, 1.3}, 1},
		{"above the ratio, within the margin", 0.4, []float64{0.1, 0.2}, 0},
		{"above the margin, within the ratio", 2.1, []float64{1.2, 1.5}, 0},
		{"quieter", 0.5, []float64{1.2, 1.5, 1.3}, -1},
		{"idle history, idle now", 0, []float64{0, 0.1}, 0},
		{"current load unknown", nan, []float64{1.2, 1.5}, 0},
		{"most reference loads unknown", 3, []float64{1.2, nan, nan}, 0},
		{"half the reference loads known", 3, []float64{1.2, nan}, 1},
		{"no reference", 3, nil, 0},
	} {
		got, _, _ := analyze.HostChange(analyze.Point{HostLoad: c.now}, loaded(c.ref...))
		if got != c.want {
			t.Errorf("%s: HostChange(%v against %v) = %d, want %d", c.name, c.now, c.ref, got, c.want)
		}
	}
}

// TestExplainedByHost: a regression on a busier host and an improvement on
// a quieter one become noisy with the reason naming both loads; the host
// would hide the others, which stand.
func TestExplainedByHost(t *testing.T) {
	t.Parallel()
	ref := loaded(1.2, 1.4, 1.3)
	for _, c := range []struct {
		status analyze.Status
		now    float64
		want   analyze.Status
	}{
		{analyze.StatusRegression, 2.8, analyze.StatusNoisy},
		{analyze.StatusImprovement, 0.3, analyze.StatusNoisy},
		{analyze.StatusRegression, 0.3, analyze.StatusRegression},
		{analyze.StatusImprovement, 2.8, analyze.StatusImprovement},
		{analyze.StatusRegression, 1.5, analyze.StatusRegression},
		{analyze.StatusOK, 2.8, analyze.StatusOK},
	} {
		r := analyze.Result{Status: c.status, DeltaPercent: 12.5}
		changed := analyze.ExplainedByHost(&r, analyze.Point{HostLoad: c.now}, ref)
		if r.Status != c.want || changed != (c.want != c.status) {
			t.Errorf("%s at load %v: status %s (changed %v), want %s", c.status, c.now, r.Status, changed, c.want)
		}
		if changed && (!strings.HasPrefix(r.Reason, analyze.HostReason) || !strings.Contains(r.Reason, "1.2–1.4") ||
			!strings.Contains(r.Reason, "+12.5%") || !strings.Contains(r.Reason, "--baseline")) {
			t.Errorf("%s at load %v: reason %q", c.status, c.now, r.Reason)
		}
	}
}
