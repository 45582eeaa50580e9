package analyze_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/analyze"
)

// hosts are reference builds at these loads, each with CPU share 0.9.
func hosts(loads ...float64) []analyze.Point {
	out := make([]analyze.Point, len(loads))
	for i, l := range loads {
		out[i] = analyze.Point{Value: 100, HostLoad: l, CPUShare: 0.9}
	}
	return out
}

// TestHostChange: busier or quieter only when both the load moved past
// the margin and the runs' CPU share past the ratio; unknown when the
// current point or most reference builds lack either.
func TestHostChange(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		name        string
		load, share float64
		ref         []analyze.Point
		want        int
		explains    float64
	}{
		{"as loaded", 1.4, 0.9, hosts(1.2, 1.5, 1.3), 0, 0},
		{"busier, a third of the CPU", 2.6, 0.3, hosts(1.2, 1.5, 1.3), 1, 2 * (0.9/0.3 - 1)},
		{"busier, the CPU share kept (niced load)", 2.6, 0.88, hosts(1.2, 1.5, 1.3), 0, 0},
		{"less CPU, the load within the margin (the code waits)", 1.8, 0.3, hosts(1.2, 1.5, 1.3), 0, 0},
		{"quieter, more CPU", 0.5, 1.0, hosts(1.2, 1.5, 1.3), -1, 2 * (1.0/0.9 - 1)},
		{"current load unknown", nan, 0.3, hosts(1.2, 1.5), 0, 0},
		{"current share unknown", 3, nan, hosts(1.2, 1.5), 0, 0},
		{"most reference loads unknown", 3, 0.3, hosts(1.2, nan, nan), 0, 0},
		{"half the reference loads known", 3, 0.3, hosts(1.2, nan), 1, 2 * (0.9/0.3 - 1)},
		{"no reference", 3, 0.3, nil, 0, 0},
	} {
		ev := analyze.HostChange(analyze.Point{HostLoad: c.load, CPUShare: c.share}, c.ref)
		if ev.Change != c.want || math.Abs(ev.Explains-c.explains) > 1e-12 {
			t.Errorf("%s: HostChange = %+v, want change %d explaining %v", c.name, ev, c.want, c.explains)
		}
	}
}

// TestExplainedByHost: a regression on a busier host and an improvement
// on a quieter one become noisy, the reason naming the loads and shares,
// when the CPU lost or gained explains their size; larger changes, and
// the changes the host would hide, stand.
func TestExplainedByHost(t *testing.T) {
	t.Parallel()
	ref := hosts(1.2, 1.4, 1.3)
	for _, c := range []struct {
		status             analyze.Status
		current, reference float64
		load, share        float64
		want               analyze.Status
	}{
		{analyze.StatusRegression, 250, 100, 2.8, 0.3, analyze.StatusNoisy},       // 150% slower, 3x less CPU: explains up to 400%
		{analyze.StatusRegression, 700, 100, 2.8, 0.3, analyze.StatusRegression},  // 600% slower: more than the host explains
		{analyze.StatusImprovement, 80, 100, 0.3, 1.0, analyze.StatusImprovement}, // 25% faster; 11% more CPU explains up to 22%
		{analyze.StatusImprovement, 95, 100, 0.3, 1.0, analyze.StatusNoisy},
		{analyze.StatusRegression, 120, 100, 0.3, 1.0, analyze.StatusRegression},
		{analyze.StatusImprovement, 80, 100, 2.8, 0.3, analyze.StatusImprovement},
		{analyze.StatusRegression, 120, 100, 1.5, 0.9, analyze.StatusRegression},
		{analyze.StatusOK, 120, 100, 2.8, 0.3, analyze.StatusOK},
	} {
		r := analyze.Result{Status: c.status, Current: c.current, Reference: c.reference, DeltaPercent: 100 * (c.current/c.reference - 1)}
		changed := analyze.ExplainedByHost(&r, analyze.Point{HostLoad: c.load, CPUShare: c.share}, ref)
		if r.Status != c.want || changed != (c.want != c.status) {
			t.Errorf("%s %v against %v at load %v, share %v: status %s (changed %v), want %s", c.status, c.current, c.reference, c.load, c.share, r.Status, changed, c.want)
		}
		if changed && (!strings.HasPrefix(r.Reason, analyze.HostReason) || !strings.Contains(r.Reason, "--baseline") ||
			!strings.Contains(r.Reason, "0.90") || !strings.Contains(r.Reason, fmt.Sprintf("%+.1f%%", r.DeltaPercent))) {
			t.Errorf("%s at load %v: reason %q", c.status, c.load, r.Reason)
		}
	}
}
