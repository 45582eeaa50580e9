package analyze

import (
	"fmt"
	"math"
)

// Segment judges the current build against the latest stable segment of
// its history (see Reference): a t-test of the current build's value
// against the segment's level, or its trend line, with the series' own
// robust build-to-build and run-to-run noise, as a prediction interval for
// one new build. It is the default method: a nightly job re-running one
// stack on new code, a version-to-version history, drift of the machine
// pool, older steps and single-build spikes are all handled by the
// reference. Its status says whether p < Alpha; the gate of the analysis
// (Gate) then asks for a false discovery rate across all tests and a
// change beyond the noise floor and the minimum effect.
type Segment struct {
	// WindowLen and MaxPValue are e-divisive's, to cut the history into
	// segments; 0 means 50 and 0.001.
	WindowLen int
	MaxPValue float64
	// Alpha is the significance of the t-test; 0 means 0.05.
	Alpha float64
}

// Name implements Method.
func (Segment) Name() string { return "segment" }

func (s Segment) alpha() float64 {
	if s.Alpha == 0 {
		return 0.05
	}
	return s.Alpha
}

func (s Segment) validate() error {
	if err := (EDivisive{WindowLen: s.WindowLen, MaxPValue: s.MaxPValue}).validate(); err != nil {
		return err
	}
	if a := s.alpha(); !(a > 0 && a < 1) {
		return fmt.Errorf("%w: alpha %g, must be in (0, 1)", ErrInvalidParam, s.Alpha)
	}
	return nil
}

// Evaluate implements Method.
func (s Segment) Evaluate(in Input) Result {
	p, r, done := prepareWith(s.Name(), in, EDivisive{WindowLen: s.WindowLen, MaxPValue: s.MaxPValue})
	if done {
		return r
	}
	ref := p.ref
	t, pv, delta := ref.Test(in.Current)
	r.Reference, r.DeltaPercent, r.Score, r.PValue = ref.Level, delta, t, pv
	if math.IsNaN(pv) {
		r.Status = StatusNoisy
		r.Reason = fmt.Sprintf("the noise of this series cannot be estimated from %d history build(s) of single runs", len(p.history))
		r.Details = "compared " + ref.Describe(len(p.history))
		return r
	}
	r.Status = judge(in.Direction, pv < s.alpha(), delta)
	r.Details = fmt.Sprintf("%s %s: %+.2f%%, t=%.3g (df %g), p=%.3g",
		fmtNum(p.current), ref.Describe(len(p.history)), delta, t, ref.DF, pv)
	if r.Status != StatusOK {
		if k, split := ref.Split(in.Current); split {
			r.Status = StatusNoisy
			r.Reason = fmt.Sprintf("the current runs disagree: %d of %d are at the history's level while their median is %+.1f%% away; a slow phase of the host rather than a change of the code? (--confirm re-runs them)",
				k, len(in.Current.Samples), delta)
		}
	}
	return r
}

// ChangePoints implements Detector: e-divisive's change points (as
// EDivisive with the same window and p-value) of the series with its
// single-value spikes left out (the Hampel identifier of Reference), their
// indices those of the full series and their statistics those of the
// values kept.
func (s Segment) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, 2*minSegment, "segment")
	if !ok {
		return nil, warns
	}
	var kept []int
	var values []float64
	for i, spike := range hampel(series) {
		if !spike {
			kept = append(kept, i)
			values = append(values, series[i])
		}
	}
	if len(values) < 3 {
		return nil, warns
	}
	cps := EDivisive{WindowLen: s.WindowLen, MaxPValue: s.MaxPValue}.withDefaults().levels(values)
	for i := range cps {
		cps[i].Index = kept[cps[i].Index]
	}
	return cps, warns
}
