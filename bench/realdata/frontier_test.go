package main

import (
	"testing"
)

// TestFrontierPlantedStep: on a series with one planted 10% step, the
// oracle counts the labelled change, and every statistic has a
// configuration that alerts once, within 5 builds of it, and nowhere
// else; the restarted reference keeps it from alerting again at the new
// level.
func TestFrontierPlantedStep(t *testing.T) {
	t.Parallel()
	values := append(steady(40, 100), steady(30, 110)...)
	s := &series{Signature: "planted", Values: values, Labels: []label{{Index: 40, Status: "TP"}}}
	all := []*series{s}
	if found, confirmed := oracleFound(all, 3); found != 1 || confirmed != 1 {
		t.Errorf("oracle at 3%%: %d of %d, want 1 of 1", found, confirmed)
	}
	if found, _ := oracleFound(all, 20); found != 0 {
		t.Errorf("oracle at 20%%: %d, want 0 (the step is 10%%)", found)
	}
	for _, st := range statistics() {
		front := paretoFront(sweep(all, st), allFar)
		if len(front) == 0 {
			t.Errorf("%s: no configuration within 1.3 alerts per change", st.name)
			continue
		}
		top := front[len(front)-1]
		if top.total.found != 1 || top.total.far != 0 || top.total.near != 1 {
			t.Errorf("%s: best found %d far %d near %d, want 1 0 1", st.name, top.total.found, top.total.far, top.total.near)
		}
	}
	c := detectorConfig{minFore: 4, maxFore: 5, minBack: 14, threshold: 7}
	if got := onlineAlerts(values, statistics()[0], c, memo{}); len(got) != 1 || !within(got[0], 40) {
		t.Errorf("perfherder t, fore 4-5, t >= 7: alerts %v, want one within 5 builds of 40", got)
	}
}

// TestFrontierConstant: a constant series gives no alert to any
// statistic, with any fore group, at the lowest threshold of its sweep and
// no minimum effect.
func TestFrontierConstant(t *testing.T) {
	t.Parallel()
	constant := make([]float64, 60)
	for i := range constant {
		constant[i] = 100
	}
	for _, st := range statistics() {
		for _, fore := range foreRanges {
			c := detectorConfig{minFore: fore[0], maxFore: fore[1], minBack: 6, threshold: st.grid[0]}
			if got := onlineAlerts(constant, st, c, memo{}); len(got) > 0 {
				t.Errorf("%s, %s: alerts %v, want none", st.name, configText(c), got)
			}
		}
	}
}

// TestEither: two detectors side by side raise one alert per change: an
// alert of the second within 5 builds after one of the first is dropped.
func TestEither(t *testing.T) {
	t.Parallel()
	got := either([]int{10, 40}, []int{12, 30, 46})
	want := []int{10, 30, 40, 46}
	if len(got) != len(want) {
		t.Fatalf("either: %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("either: %v, want %v", got, want)
		}
	}
}

// TestFarAtSteps: a far alert after which the level held a step of 3% or
// more (a change nobody labelled) is told apart from one on a flat
// stretch; an alert near a label is not far at all.
func TestFarAtSteps(t *testing.T) {
	t.Parallel()
	values := append(append(steady(30, 100), steady(30, 110)...), steady(30, 110)...)
	s := &series{Signature: "unlabelled", Values: values, Labels: []label{{Index: 75, Status: "TP"}}}
	for _, tt := range []struct {
		alert, want int
	}{{33, 1}, {15, 0}, {74, 0}} {
		if got := farAtSteps(s, []int{tt.alert}, 4); got != tt.want {
			t.Errorf("alert at %d: %d far alerts at a held step, want %d", tt.alert, got, tt.want)
		}
	}
}

// TestCrossValidated: each series left out is judged by the setting
// chosen on the others, so a setting that only fits the left-out series
// does not count for it: here B finds series 1's change with no far alert
// and is chosen for series 0 (where it finds nothing); A is chosen on
// series 0 for series 1, where it raises 5 far alerts.
func TestCrossValidated(t *testing.T) {
	t.Parallel()
	sc := func(found, far int) score {
		return score{judged: 1000, confirmed: 1, found: found, near: found, far: far}
	}
	mk := func(each ...score) outcome {
		o := outcome{each: each}
		for _, e := range each {
			o.total.add(e)
		}
		return o
	}
	a := mk(sc(1, 0), sc(0, 5))
	b := mk(sc(0, 0), sc(1, 0))
	cv := crossValidated([]outcome{a, b}, 2)
	if cv.found != 0 || cv.far != 5 || cv.judged != 2000 || cv.confirmed != 2 {
		t.Errorf("found %d far %d judged %d confirmed %d, want 0 5 2000 2", cv.found, cv.far, cv.judged, cv.confirmed)
	}
}
