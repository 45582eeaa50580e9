package regression_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
)

// abRuns are n runs of two sizes on each side of the comparison key
// version (base, head), head's rate at speed times base's, with a small
// spread between runs.
func abRuns(n int, speed float64) []regression.Run {
	var runs []regression.Run
	for _, size := range []string{"64", "128"} {
		for i := range n {
			jitter := 1 + 0.005*float64(i%3-1)
			runs = append(runs, run(fmt.Sprintf("b-%s-%d", size, i), "", "base", size, 100*jitter),
				run(fmt.Sprintf("h-%s-%d", size, i), "", "head", size, 100*speed*jitter))
		}
	}
	return runs
}

func analyseAB(t *testing.T, runs []regression.Run) *regression.Report {
	t.Helper()
	opts := regression.Options{Keys: func(string) regression.Keys { return piKeys }, FailOnRegression: true,
		Baseline: &regression.Baseline{Key: "version", Value: "base"}}
	rep, err := regression.Analyze(context.Background(), runs, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func statuses(rep *regression.Report) string {
	var out []string
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			out = append(out, e.Name+"@"+e.ComparisonValue+":"+string(r.Status))
		}
	}
	return strings.Join(out, " ")
}

func TestAnalyzeBaseline(t *testing.T) {
	rep := analyseAB(t, abRuns(4, 0.8))
	if got, want := statuses(rep), "size=64@base:baseline size=64@head:regression size=128@base:baseline size=128@head:regression"; got != want {
		t.Errorf("statuses %s, want %s", got, want)
	}
	if rep.Method != regression.MethodBaseline || rep.Summary.Baseline != 2 || rep.Summary.Regressions != 2 || !rep.Failed() {
		t.Errorf("report: method %s, summary %+v", rep.Method, rep.Summary)
	}
	r := rep.Entries[1].Results[0]
	if d := r.Result.DeltaPercent; d > -19 || d < -21 {
		t.Errorf("delta %g, want -20%%", d)
	}
	if !strings.Contains(r.Result.Details, "against the baseline version=base") {
		t.Errorf("details: %s", r.Result.Details)
	}
	// Identical sides: ok; 1% faster: under the minimum effect, ok.
	for _, speed := range []float64{1, 1.01} {
		if got := analyseAB(t, abRuns(4, speed)); got.Summary.OK != 2 || got.Failed() {
			t.Errorf("speed %g: %s", speed, statuses(got))
		}
	}
	// 20% faster: an improvement, not failing.
	if got := analyseAB(t, abRuns(4, 1.2)); got.Summary.Improvements != 2 || got.Failed() {
		t.Errorf("faster: %s", statuses(got))
	}
}

func TestAnalyzeBaselineNoisyAndMissing(t *testing.T) {
	// One run a side: the spread between runs is unknown.
	rep := analyseAB(t, abRuns(1, 0.8))
	if rep.Summary.Noisy != 2 || rep.Failed() || !strings.Contains(rep.Entries[1].Results[0].Reason(), "too few runs") {
		t.Errorf("one run a side: %s; %s", statuses(rep), rep.Entries[1].Results[0].Reason())
	}
	// Runs that spread 40%: noisy, with the interval's width.
	var runs []regression.Run
	for i, f := range []float64{0.6, 1.4, 1, 0.7, 1.3} {
		runs = append(runs, run(fmt.Sprintf("b%d", i), "", "base", "64", 100*f), run(fmt.Sprintf("h%d", i), "", "head", "64", 95*(2-f)))
	}
	rep = analyseAB(t, runs)
	if rep.Summary.Noisy != 1 || !strings.Contains(rep.Entries[1].Results[0].Reason(), "wider than --max-noise") {
		t.Errorf("noisy runs: %s; %s", statuses(rep), rep.Entries[1].Results[0].Reason())
	}
	// A head without its base: not analysed.
	rep = analyseAB(t, append(abRuns(3, 1)[:6], run("h-256", "", "head", "256", 100), run("h2-256", "", "head", "256", 100)))
	if rep.Summary.NotAnalyzed != 1 || !strings.Contains(statuses(rep), "size=256@head:not-analyzed") {
		t.Errorf("no partner: %s", statuses(rep))
	}
}

// TestAnalyzeBaselineWithinRounds: a host whose slow phases move both runs
// of a round by up to 30%, and a head 8% slower in every round. Runs that
// name their round (@repeat, as `seshat run` and --confirm write it) are
// compared within rounds and the slowdown is a regression; the same values
// without rounds count the host's phases as noise and cannot decide.
func TestAnalyzeBaselineWithinRounds(t *testing.T) {
	t.Parallel()
	host := []float64{1, 0.7, 0.95, 1.2, 0.8}
	withRounds := func(rounds bool) []regression.Run {
		var runs []regression.Run
		for i, f := range host {
			b, h := run(fmt.Sprintf("b%d", i), "", "base", "64", 100*f), run(fmt.Sprintf("h%d", i), "", "head", "64", 92*f*(1+0.004*float64(i%2)))
			if rounds {
				b.Round, h.Round = fmt.Sprint(i), fmt.Sprint(i)
			}
			runs = append(runs, b, h)
		}
		return runs
	}
	rep := analyseAB(t, withRounds(true))
	r := rep.Entries[1].Results[0]
	if r.Status != analyze.StatusRegression || !strings.Contains(r.Result.Details, "within 5 rounds") {
		t.Errorf("paired by rounds: %s; %s", statuses(rep), r.Result.Details)
	}
	if d := r.Result.DeltaPercent; d > -7.5 || d < -8.3 {
		t.Errorf("delta %g, want about -8%%", d)
	}
	// The current and reference values every report shows beside the
	// delta are the two levels it compares (the median of head's runs,
	// 87.4, against base's level, 91.4, would say -4.4%).
	if shown := (r.CurrentValue()/r.Result.Reference - 1) * 100; math.Abs(shown-r.Result.DeltaPercent) > 0.01 {
		t.Errorf("shown %.4g against %.4g: %+.2f%%, but the delta is %+.2f%%", r.CurrentValue(), r.Result.Reference, shown, r.Result.DeltaPercent)
	}
	// The baseline's row shows the level the other rows are compared with.
	if base := rep.Entries[0].Results[0]; math.Abs(base.CurrentValue()-r.Result.Reference) > 1e-9*r.Result.Reference {
		t.Errorf("the baseline's row shows %.6g, its level in the comparison is %.6g", base.CurrentValue(), r.Result.Reference)
	}
	rep = analyseAB(t, withRounds(false))
	if r := rep.Entries[1].Results[0]; r.Status == analyze.StatusRegression || strings.Contains(r.Result.Details, "rounds") {
		t.Errorf("without rounds: %s; %s", statuses(rep), r.Result.Details)
	}
	// A round with one side missing: compared unpaired, every run used.
	runs := withRounds(true)
	rep = analyseAB(t, runs[:len(runs)-1])
	if r := rep.Entries[1].Results[0]; strings.Contains(r.Result.Details, "rounds") {
		t.Errorf("a round without its head run is not paired: %s", r.Result.Details)
	}
}
