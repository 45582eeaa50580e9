package analyze

import (
	"fmt"
	"math"
)

// The bounds of HostChange. The host was busier for the current runs than
// for the builds they are judged against when both hold:
//   - the runs got HostShareRatio times less CPU per second of wall time
//     (Usage.CPUShare: a run that waits for a CPU gets less) than the
//     median reference build;
//   - some task on the host waited for a CPU for a share of the runs'
//     wall time at least HostPressureMargin above the median reference
//     build's (Usage.CPUPressure, from Linux's pressure stall
//     information) or, where the runs or most reference builds lack that
//     count, the host's load at their start was at least HostLoadMargin
//     above the median reference build's.
//
// The pressure is counted over the runs' own seconds; the one-minute load
// average lags: runs at the start of a busy phase started before it had
// risen, and a busy job beside two busy loops failed for it. Like the
// load, the pressure counts niced tasks (some task waits whenever a niced
// one is runnable beside the run), so the blind spot below is both's.
//
// The pressure decides only when the reference builds' median is under
// HostPressureQuiet. Near 1 it saturates: some task waits nearly all the
// time whether the run loses a little CPU or much, and a rise from 0.66
// to 0.9 says little about the run. cmd/seshat's tests, storing their
// history while the package's other tests ran (pressure 0.66-0.70), then
// judging a stand-in PI slowed by a sleep at 0.88-0.92, took the sleep
// for the host. The load decides there, as where the pressure is unknown.
//
// No count alone decides. Code that starts to wait (a sleep, a lock, I/O,
// a GPU kernel waited for without spinning) gets less CPU a second on an
// idle host: the pressure or the load tells it from contention
// (cmd/seshat's stand-in PI slowed by a sleep). Niced tasks raise both and
// take little from a run: the share tells that apart. It can then explain
// a change up to HostExplainFactor times the slowdown the lost CPU accounts
// for (a run getting half the CPU takes up to twice as long; the factor
// leaves room for what contention does to caches and memory). Quieter is
// the mirror image.
//
// Its blind spot: on bench/realhost's 2-core machine, history stored while
// niced test suites ran (load 7–10, CPU share 0.85) was followed by jobs
// beside two busy loops at nice 0 (load 4.5, CPU share 0.53–0.60, elapsed
// times of identical code up 30–60%): the load fell while the runs lost
// CPU, and the rule does not fire (nor with the pressure: beside niced
// test suites at load 8-11 it read 0.9 on this machine).
//
// Both counts see every task on the host, the run's own threads included:
// a PI whose threads outnumber the CPUs raises its own pressure, the same
// in every build of the same settings.
//
// The rule is Seshat's own, not a published method. pyperf's `system show`
// and Chromium's perf bots treat a loaded host alike (a warning, a bot taken
// out), and Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time",
// ISMM 2013) show that variation between executions, which the machine's
// state drives, is not averaged away by more measurements within one.
const (
	HostShareRatio     = 1.1
	HostPressureMargin = 0.2
	HostPressureQuiet  = 0.5
	HostLoadMargin     = 0.5
	HostExplainFactor  = 2
)

// HostCounts gathers the host counts of a point's runs; their medians are
// the point's HostLoad, CPUShare and CPUPressure.
type HostCounts struct{ loads, shares, pressures []float64 }

// Add counts a run: its load at start (nil when unknown), its CPU share
// (0 when unknown) and its CPU pressure (nil when unknown).
func (h *HostCounts) Add(load *float64, share float64, pressure *float64) {
	if load != nil {
		h.loads = append(h.loads, *load)
	}
	if share > 0 {
		h.shares = append(h.shares, share)
	}
	if pressure != nil {
		h.pressures = append(h.pressures, *pressure)
	}
}

// Set gives p the medians of the runs counted (NaN where none said).
func (h *HostCounts) Set(p *Point) {
	p.HostLoad, p.CPUShare, p.CPUPressure = Median(h.loads), Median(h.shares), Median(h.pressures)
}

// HostReason begins the reason of a result that a change of the host's
// load can explain.
const HostReason = "the host's load differs from the history's"

