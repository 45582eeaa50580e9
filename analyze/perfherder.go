package analyze

import (
	"fmt"
	"math"
)

// Perfherder is Mozilla Perfherder's change detector, written from the
// documented algorithm of treeherder's perfalert module (detect_changes,
// analyze, calc_t, linear_weights) and the alert threshold of its alert
// generation:
//
//  1. For every point i, a back window of the points before it (at least
//     MinBack values and at most MaxBack, reaching further back while no
//     change has been seen lately) and a fore window of i and the points
//     after it (Fore values).
//  2. t is Welch's statistic between the two windows' means, each mean
//     weighted linearly by closeness to i ((n-k)/n for the k-th point
//     away), each variance the plain sample variance around that weighted
//     mean.
//  3. A change is flagged at i when |t| > T, both windows are full, and t
//     at i is no lower than at either neighbour; it is kept when the change
//     of the windows' means is at least MinChange percent.
//
// Each build is one value here (Perfherder counts values, so retriggers of
// one push fill a window faster). The defaults are treeherder's: back 12
// to 24, fore 12, t > 7, change >= 2%. It is offered beside Seshat's own
// methods so that detection quality can be compared with the detector
// Mozilla's sheriffs triage (bench/realdata).
type Perfherder struct {
	MinBack, MaxBack, Fore int     // 0 means 12, 24, 12
	T                      float64 // 0 means 7
	MinChange              float64 // percent; 0 means 2

	name string // "window" for Window
}

// WithDefaults returns p with its zero fields set to their defaults.
func (p Perfherder) WithDefaults() Perfherder { return p.withDefaults() }

// Window returns the default detector of a plain series: Perfherder's
// algorithm with a t threshold of 6, a back window of 10 to 20 builds and
// a minimum change of 1% (treeherder's 7, 12 to 24 and 2%), which found
// more of the confirmed changes of Mozilla's triaged series with no more
// false ones (bench/realdata: F1 0.80 against Perfherder's 0.75 with
// margin 5; the 1% minimum adds two confirmed changes of 1.5-2.5% that
// sheriffs filed, and no far alert). Its fore window of 12 builds means it
// sees no change in the last 12 points of a series; `seshat regression`
// (Shift) judges those. A series shorter than both windows gets windows of
// half its length each.
func Window() Perfherder {
	return Perfherder{MinBack: 10, MaxBack: 20, T: 6, MinChange: 1, name: "window"}
}

// Name implements Method.
func (p Perfherder) Name() string {
	if p.name != "" {
		return p.name
	}
	return "perfherder"
}

func (p Perfherder) withDefaults() Perfherder {
	if p.MinBack == 0 {
		p.MinBack = 12
	}
	if p.MaxBack == 0 {
		p.MaxBack = 24
	}
	if p.Fore == 0 {
		p.Fore = 12
	}
	if p.T == 0 {
		p.T = 7
	}
	if p.MinChange == 0 {
		p.MinChange = 2
	}
	return p
}

func (p Perfherder) validate() error {
	p = p.withDefaults()
	switch {
	case p.MinBack < 1 || p.MaxBack < p.MinBack || p.Fore < 1:
		return fmt.Errorf("%w: windows back %d-%d, fore %d", ErrInvalidParam, p.MinBack, p.MaxBack, p.Fore)
	case !(p.T > 0) || math.IsInf(p.T, 0):
		return fmt.Errorf("%w: t threshold %g, must be a number > 0", ErrInvalidParam, p.T)
	case !(p.MinChange >= 0) || math.IsInf(p.MinChange, 0):
		return fmt.Errorf("%w: minimum change %g%%, must be a number >= 0", ErrInvalidParam, p.MinChange)
	}
	return nil
}

// weightedStats are perfalert's analyze(): the mean weighted by w(k, n)
// for the k-th point of the window, the sample variance around it, the
// number of values.
func weightedStats(xs []float64, linear bool) (mean, variance float64, n int) {
	n = len(xs)
	if n == 0 {
		return 0, 0, 0
	}
	// The weighted mean of the differences from the first value, so that
	// windows of one constant value have exactly that mean (a rounding
	// error would otherwise make two equal constant windows differ, with
	// t infinite).
	var sum, wsum float64
	for k, x := range xs {
		w := 1.0
		if linear {
			w = float64(n-k) / float64(n)
		}
		sum += w * (x - xs[0])
		wsum += w
	}
	mean = xs[0] + sum/wsum
	if n > 1 {
		for _, x := range xs {
			variance += (x - mean) * (x - mean)
		}
		variance /= float64(n - 1)
	}
	return mean, variance, n
}

// PerfherderT is the t statistic of Perfherder's detector (treeherder's
// perfalert calc_t with linear weights, as Perfherder uses it) between a
// back window, its points nearest the split first, and a fore window, its
// points nearest the split first too: Welch's t between the linearly
// weighted means. Positive when the fore window is higher; +Inf when both
// windows are constant and differ.
func PerfherderT(back, fore []float64) float64 { return perfherderT(back, fore) }

