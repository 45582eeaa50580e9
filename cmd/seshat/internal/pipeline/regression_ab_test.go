package pipeline

import (
	"math"
	"testing"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/lts"
)

// TestBaselineSidesMissing: a side of the A/B without a run with a KPI
// value is named wherever it ran without one, per matrix point: a side
// that has values at one experiment's points and none at another's is
// missing too, with how many of its points lack them.
func TestBaselineSidesMissing(t *testing.T) {
	t.Parallel()
	run := func(point, side, repeat string, value float64) regression.Run {
		r := regression.Run{Settings: map[string]string{"pi": point, "side": side, "@repeat": repeat}}
		if !math.IsNaN(value) {
			r.Record = lts.Record{Values: map[string]float64{"elapsed_ms": value}}
		}
		return r
	}
	nan := math.NaN()
	b := &regression.Baseline{Key: "side", Value: "base"}
	tests := []struct {
		name string
		runs []regression.Run
		want string
	}{
		{"every side has values", []regression.Run{run("exec", "base", "0", 1), run("exec", "head", "0", 1), run("exec", "head", "1", nan)}, ""},
		{"one side failed everywhere", []regression.Run{run("exec", "base", "0", 1), run("exec", "head", "0", nan), run("exec", "head", "1", nan)},
			"--baseline side=base: no complete run with a KPI value for side=head"},
		{"every side failed at one point", []regression.Run{
			run("exec", "base", "0", nan), run("exec", "head", "0", nan), run("exec", "slow", "0", nan),
			run("matmul", "base", "0", 1), run("matmul", "head", "0", 1)},
			"--baseline side=base: no complete run with a KPI value for side=base (at 1 of the 2 points it ran), side=head (at 1 of the 2 points it ran), side=slow"},
		{"runs without the key are not sides", []regression.Run{run("exec", "base", "0", 1), run("exec", "head", "0", 1), {Settings: map[string]string{"pi": "other"}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := baselineSidesMissing(b, tc.runs); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
