package analyze

import (
	"fmt"
	"math"
)

// The gate's defaults.
const (
	DefaultFDR         = 0.05
	DefaultMinEffect   = 3  // percent
	DefaultNoiseFactor = 3  // times the noise
	DefaultMaxNoise    = 10 // percent
)

// UndecidedReason begins the reason of a noisy result the gate left
// undecided: a change beyond the floor that is not significant across the
// analysis. More runs can decide it.
const UndecidedReason = "undecided: "

// Gate turns the verdicts of the methods on every entry x KPI of one
// analysis into findings a CI job can trust. A change is a finding only
// when it is both
//
//   - statistically significant across the whole analysis: its p-value,
//     adjusted by Benjamini-Hochberg over every test of the analysis
//     (AdjustBH), is at most FDR, so that testing many KPIs at once does not
//     multiply false alarms; and
//   - practically significant: its size is at least the Floor, the larger
//     of MinEffect and NoiseFactor times the series' own noise (the
//     relative standard error of the current build against its reference,
//     Result.Noise), so that a host's build-to-build variation is not taken
//     for a change however many runs make it "significant".
//
// A change beyond the Floor that is not significant across the analysis
// is undecided: noisy, never a silent ok, so that --confirm measures it
// again (as Pinpoint keeps sampling an undecided comparison). Any other
// change the gate does not count leaves the status ok, unless the
// smallest change the test could have seen (the larger of Floor and
// Result.Detectable) exceeds MaxNoise: the series is then noisy, with its
// spread. The zero value is the defaults.
type Gate struct {
	FDR         float64 // default DefaultFDR
	MinEffect   float64 // percent; default DefaultMinEffect
	NoiseFactor float64 // default DefaultNoiseFactor
	MaxNoise    float64 // percent; default DefaultMaxNoise
}

func (g Gate) withDefaults() Gate {
	or := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	return Gate{FDR: or(g.FDR, DefaultFDR), MinEffect: or(g.MinEffect, DefaultMinEffect),
		NoiseFactor: or(g.NoiseFactor, DefaultNoiseFactor), MaxNoise: or(g.MaxNoise, DefaultMaxNoise)}
}

// Validate checks the gate's parameters.
func (g Gate) Validate() error {
	g = g.withDefaults()
	switch {
	case !(g.FDR > 0 && g.FDR < 1):
		return fmt.Errorf("%w: false discovery rate %g, must be in (0, 1)", ErrInvalidParam, g.FDR)
	case !(g.MinEffect >= 0) || math.IsInf(g.MinEffect, 0):
		return fmt.Errorf("%w: minimum effect %g%%, must be a number >= 0", ErrInvalidParam, g.MinEffect)
	case !(g.NoiseFactor >= 0) || math.IsInf(g.NoiseFactor, 0):
		return fmt.Errorf("%w: noise factor %g, must be a number >= 0", ErrInvalidParam, g.NoiseFactor)
	case !(g.MaxNoise > 0):
		return fmt.Errorf("%w: maximum noise %g%%, must be a number > 0", ErrInvalidParam, g.MaxNoise)
	}
	return nil
}

// String shows the gate's parameters with the defaults applied.
func (g Gate) String() string {
	g = g.withDefaults()
	return fmt.Sprintf("FDR %g, minimum effect %g%%, noise factor %g, noisy above %g%%", g.FDR, g.MinEffect, g.NoiseFactor, g.MaxNoise)
}

