package analyze_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/analyze"
)

// hosts are reference builds with these CPU shares, each at load 1.3,
// their CPU pressure unknown.
func hosts(shares ...float64) []analyze.Point {
	out := make([]analyze.Point, len(shares))
	for i, sh := range shares {
		out[i] = analyze.Point{Value: 100, HostLoad: 1.3, CPUShare: sh, CPUPressure: math.NaN()}
	}
	return out
}

// pressed are reference builds with these CPU shares and a CPU pressure
// of 0.1, each at load 1.3.
func pressed(shares ...float64) []analyze.Point {
	out := hosts(shares...)
	for i := range out {
		out[i].CPUPressure = 0.1
	}
	return out
}

// TestHostChange: busier or quieter when the runs' CPU share moved past
// the ratio from the reference builds' median and the load past the
// margin, the same way; unknown when the current point or most reference
// builds lack either.
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
		{"as much CPU", 1.4, 0.88, hosts(0.9, 0.85, 0.95), 0, 0},
		{"a third of the CPU", 2.6, 0.3, hosts(0.9, 0.85, 0.95), 1, 2 * (0.9/0.3 - 1)},
		{"less CPU at a lower load (the history's load was niced)", 0.5, 0.45, hosts(0.9, 0.85, 0.95), 0, 0},
		{"less CPU at the same load (the code waits)", 1.4, 0.45, hosts(0.9, 0.85, 0.95), 0, 0},
		{"more load, as much CPU (niced load now)", 2.6, 0.88, hosts(0.9, 0.85, 0.95), 0, 0},
		{"one reference build starved: the median counts", 2.6, 0.45, hosts(0.9, 0.1, 0.95), 1, 2},
		{"more CPU", 0.5, 1.08, hosts(0.9, 0.85, 0.95), -1, 2 * (1.08/0.9 - 1)},
		{"current load unknown", nan, 0.3, hosts(0.9, 0.9), 0, 0},
		{"current share unknown", 3, nan, hosts(0.9, 0.9), 0, 0},
		{"current share 0", 3, 0, hosts(0.9, 0.9), 0, 0},
		{"most reference shares unknown", 3, 0.3, hosts(0.9, 0, 0), 0, 0},
		{"half the reference shares known", 3, 0.3, hosts(0.9, 0), 1, 2 * (0.9/0.3 - 1)},
		{"no reference", 3, 0.3, nil, 0, 0},
	} {
		ev := analyze.HostChange(analyze.Point{HostLoad: c.load, CPUShare: c.share, CPUPressure: nan}, c.ref)
		if ev.Change != c.want || math.Abs(ev.Explains-c.explains) > 1e-12 || ev.ByPressure {
			t.Errorf("%s: HostChange = %+v, want change %d explaining %v, by the load", c.name, ev, c.want, c.explains)
		}
	}
}