// perfherderT is calc_t with linear weights: back holds the points nearest
// first, fore too.
func perfherderT(back, fore []float64) float64 { return twoSampleT(back, fore, true) }

// WelchT is Welch's t statistic (Welch 1947) between two samples' plain
// means, each variance the sample variance: Perfherder's t without its
// linear weights. Positive when fore's mean is higher; +Inf when both are
// constant and differ; 0 when either is empty.
func WelchT(back, fore []float64) float64 { return twoSampleT(back, fore, false) }

// twoSampleT is Welch's t between the means of back and fore, weighted
// linearly by closeness to the split when linear (perfalert's calc_t).
func twoSampleT(back, fore []float64, linear bool) float64 {
	if len(back) == 0 || len(fore) == 0 {
		return 0
	}
	m1, v1, n1 := weightedStats(back, linear)
	m2, v2, n2 := weightedStats(fore, linear)
	d := m2 - m1
	switch {
	case d == 0:
		return 0
	case v1 == 0 && v2 == 0:
		return math.Inf(1)
	}
	return d / math.Sqrt(v1/float64(n1)+v2/float64(n2))
}

// ChangePoints implements Detector.
func (p Perfherder) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, 2, "perfherder")
	if !ok {
		return nil, warns
	}
	p = p.withDefaults()
	n := len(series)
	if p.name == "window" && n < p.MinBack+p.Fore {
		// A short series: windows of half of it, so that a change in 8
		// points is found as in 80.
		half := max(2, n/2)
		p.MinBack, p.MaxBack, p.Fore = min(p.MinBack, half), min(p.MaxBack, 2*half), min(p.Fore, half)
	}
	t := make([]float64, n)
	back := make([]int, n)
	fore := make([]int, n)
	means := make([][2]float64, n)
	lastSeen := 0
	bw := make([]float64, 0, p.MaxBack)
	fw := make([]float64, 0, p.Fore)
	for i := 1; i < n; i++ {
		reach := min(max(lastSeen, p.MinBack), p.MaxBack)
		bw = bw[:0]
		for j := i - 1; j >= 0 && len(bw) < p.MaxBack && i-j <= reach; j-- {
			bw = append(bw, series[j])
		}
		fw = fw[:0]
		for j := i; j < n && len(fw) < p.Fore; j++ {
			fw = append(fw, series[j])
		}
		back[i], fore[i] = len(bw), len(fw)
		m1, _, _ := weightedStats(bw, false)
		m2, _, _ := weightedStats(fw, false)
		means[i] = [2]float64{m1, m2}
		t[i] = math.Abs(perfherderT(bw, fw))
		if t[i] > p.T {
			lastSeen = 0
		} else {
			lastSeen++
		}
	}
	var idx []int
	for i := 1; i < n; i++ {
		if back[i] < p.MinBack || fore[i] < p.Fore || !(t[i] > p.T) {
			continue
		}
		if t[i-1] > t[i] || (i+1 < n && t[i+1] > t[i]) {
			continue
		}
		// A change from a mean of 0 is infinitely many percent.
		if m := means[i]; m[0] == m[1] || (m[0] != 0 && math.Abs(m[1]/m[0]-1)*100 < p.MinChange) {
			continue
		}
		idx = append(idx, i)
	}
	cps := make([]ChangePoint, len(idx))
	for k, at := range idx {
		cps[k] = changePointAt(series, at, prevIndex(idx, k), nextIndex(idx, k, n))
	}
	return cps, warns
}

// Evaluate implements Method: the current build's runs as the fore window
// against the back window of the history builds before it. A CI job has
// no later builds, so the fore window is never as full as Perfherder waits
// for; the result says what Perfherder's statistic makes of the current
// build alone.
func (p Perfherder) Evaluate(in Input) Result {
	pr, r, done := prepare(p.Name(), in)
	if done {
		return r
	}
	p = p.withDefaults()
	var bw []float64
	for j := len(pr.history) - 1; j >= 0 && len(bw) < p.MinBack; j-- {
		bw = append(bw, pr.history[j])
	}
	fw := in.Current.samples()
	t := perfherderT(bw, fw)
	m1, _, _ := weightedStats(bw, false)
	m2, _, _ := weightedStats(fw, false)
	r.Reference, r.Score = m1, t
	r.DeltaPercent = deltaPercent(m1, m2)
	changed := math.Abs(t) > p.T && math.Abs(r.DeltaPercent) >= p.MinChange
	r.Status = judge(in.Direction, changed, m2-m1)
	r.Details = fmt.Sprintf("t=%.3g between the last %d build(s) and the current %d run(s), limit %g, change %+.2f%% (at least %g%%)",
		t, len(bw), len(fw), p.T, r.DeltaPercent, p.MinChange)
	return r
}
