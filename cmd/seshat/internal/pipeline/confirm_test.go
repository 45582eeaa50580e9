package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
)

// TestUndecidedReasons: --confirm auto re-runs the noisy results whose
// reason is the current runs (too few, or disagreeing), as the methods
// word them today, and the suspects; not a result short of history.
func TestUndecidedReasons(t *testing.T) {
	hist := make([]analyze.Point, 20)
	for i := range hist {
		v := 100 + float64(i%3)*0.5
		hist[i] = analyze.PointOf(v-1, v, v+1, v-0.5, v+0.5)
	}
	small := []analyze.Point{analyze.PointOf(100, 101), analyze.PointOf(100.5, 99.5)}
	// A change of 10% with p=0.045 among six tests: beyond the floor, not
	// significant after Benjamini-Hochberg.
	gated := []*analyze.Result{{Status: analyze.StatusImprovement, PValue: 0.045, DeltaPercent: 10, Noise: 0.01, HistoryBuilds: 20}}
	for range 5 {
		gated = append(gated, &analyze.Result{Status: analyze.StatusOK, PValue: 0.5, Noise: 0.01, HistoryBuilds: 20})
	}
	analyze.Gate{}.Apply(gated)
	for _, c := range []struct {
		name string
		r    analyze.Result
		want bool
	}{
		{"mannwhitney, two runs against two", analyze.MannWhitney{}.Evaluate(analyze.Input{History: small, Current: analyze.PointOf(99, 100),
			Direction: analyze.HigherIsBetter}), true},
		{"segment, a split build", analyze.Segment{}.Evaluate(analyze.Input{History: hist, Current: analyze.PointOf(70, 71, 69.5, 100, 101),
			Direction: analyze.HigherIsBetter}), true},
		{"suspect", analyze.Result{Status: analyze.StatusSuspect}, true},
		{"the gate's undecided change", *gated[0], true},
		{"short of history", analyze.Result{Status: analyze.StatusNoisy, Reason: "too little history to judge: 2 builds stored"}, false},
		{"too noisy", analyze.Result{Status: analyze.StatusNoisy, Reason: "too noisy to judge: changes under 9.0% cannot be told"}, false},
		{"ok", analyze.Result{Status: analyze.StatusOK}, false},
	} {
		if c.want && c.r.Status != analyze.StatusNoisy && c.r.Status != analyze.StatusSuspect {
			t.Fatalf("%s: %s (%s), want noisy: the test's input no longer makes the reason", c.name, c.r.Status, c.r.Details)
		}
		if got := undecided(&regression.KPIResult{Status: c.r.Status, Result: c.r}); got != c.want {
			t.Errorf("%s (%s: %s): undecided %v, want %v", c.name, c.r.Status, c.r.Reason, got, c.want)
		}
	}
}

// TestRemoveIncomplete: what an interrupted --confirm leaves is taken
// back: its new run directories without exit_code, and nothing else.
func TestRemoveIncomplete(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, complete bool) {
		p := filepath.Join(dir, "nightly", name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if complete {
			if err := os.WriteFile(filepath.Join(p, "exit_code"), []byte("0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("000__repeat=0", true)
	mk("001__repeat=1", false) // an older interrupted run: not this confirm's
	before := runDirs(dir)
	mk("002__repeat=2", true)
	mk("003__repeat=3", false)
	mk("004__repeat=4", false)
	n, err := removeIncomplete(dir, before)
	if err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want 2", n, err)
	}
	left := runDirs(dir)
	for _, name := range []string{"000__repeat=0", "001__repeat=1", "002__repeat=2"} {
		if !left[filepath.Join(dir, "nightly", name)] {
			t.Errorf("%s was removed", name)
		}
	}
	if len(left) != 3 {
		t.Errorf("left %v", left)
	}
}