// TestHostChangeByPressure: where the runs and most reference builds
// counted the CPU pressure, it decides instead of the load: a busy phase
// whose load average has not risen yet is seen, a niced load that takes
// no CPU from the runs is not, and code that waits is still code.
func TestHostChangeByPressure(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		name                  string
		load, share, pressure float64
		ref                   []analyze.Point
		want                  int
		byPressure            bool
	}{
		{"a busy phase before the load rose", 1.3, 0.5, 0.9, pressed(0.9, 0.85, 0.95), 1, true},
		{"a high load of niced tasks, no wait", 6, 0.5, 0.15, pressed(0.9, 0.85, 0.95), 0, true},
		{"the code waits (a sleep)", 1.3, 0.4, 0.1, pressed(0.9, 0.85, 0.95), 0, true},
		{"waits, but as much CPU", 1.3, 0.88, 0.9, pressed(0.9, 0.85, 0.95), 0, true},
		{"quieter", 1.3, 1.05, 0.0, []analyze.Point{{HostLoad: 1.3, CPUShare: 0.9, CPUPressure: 0.45}, {HostLoad: 1.3, CPUShare: 0.9, CPUPressure: 0.4}}, -1, true},
		{"current pressure unknown: the load decides", 2.6, 0.5, nan, pressed(0.9, 0.85, 0.95), 1, false},
		{"a history under pressure already: the load decides", 1.4, 0.45, 0.9, []analyze.Point{
			{HostLoad: 1.3, CPUShare: 0.69, CPUPressure: 0.66}, {HostLoad: 1.3, CPUShare: 0.69, CPUPressure: 0.7}}, 0, false},
		{"most reference pressures unknown: the load decides", 1.3, 0.5, 0.9, append(pressed(0.9), hosts(0.85, 0.95)...), 0, false},
	} {
		ev := analyze.HostChange(analyze.Point{HostLoad: c.load, CPUShare: c.share, CPUPressure: c.pressure}, c.ref)
		if ev.Change != c.want || ev.ByPressure != c.byPressure {
			t.Errorf("%s: HostChange = %+v, want change %d (by pressure %v)", c.name, ev, c.want, c.byPressure)
		}
	}
	r := analyze.Result{Status: analyze.StatusRegression, Current: 150, Reference: 100, DeltaPercent: 50}
	if !analyze.ExplainedByHost(&r, analyze.Point{HostLoad: 1.3, CPUShare: 0.5, CPUPressure: 0.9}, pressed(0.9, 0.85, 0.95)) ||
		!strings.Contains(r.Reason, "some task waited for a CPU 90% of their time, 10% in the history") {
		t.Errorf("status %s, reason %q: want noisy, naming the pressures", r.Status, r.Reason)
	}
}

// TestExplainedByHost: a regression on a busier host and an improvement
// on a quieter one become noisy, the reason naming the shares and loads,
// when the CPU lost or gained explains their size; larger changes, and
// the changes the host would hide, stand.
func TestExplainedByHost(t *testing.T) {
	t.Parallel()
	ref := hosts(0.9, 0.85, 0.95)
	for _, c := range []struct {
		status             analyze.Status
		current, reference float64
		share              float64
		want               analyze.Status
	}{
		{analyze.StatusRegression, 250, 100, 0.3, analyze.StatusNoisy},       // 150% slower, 3x less CPU: explains up to 400%
		{analyze.StatusRegression, 700, 100, 0.3, analyze.StatusRegression},  // 600% slower: more than the host explains
		{analyze.StatusImprovement, 80, 100, 1.0, analyze.StatusImprovement}, // 25% faster; 11% more CPU explains up to 22%
		{analyze.StatusImprovement, 95, 100, 1.0, analyze.StatusNoisy},
		{analyze.StatusRegression, 120, 100, 1.0, analyze.StatusRegression},
		{analyze.StatusImprovement, 80, 100, 0.3, analyze.StatusImprovement},
		{analyze.StatusRegression, 120, 100, 0.88, analyze.StatusRegression},
		{analyze.StatusOK, 120, 100, 0.3, analyze.StatusOK},
	} {
		r := analyze.Result{Status: c.status, Current: c.current, Reference: c.reference, DeltaPercent: 100 * (c.current/c.reference - 1)}
		load := 2.8 // busier
		if c.share > 0.9 {
			load = 0.3 // quieter
		}
		changed := analyze.ExplainedByHost(&r, analyze.Point{HostLoad: load, CPUShare: c.share, CPUPressure: math.NaN()}, ref)
		if r.Status != c.want || changed != (c.want != c.status) {
			t.Errorf("%s %v against %v, share %v: status %s (changed %v), want %s", c.status, c.current, c.reference, c.share, r.Status, changed, c.want)
		}
		if changed && (!strings.HasPrefix(r.Reason, analyze.HostReason) || !strings.Contains(r.Reason, "--baseline") ||
			!strings.Contains(r.Reason, "the builds judged against 0.90; load") || !strings.Contains(r.Reason, "at their start, 1.3 in the history") ||
			!strings.Contains(r.Reason, fmt.Sprintf("%+.1f%%", r.DeltaPercent))) {
			t.Errorf("%s, share %v: reason %q", c.status, c.share, r.Reason)
		}
	}
}
