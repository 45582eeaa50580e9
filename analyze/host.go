package analyze

import (
	"fmt"
	"math"
)

// The bounds of HostChange. The host was busier for the current runs than
// for the builds they are judged against when both hold:
//   - the host's load at the start of the current runs is at least
//     HostLoadMargin above that of every reference build (the load counts
//     every runnable task, niced ones and the host's own included, so
//     alone it does not say what a run lost);
//   - the runs got HostShareRatio times less CPU per second of wall time
//     (Usage.CPUShare) than the reference build that got the least: they
//     waited for a CPU.
//
// It can then explain a change up to HostExplainFactor times the slowdown
// the lost CPU accounts for (a run getting a third of the CPU takes up to
// three times as long; the factor leaves room for the load average's lag
// and for what contention does to caches). Quieter is the mirror image.
//
// The rule is Seshat's own, not a published method. pyperf's `system show`
// and Chromium's perf bots treat a loaded host alike (a warning, a bot taken
// out), and Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time",
// ISMM 2013) show that variation between executions, which the machine's
// state drives, is not averaged away by more measurements within one. The
// bounds come from bench/realhost on the 2-core developer machine: identical
// code judged against builds stored at load 1.2–1.5 failed in jobs at load
// 2.4–3.0; with busy loops beside the jobs (-busy) the runs got 0.13–0.22 s
// of CPU a second against 0.52–0.55 in the history, and their elapsed time
// rose 106–345%.
const (
	HostLoadMargin    = 0.5
	HostShareRatio    = 1.1
	HostExplainFactor = 2
)

// HostReason begins the reason of a result that a change of the host's
// load can explain.
const HostReason = "the host's load differs from the history's"

// HostEvidence is what HostChange found.
type HostEvidence struct {
	// Change is +1 when the host was busier for the current runs, -1 when
	// quieter, 0 when neither or unknown.
	Change int
	// Load is the current runs' load; LoadLow and LoadHigh the reference
	// builds' lowest and highest.
	Load, LoadLow, LoadHigh float64
	// Share is the current runs' CPU share; ShareLow and ShareHigh the
	// reference builds' lowest and highest.
	Share, ShareLow, ShareHigh float64
	// Explains is the relative change the CPU gained or lost can explain
	// (2 = 200%), HostExplainFactor included; 0 when Change is 0.
	Explains float64
}

// HostChange compares the host's load at the start of the current runs,
// and the CPU share they got, with those of the reference builds (their
// HostLoad and CPUShare; see the constants). Unknown (Change 0) when the
// current point, or more than half the reference builds, lack either.
func HostChange(current Point, reference []Point) HostEvidence {
	ev := HostEvidence{Load: current.HostLoad, Share: current.CPUShare}
	var knownLoad, knownShare int
	ev.LoadLow, ev.LoadHigh = math.Inf(1), math.Inf(-1)
	ev.ShareLow, ev.ShareHigh = math.Inf(1), math.Inf(-1)
	for _, p := range reference {
		if !math.IsNaN(p.HostLoad) {
			knownLoad++
			ev.LoadLow, ev.LoadHigh = math.Min(ev.LoadLow, p.HostLoad), math.Max(ev.LoadHigh, p.HostLoad)
		}
		if !math.IsNaN(p.CPUShare) && p.CPUShare > 0 {
			knownShare++
			ev.ShareLow, ev.ShareHigh = math.Min(ev.ShareLow, p.CPUShare), math.Max(ev.ShareHigh, p.CPUShare)
		}
	}
	if math.IsNaN(ev.Load) || math.IsNaN(ev.Share) || ev.Share <= 0 || knownLoad == 0 || knownShare == 0 ||
		2*knownLoad < len(reference) || 2*knownShare < len(reference) {
		return ev
	}
	switch {
	case ev.Load >= ev.LoadHigh+HostLoadMargin && ev.ShareLow >= HostShareRatio*ev.Share:
		ev.Change, ev.Explains = 1, HostExplainFactor*(ev.ShareLow/ev.Share-1)
	case ev.Load <= ev.LoadLow-HostLoadMargin && ev.Share >= HostShareRatio*ev.ShareHigh:
		ev.Change, ev.Explains = -1, HostExplainFactor*(ev.Share/ev.ShareHigh-1)
	}
	return ev
}

// ExplainedByHost makes noisy a regression measured on a busier host, or
// an improvement on a quieter one, than the reference builds were measured
// on, when the CPU the runs lost (or gained) can explain its size
// (HostChange): a slower host cannot be told from slower code with history
// alone. A regression on a quieter host, an improvement on a busier one,
// stand: the host would hide them, not make them; so does a change larger
// than the host explains. It tells whether it changed r.
func ExplainedByHost(r *Result, current Point, reference []Point) bool {
	if r.Status != StatusRegression && r.Status != StatusImprovement {
		return false
	}
	ev := HostChange(current, reference)
	var state string
	switch {
	case ev.Change > 0 && r.Status == StatusRegression:
		state = fmt.Sprintf("busier now (load %.1f at the current runs' start, at most %.1f in the builds judged against; %.2f s of CPU a second against at least %.2f)",
			ev.Load, ev.LoadHigh, ev.Share, ev.ShareLow)
	case ev.Change < 0 && r.Status == StatusImprovement:
		state = fmt.Sprintf("quieter now (load %.1f at the current runs' start, at least %.1f in the builds judged against; %.2f s of CPU a second against at most %.2f)",
			ev.Load, ev.LoadLow, ev.Share, ev.ShareHigh)
	default:
		return false
	}
	if size := changeSize(r); math.IsNaN(size) || size > ev.Explains {
		return false
	}
	r.Reason = fmt.Sprintf("%s: %s, which can explain a %s of %+.1f%%; judge it with --baseline (A/B in one job) or on a host as loaded as the history's",
		HostReason, state, r.Status, r.DeltaPercent)
	r.Status = StatusNoisy
	return true
}

// changeSize is the relative size of a result's change, whichever way
// (edivisive's magnitude: 0.5 for 100 against 150 or 150 against 100);
// NaN when unknown.
func changeSize(r *Result) float64 {
	if r.Current > 0 && r.Reference > 0 {
		return math.Max(r.Current/r.Reference, r.Reference/r.Current) - 1
	}
	if !math.IsNaN(r.DeltaPercent) {
		return math.Abs(r.DeltaPercent) / 100
	}
	return math.NaN()
}