// Apply judges the results of one analysis together, in place: results
// whose status is ok, regression or improvement get their QValue and
// Floor, and a final status. Other statuses (no-history, not-analyzed,
// noisy) are left as they are.
func (g Gate) Apply(results []*Result) {
	g = g.withDefaults()
	judged := make([]*Result, 0, len(results))
	ps := make([]float64, 0, len(results))
	for _, r := range results {
		switch r.Status {
		case StatusOK, StatusRegression, StatusImprovement, StatusSuspect:
			judged = append(judged, r)
			ps = append(ps, r.PValue)
		}
	}
	qs := AdjustBH(ps)
	for i, r := range judged {
		r.QValue = qs[i]
		r.Floor = g.MinEffect
		if !math.IsNaN(r.Noise) {
			r.Floor = math.Max(r.Floor, g.NoiseFactor*r.Noise*100)
		}
		found := r.Status == StatusRegression || r.Status == StatusImprovement || r.Status == StatusSuspect
		var why, cause string
		beyond := false // a change the method found, beyond the floor, that the FDR leaves undecided
		switch {
		case !found:
		case !math.IsNaN(r.QValue) && r.QValue > g.FDR:
			beyond = math.Abs(r.DeltaPercent) >= r.Floor
			why = fmt.Sprintf("not counted: q=%.3g over the false discovery rate %g across %d tests", r.QValue, g.FDR, len(ps))
			cause = fmt.Sprintf("a change of %+.1f%% is not significant across the analysis (q=%.3g over the false discovery rate %g across %d tests)", r.DeltaPercent, r.QValue, g.FDR, len(ps))
		case !(math.Abs(r.DeltaPercent) >= r.Floor):
			why = fmt.Sprintf("not counted: |%+.2f%%| is under the floor of %.2f%% (%s)", r.DeltaPercent, r.Floor, g.floorWhy(r))
			cause = fmt.Sprintf("a change of %+.1f%% is under the floor of %.1f%% (%s)", r.DeltaPercent, r.Floor, g.floorWhy(r))
		}
		if why != "" {
			r.Details += "; " + why
			found = false
		}
		if found {
			continue
		}
		r.Status, r.Reason = StatusOK, ""
		if beyond {
			// Large enough to matter, too uncertain to count: undecided,
			// never a silent ok (so --confirm measures it again).
			r.Status = StatusNoisy
			r.Reason = fmt.Sprintf("%s%s, though beyond the floor of %.1f%% (%s)", UndecidedReason, cause, r.Floor, noiseText(r))
			if r.Resolution != nil {
				if needs := r.Resolution.Needs(g.MaxNoise); needs != "" {
					r.Reason += "; " + needs
				}
			}
			continue
		}
		if seen := math.Max(r.Floor, r.Detectable); seen > g.MaxNoise {
			r.Status = StatusNoisy
			switch {
			case r.HistoryBuilds < minNoisePoints:
				r.Reason = fmt.Sprintf("too little history to judge: %s; changes under %.1f%% cannot be told from noise until more builds are (%s)",
					storedBuilds(r.HistoryBuilds), seen, noiseText(r))
			case cause != "":
				r.Reason = fmt.Sprintf("too noisy to judge: %s; changes under %.1f%% cannot be told from this series' noise (%s)", cause, seen, noiseText(r))
			default:
				r.Reason = fmt.Sprintf("too noisy to judge: changes under %.1f%% cannot be told from this series' noise (%s)", seen, noiseText(r))
			}
			if r.Resolution != nil {
				if needs := r.Resolution.Needs(g.MaxNoise); needs != "" {
					r.Reason += "; " + needs
				}
			}
		}
	}
}

func (g Gate) floorWhy(r *Result) string {
	if !math.IsNaN(r.Noise) && g.NoiseFactor*r.Noise*100 > g.MinEffect {
		return fmt.Sprintf("%g × noise %.2f%%", g.NoiseFactor, r.Noise*100)
	}
	return "minimum effect"
}

func noiseText(r *Result) string {
	if math.IsNaN(r.Noise) {
		return "noise unknown"
	}
	return fmt.Sprintf("standard error %.2f%% against its reference", r.Noise*100)
}

func storedBuilds(n int) string {
	if n == 1 {
		return "1 build stored"
	}
	return fmt.Sprintf("%d builds stored", n)
}