// HostEvidence is what HostChange found.
type HostEvidence struct {
	// Change is +1 when the host was busier for the current runs, -1 when
	// quieter, 0 when neither or unknown.
	Change int
	// Share is the current runs' CPU share, RefShare the reference
	// builds' median.
	Share, RefShare float64
	// Load is the current runs' load at their start, RefLoad the
	// reference builds' median; NaN when unknown.
	Load, RefLoad float64
	// Pressure is the current runs' CPU pressure, RefPressure the
	// reference builds' median; NaN when unknown.
	Pressure, RefPressure float64
	// ByPressure tells that the pressure, not the load, decided.
	ByPressure bool
	// Explains is the relative change the CPU gained or lost can explain
	// (2 = 200%), HostExplainFactor included; 0 when Change is 0.
	Explains float64
}

// HostChange compares the CPU share of the current runs, and the CPU
// pressure during them (else the load at their start), with those of the
// reference builds (see the constants). Unknown (Change 0) when the
// current point, or more than half the reference builds, lack the share
// or both other counts.
func HostChange(current Point, reference []Point) HostEvidence {
	shares := known(reference, func(p Point) float64 { return p.CPUShare }, func(v float64) bool { return v > 0 })
	loads := known(reference, func(p Point) float64 { return p.HostLoad }, notNaN)
	pressures := known(reference, func(p Point) float64 { return p.CPUPressure }, notNaN)
	ev := HostEvidence{Share: current.CPUShare, RefShare: Median(shares), Load: current.HostLoad, RefLoad: Median(loads),
		Pressure: current.CPUPressure, RefPressure: Median(pressures)}
	enough := func(n int) bool { return n > 0 && 2*n >= len(reference) }
	if !(ev.Share > 0) || !enough(len(shares)) {
		return ev
	}
	var busier, quieter bool
	switch {
	case notNaN(ev.Pressure) && enough(len(pressures)) && ev.RefPressure < HostPressureQuiet:
		ev.ByPressure = true
		busier, quieter = ev.Pressure >= ev.RefPressure+HostPressureMargin, ev.Pressure <= ev.RefPressure-HostPressureMargin
	case notNaN(ev.Load) && enough(len(loads)):
		busier, quieter = ev.Load >= ev.RefLoad+HostLoadMargin, ev.Load <= ev.RefLoad-HostLoadMargin
	default:
		return ev
	}
	switch {
	case busier && ev.RefShare >= HostShareRatio*ev.Share:
		ev.Change, ev.Explains = 1, HostExplainFactor*(ev.RefShare/ev.Share-1)
	case quieter && ev.Share >= HostShareRatio*ev.RefShare:
		ev.Change, ev.Explains = -1, HostExplainFactor*(ev.Share/ev.RefShare-1)
	}
	return ev
}

// known is the values of the points that ok accepts.
func known(points []Point, value func(Point) float64, ok func(float64) bool) []float64 {
	var out []float64
	for _, p := range points {
		if v := value(p); ok(v) {
			out = append(out, v)
		}
	}
	return out
}

func notNaN(v float64) bool { return !math.IsNaN(v) }

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
		state = "busier"
	case ev.Change < 0 && r.Status == StatusImprovement:
		state = "quieter"
	default:
		return false
	}
	if size := changeSize(r); math.IsNaN(size) || size > ev.Explains {
		return false
	}
	load := fmt.Sprintf("; load %.1f at their start, %.1f in the history", ev.Load, ev.RefLoad)
	if ev.ByPressure {
		load = fmt.Sprintf("; some task waited for a CPU %.0f%% of their time, %.0f%% in the history", 100*ev.Pressure, 100*ev.RefPressure)
	}
	r.Reason = fmt.Sprintf("%s: %s now (the current runs got %.2f s of CPU a second, the builds judged against %.2f%s), which can explain a %s of %+.1f%%; judge it with --baseline (A/B in one job) or on a host as loaded as the history's",
		HostReason, state, ev.Share, ev.RefShare, load, r.Status, r.DeltaPercent)
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
