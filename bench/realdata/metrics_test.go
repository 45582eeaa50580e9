package main

import (
	"math"
	"testing"
)

// steady is n builds at v, alternating a tenth of a percent either side.
func steady(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + 0.001*float64(i%2*2-1))
	}
	return out
}

// TestStep: the report counts a confirmed change as large enough for the
// gate only when the builds after it sit at a new level, wherever within
// 5 builds of the label the step is, and never for one spike.
func TestStep(t *testing.T) {
	t.Parallel()
	stepUp := append(steady(20, 100), steady(10, 110)...)
	spike := steady(30, 100)
	spike[20] = 150
	small := append(steady(20, 100), steady(10, 101)...)
	for _, tt := range []struct {
		name   string
		values []float64
		label  int
		want   float64
	}{
		{"a 10% step at the label", stepUp, 20, 0.10},
		{"a 10% step 4 builds before the label", stepUp, 24, 0.10},
		{"a 10% step 3 builds after the label", stepUp, 17, 0.10},
		{"one spike", spike, 20, 0},
		{"a 1% step", small, 20, 0.01},
		{"a label at the last build", stepUp, 29, 0.10},
	} {
		if got := step(tt.values, tt.label); math.Abs(got-tt.want) > 0.003 {
			t.Errorf("%s: step %.4f, want %.2f", tt.name, got, tt.want)
		}
	}
	if got := step([]float64{1, 2}, 1); got != 0 {
		t.Errorf("two builds: step %g, want 0 (no split has %d builds after it)", got, stepAfter)
	}
}

// TestScoreLarge: the recall of changes as large as the gate's minimum
// effect counts only confirmed labels whose step reaches it: a found 10%
// step counts, a found 1% step and a dismissed alert do not.
func TestScoreLarge(t *testing.T) {
	t.Parallel()
	values := append(append(steady(20, 100), steady(20, 110)...), steady(20, 111)...)
	labels := []label{{Index: 20, Status: "TP"}, {Index: 40, Status: "TP"}, {Index: 50, Status: "FP"}}
	s := scoreSeries(labels, values, []int{21, 41}, len(values))
	if s.confirmed != 2 || s.found != 2 || s.large != 1 || s.foundLg != 1 {
		t.Errorf("confirmed %d found %d large %d found large %d, want 2 2 1 1", s.confirmed, s.found, s.large, s.foundLg)
	}
	if s = scoreSeries(labels, values, []int{41}, len(values)); s.large != 1 || s.foundLg != 0 {
		t.Errorf("the 10%% step missed: large %d found large %d, want 1 0", s.large, s.foundLg)
	}
}
