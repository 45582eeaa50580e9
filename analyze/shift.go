package analyze

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Shift judges the current build the way a sheriff reads a real
// performance series: a change is a shift of the distribution that
// persists over several builds, judged on the recent builds together
// against a reference whose spread includes every level the series
// visits; once a change is confirmed, the new level is the reference, so
// one change raises one alert. It is the default method of `seshat
// regression`.
//
// The series is replayed build by build, oldest first, as successive CI
// jobs met it, so the verdict on a build never depends on later builds and
// a change an earlier job confirmed is not found again:
//
//  1. Reference. The builds since the last confirmed change, at most
//     Window of them, before the candidate start of a change. Its bounds
//     are its (e+1)-th smallest and largest values with e = n/10 for n
//     builds: a level seen in more than a tenth of the reference is a known
//     mode, and a switch to it is not a change. Its scale is the standard
//     deviation of the builds within those bounds around their median:
//     every mode counts (a MAD ignores a minority mode and is too small),
//     single-build spikes do not. When the reference drifts (Mann-Kendall
//     p < 0.001 over at least 6 builds), it and the fore builds are judged
//     as residuals of its Theil-Sen line, as the segment method did.
//  2. Change. A change may start at any of the last MaxFore builds; the
//     builds from there to the current one are the fore group (m builds,
//     at least MinFore). It is confirmed when every fore build lies beyond
//     the reference's median on the same side, none within its bounds, the
//     median shift is at least Effect standard errors (scale ×
//     sqrt(1/n + 1/m)), and a two-sided Mann-Whitney U test of the fore
//     builds against the reference has p <= Alpha. Fewer than MaxFore
//     fore builds confirm it only when, besides, Welch's t (Welch 1947)
//     of their mean against the reference's (WelchT, the statistic of
//     treeherder's perfalert without its weights) reaches EarlyT: an
//     excursion of four builds that then reverts passes the other tests
//     as a lasting step does, but its mean rarely stands as far from the
//     reference's; it waits for a fifth build, by which it has reverted
//     and no longer passes. This is the windowed
//     two-sample test of Perfherder (treeherder's perfalert: back and fore
//     windows, a t threshold, one alert at the change) with medians, a
//     mode-aware scale and a rank test (Mann & Whitney 1947), so that
//     bursts and heavy tails weigh as ranks; the fore window is a few
//     builds instead of twelve, so a CI job alerts within MinFore builds of
//     the change rather than a dozen.
//  3. Suspect. A current build beyond the bounds by the same effect, with
//     no later build yet to confirm it, is a suspect: reported, never
//     failing. Its own runs confirm it when at least 3 of them lie beyond
//     the bounds and the history shows that builds vary no more than their
//     runs predict (the reference's scale within what chance allows of the spread of the
//     median of as many runs): the host's state between builds then
//     adds nothing that the runs do not show. Runs made later by --confirm
//     (Input.Rerun) confirm it when they too lie beyond the bounds.
//  4. Acted on. A change in the history becomes the new reference only
//     when it is at least MinEffect, the gate's minimum effect: the job
//     that met it alerted. A smaller one, statistically sure or not, was
//     never reported, so the reference stays at the level the last alert
//     left, and steps under the minimum effect that add up to more than it
//     raise one alert (Mozilla's 3777081: +1.9% at build 37, then +4% by
//     build 44) instead of none. This is the rule of a control chart
//     (Page 1954; Montgomery, Introduction to Statistical Quality Control,
//     §9.1): the in-control level is re-estimated only after a signal is
//     acted on, never after a shift too small to signal.
//
// Values are compared on a log scale when they are all positive. The gate
// of the analysis (Gate) then asks for a false discovery rate across all
// tests and a change beyond the minimum effect and the noise floor.
// bench/realdata measures it on Mozilla's triaged Perfherder series.
type Shift struct {
	// Window is the most reference builds; 0 means 30.
	Window int
	// MinBack is the fewest reference builds a change over several builds
	// is judged against; 0 means 14 (fewer, just after a change or at the
	// start of a series, make bounds that the next burst crosses: with 10,
	// bench/realdata's replay of Mozilla's series raised 3.4 far alerts
	// per 1,000 builds, 3 of its 9 after 14-17 builds of history; with 14,
	// 2.3 and the same recall, both before EarlyT). A single build is
	// judged against 3, as a suspect or when its runs confirm it.
	MinBack int
	// MinFore and MaxFore bound the builds that confirm a change; 0 means
	// 4 and 5.
	MinFore, MaxFore int
	// EarlyT is the smallest Welch's t of the fore builds' mean against
	// the reference's for fewer than MaxFore fore builds to confirm a
	// change; 0 means 10. On bench/realdata's replay of Mozilla's series,
	// 9 to 14 all removed the three far alerts at excursions of four
	// builds that revert (2.3 far alerts per 1,000 builds to 1.1), every
	// other alert coming at most one build later and none lost; 7 and 8
	// kept one excursion (1.5), 5 kept them all.
	EarlyT float64
	// Effect is the smallest median shift in standard errors; 0 means 5.
	Effect float64
	// Alpha is the significance of the rank test; 0 means 0.01.
	Alpha float64
	// MinEffect is the gate's minimum effect in percent (Gate.MinEffect):
	// a change of the history under it is not a new level. 0 means
	// DefaultMinEffect.
	MinEffect float64

	// runScale floors the reference's scale: the spread of a build's
	// median that its own runs predict (runScale). Set by Evaluate from
	// the history's runs; 0 for a plain series.
	runScale float64
}

// shiftTrendAlpha is the Mann-Kendall p-value under which a reference
// drifts: stricter than the segment method's, since a dip at the end of a
// reference, projected, fakes a change.
const shiftTrendAlpha = 0.001

// shiftDriftRefAlpha is the Mann-Kendall p-value under which a reference
// hints at a drift that fore builds may continue. A flat reference
// followed by builds at a new level is a step, though a line through both
// is steep: without this, Mozilla's 3777188 (a -8% step after a flat,
// noisy reference) was taken for drift.
const shiftDriftRefAlpha = 0.2

// minSingleBack is the fewest reference builds one build is judged
// against.
const minSingleBack = 3

// Name implements Method.
func (Shift) Name() string { return "shift" }

func (s Shift) withDefaults() Shift {
	if s.Window == 0 {
		s.Window = 30
	}
	if s.MinBack == 0 {
		s.MinBack = 14
	}
	if s.MinFore == 0 {
		s.MinFore = 4
	}
	if s.MaxFore == 0 {
		s.MaxFore = max(5, s.MinFore)
	}
	if s.Effect == 0 {
		s.Effect = 5
	}
	if s.EarlyT == 0 {
		s.EarlyT = 10
	}
	if s.Alpha == 0 {
		s.Alpha = 0.01
	}
	if s.MinEffect == 0 {
		s.MinEffect = DefaultMinEffect
	}
	return s
}

func (s Shift) validate() error {
	s = s.withDefaults()
	switch {
	case s.Window < minSingleBack || s.MinBack < minSingleBack || s.MinBack > s.Window:
		return fmt.Errorf("%w: reference of %d to %d builds, must be at least %d", ErrInvalidParam, s.MinBack, s.Window, minSingleBack)
	case s.MinFore < 2 || s.MaxFore < s.MinFore:
		return fmt.Errorf("%w: confirming builds %d to %d, must be at least 2", ErrInvalidParam, s.MinFore, s.MaxFore)
	case !(s.Effect > 0) || math.IsInf(s.Effect, 0):
		return fmt.Errorf("%w: effect %g, must be a number > 0", ErrInvalidParam, s.Effect)
	case !(s.EarlyT > 0) || math.IsInf(s.EarlyT, 0):
		return fmt.Errorf("%w: Welch's t %g for an early change, must be a number > 0", ErrInvalidParam, s.EarlyT)
	case !(s.Alpha > 0 && s.Alpha < 1):
		return fmt.Errorf("%w: alpha %g, must be in (0, 1)", ErrInvalidParam, s.Alpha)
	case !(s.MinEffect >= 0) || math.IsInf(s.MinEffect, 0):
		return fmt.Errorf("%w: minimum effect %g%%, must be a number >= 0", ErrInvalidParam, s.MinEffect)
	}
	return nil
}

// shiftRef is the reference of a candidate start: builds lo..j-1 since the
// last change, as residuals of their trend line when they drift.
type shiftRef struct {
	lo            int
	raw           []float64 // the builds' values
	vals          []float64 // residuals in build order
	median, scale float64
	// buildScale is scale before the runs' floor (runScale): the spread
	// of the build medians alone.
	buildScale   float64
	lower, upper float64
	// The trend line, when the reference drifts: values are judged as
	// residuals of intercept + slope × index.
	slope, intercept float64
}

func newShiftRef(y []float64, lo, j int) shiftRef {
	r := shiftRef{lo: lo, raw: y[lo:j], vals: slices.Clone(y[lo:j])}
	if n := len(r.vals); n >= minTrendBuilds && MannKendall(r.vals) < shiftTrendAlpha {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(lo + i)
		}
		r.slope, r.intercept = TheilSen(xs, r.vals)
		for i := range r.vals {
			r.vals[i] -= r.intercept + r.slope*xs[i]
		}
	}
	r.median, r.lower, r.upper, r.scale = ModeAwareSpread(r.vals)
	return r
}

// ModeAwareSpread is the reference statistics of Shift (step 1 of its
// doc) for the values xs (at least one): their median; their bounds, the
// (e+1)-th smallest and largest value with e = n/10, so that a level seen
// in more than a tenth of them lies within; and their scale, the standard
// deviation of the values within the bounds around the median (every mode
// counts, single spikes do not; 0 for fewer than 2 such values).
func ModeAwareSpread(xs []float64) (median, lower, upper, scale float64) {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	n := len(sorted)
	median = Median(sorted)
	e := n / 10
	lower, upper = sorted[e], sorted[n-1-e]
	kept := sorted[e : n-e]
	var ss float64
	for _, v := range kept {
		ss += (v - median) * (v - median)
	}
	if len(kept) > 1 {
		scale = math.Sqrt(ss / float64(len(kept)-1))
	}
	return median, lower, upper, scale
}

// residual is v, the value of build i, against the reference's line.
func (r shiftRef) residual(i int, v float64) float64 {
	return v - (r.intercept + r.slope*float64(i))
}

// shiftTest is the outcome of testing fore builds against a reference.
type shiftTest struct {
	ok       bool
	delta    float64 // median shift, working scale (residuals)
	level    float64 // the reference's level at the first fore build, working scale
	p        float64 // Mann-Whitney
	se       float64 // standard error of the shift
	beyond   bool    // every fore value beyond the bounds
	effectOK bool
	drift    bool // a drift through the reference explains the fore values
	// early tells that MinFore to MaxFore-1 fore values passed every
	// other test, and welch is their Welch's t against the reference.
	early bool
	welch float64
}

// test judges the fore values, builds at..at+len-1, against the reference.
func (s Shift) test(r shiftRef, at int, fore []float64) shiftTest {
	res := make([]float64, len(fore))
	for i, v := range fore {
		res[i] = r.residual(at+i, v)
	}
	t := shiftTest{p: 1, delta: Median(res) - r.median, level: r.intercept + r.slope*float64(at) + r.median}
	n, m := float64(len(r.vals)), float64(len(res))
	t.se = r.scale * math.Sqrt(1/n+1/m)
	if t.delta == 0 {
		return t
	}
	t.effectOK = math.Abs(t.delta) >= s.Effect*t.se
	t.beyond = true
	for _, v := range res {
		if (t.delta > 0 && !(v > r.upper)) || (t.delta < 0 && !(v < r.lower)) {
			t.beyond = false
		}
	}
	if !t.beyond {
		return t
	}
	if r.slope == 0 && s.drift(r, at, fore) {
		t.drift = true
		return t
	}
	if !t.effectOK {
		return t
	}
	t.p = MannWhitneyU(res, r.vals).PValue
	t.ok = t.p <= s.Alpha
	if t.ok && len(res) >= s.MinFore && len(res) < s.MaxFore {
		t.early, t.welch = true, WelchT(r.vals, res)
		t.ok = math.Abs(t.welch) >= s.EarlyT
	}
	return t
}

// drift tells whether the reference and the fore values together are one
// drifting level rather than a step: the reference itself shows a hint of
// the trend (Mann-Kendall p < shiftDriftRefAlpha over it alone), a
// Mann-Kendall trend (p < 0.01) over all of them, and the fore values no step away from the Theil-Sen line
// through all of them (their median residual under Effect standard errors
// of the reference's residuals). A machine pool that gets faster build
// after build moves a few builds "beyond" the older ones without a change
// of the code.
func (s Shift) drift(r shiftRef, at int, fore []float64) bool {
	all := append(slices.Clone(r.raw), fore...)
	if len(r.raw) >= minTrendBuilds && MannKendall(r.raw) >= shiftDriftRefAlpha {
		return false
	}
	if len(all) < minTrendBuilds || MannKendall(all) >= trendAlpha {
		return false
	}
	xs := make([]float64, len(all))
	for i := range xs {
		xs[i] = float64(r.lo + i)
	}
	slope, intercept := TheilSen(xs, all)
	res := make([]float64, len(all))
	for i := range all {
		res[i] = all[i] - (intercept + slope*xs[i])
	}
	n := len(r.raw)
	back := newShiftRef(res, 0, n)
	d := Median(res[n:]) - back.median
	se := back.scale * math.Sqrt(1/float64(n)+1/float64(len(fore)))
	return math.Abs(d) < s.Effect*se
}

// shiftChange is a change the replay confirmed.
type shiftChange struct {
	at, confirmed int // the first build at the new level; the build that confirmed it
	test          shiftTest
	back          int // reference builds
}

// replay walks y (working scale; logarithms when logScale) build by
// build and returns the changes confirmed, in order, and the first build
// of the current level. When the builds' points are given (their runs; f
// maps a run's value to the working scale), a build whose own runs
// confirm it is a change too, as the job that judged it found: one change,
// one alert, whichever confirmed it. A change under MinEffect is not one
// (step 4 of Shift).
func (s Shift) replay(y []float64, logScale bool, points []Point, f func(float64) float64) (changes []shiftChange, start int) {
	refs := map[int]shiftRef{}
	for t := range y {
		c, ok := s.change(y, start, t, refs)
		if !ok && points != nil {
			c, ok = s.runsChange(y, points, f, start, t, refs)
		}
		if ok && !(math.Abs(s.percent(c.test.delta, logScale, c.test.level)) >= s.MinEffect) {
			ok = false
		}
		if ok {
			changes = append(changes, c)
			start = c.at
			clear(refs)
		}
	}
	return changes, start
}

// runsChange is a change at build t that its own runs confirm.
func (s Shift) runsChange(y []float64, points []Point, f func(float64) float64, start, t int, refs map[int]shiftRef) (shiftChange, bool) {
	if len(points[t].Samples) < 3 {
		return shiftChange{}, false
	}
	ref, ok := s.reference(y, start, t, minSingleBack, refs)
	if !ok {
		return shiftChange{}, false
	}
	st := s.test(ref, t, y[t:t+1])
	if !st.beyond || st.drift {
		return shiftChange{}, false
	}
	if !s.runsDecide(points[ref.lo:t], ref, t, mapf(points[t].Samples, f), f, st) {
		return shiftChange{}, false
	}
	return shiftChange{at: t, confirmed: t, test: st, back: len(ref.vals)}, true
}

// reference is the reference of a change starting at build j of a level
// that starts at build start, cached in refs; false when too short.
func (s Shift) reference(y []float64, start, j, minBack int, refs map[int]shiftRef) (shiftRef, bool) {
	lo := max(start, j-s.Window)
	if j-lo < minBack {
		return shiftRef{}, false
	}
	if r, ok := refs[j]; ok && r.lo == lo {
		return r, true
	}
	r := newShiftRef(y, lo, j)
	r.buildScale = r.scale
	r.scale = math.Max(r.scale, s.runScale)
	if refs != nil {
		refs[j] = r
	}
	return r, true
}

// change looks for a change confirmed at build t: the earliest start
// among the last MaxFore builds since start that passes, so that a step is
// dated where it began.
func (s Shift) change(y []float64, start, t int, refs map[int]shiftRef) (shiftChange, bool) {
	for j := max(start+1, t-s.MaxFore+1); j <= t-s.MinFore+1; j++ {
		r, ok := s.reference(y, start, j, s.MinBack, refs)
		if !ok {
			continue
		}
		if st := s.test(r, j, y[j:t+1]); st.ok {
			return shiftChange{at: j, confirmed: t, test: st, back: len(r.vals)}, true
		}
	}
	return shiftChange{}, false
}

// ChangePoints implements Detector: the changes a CI job running Shift
// build by build would have confirmed, each at the first build of its new
// level, with the statistics of the levels on either side.
func (s Shift) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, 3, "shift")
	if !ok {
		return nil, warns
	}
	s = s.withDefaults()
	changes, _ := s.replay(workingScale(series), allPositive(series), nil, nil)
	idx := make([]int, len(changes))
	for i, c := range changes {
		idx[i] = c.at
	}
	return changePointsAt(series, idx), warns
}

// changePointsAt is the change points at idx (sorted) with the
// statistics of the segments between them.
func changePointsAt(series []float64, idx []int) []ChangePoint {
	cps := make([]ChangePoint, len(idx))
	for i, at := range idx {
		cps[i] = changePointAt(series, at, prevIndex(idx, i), nextIndex(idx, i, len(series)))
	}
	return cps
}

// workingScale is log(x) when every value is positive, else x.
func workingScale(x []float64) []float64 {
	if !allPositive(x) {
		return x
	}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Log(v)
	}
	return y
}

// Evaluate implements Method.
func (s Shift) Evaluate(in Input) Result {
	p, r, done := prepareBasic(s.Name(), in)
	if done {
		return r
	}
	s = s.withDefaults()
	points := append(slices.Clone(p.points), in.Current)
	logScale := true
	for _, pt := range points {
		if !(pt.Value > 0) || !allPositive(pt.samples()) {
			logScale = false
		}
	}
	f := func(v float64) float64 { return v }
	if logScale {
		f = math.Log
	}
	y := make([]float64, len(points))
	for i, pt := range points {
		y[i] = f(pt.Value)
	}
	t := len(y) - 1
	s.runScale, _ = runScale(points[:t], f)
	changes, start := s.replay(y[:t], logScale, points[:t], f)
	defer func() { r.Baseline = s.baseline(r, changes, start, t, logScale) }()
	since := ""
	if len(changes) > 0 {
		c := changes[len(changes)-1]
		since = fmt.Sprintf("; the current level since build %d (a change of %+.1f%% confirmed at build %d)",
			c.at+1, s.percent(c.test.delta, logScale, y[max(0, c.at-1)]), c.confirmed+1)
	}
	r.HistoryBuilds = t - start

	// A change over the last builds, the current one included.
	if c, ok := s.change(y, start, t, nil); ok {
		ref, _ := s.reference(y, start, c.at, s.MinBack, nil)
		s.fill(&r, ref, c.test, logScale, t)
		r.PValue = c.test.p
		r.Status = judge(in.Direction, true, c.test.delta)
		r.Details = fmt.Sprintf("a shift of %+.2f%% since build %d, confirmed by %d build(s) against the %d before it (Mann-Whitney p=%.3g, %.1f standard errors)%s",
			r.DeltaPercent, c.at+1, t-c.at+1, c.back, c.test.p, math.Abs(c.test.delta)/c.test.se, since)
		return r
	}
	// Builds at a new level that too few builds confirm yet: the earliest
	// start of the last MaxFore builds beyond the builds before it.
	var ref shiftRef
	var st shiftTest
	ok, at := false, t
	for j := max(start+1, t-s.MaxFore+1); j <= t; j++ {
		if r0, found := s.reference(y, start, j, minSingleBack, nil); found {
			if st0 := s.test(r0, j, y[j:t+1]); st0.effectOK && st0.beyond && !st0.drift {
				ref, st, ok, at = r0, st0, true, j
				break
			}
		}
	}
	if !ok {
		ref, ok = s.reference(y, start, t, minSingleBack, nil)
		if ok {
			st = s.test(ref, t, y[t:])
		}
	}
	if !ok {
		level := y[start:t]
		r.Reference = inverse(Median(level), logScale)
		r.DeltaPercent = s.percent(y[t]-Median(level), logScale, Median(level))
		r.PValue = math.NaN()
		if len(changes) > 0 {
			// Too few builds since a change to judge this one: not a
			// silent ok, whatever its departure.
			r.Status = StatusNoisy
			r.Reason = fmt.Sprintf("too little history at the current level to judge: %s since the last change, %d needed (each later build decides more)", plural(t-start, "build"), minSingleBack)
			r.Details = fmt.Sprintf("%+.2f%% against the %s at the current level%s", r.DeltaPercent, plural(t-start, "build"), since)
			return r
		}
		r.Status = StatusNoisy
		r.Reason = fmt.Sprintf("too little history to judge: %s; a build is judged against at least %d (each later build decides more)", storedBuilds(t), minSingleBack)
		return r
	}
	s.fill(&r, ref, st, logScale, t)
	r.PValue = 1
	samples := mapf(in.Current.samples(), f)
	runsDecide := !st.effectOK && st.beyond && !st.drift && s.runsDecide(p.points[ref.lo:t], ref, t, samples, f, st)
	if (!st.effectOK && !runsDecide) || !st.beyond || st.drift {
		// Nothing found: once the reference is long enough for a change
		// over several builds, the noise that matters is that of the
		// judgement the method makes of a change, over MinFore builds at
		// a new level, not that of one build (which only a suspect or its
		// own runs speak for). A series whose builds spread 3% is thus
		// not "too noisy" to find a 10% change: four builds decide it.
		if n := len(ref.vals); n >= s.MinBack {
			s.fill(&r, ref, shiftTest{delta: st.delta, se: ref.scale * math.Sqrt(1/float64(n)+1/float64(s.MinFore))}, logScale, t)
		}
		r.Status = StatusOK
		r.Details = fmt.Sprintf("%+.2f%% against the %d build(s) before it (level %s, spread %.2f%%)%s",
			r.DeltaPercent, len(ref.vals), fmtNum(r.Reference), 100*relScale(ref, logScale), since)
		return r
	}
	// Builds at a new level that nothing confirms yet.
	r.PValue = MannWhitneyU(samples, ref.vals).PValue
	r.Status = judge(in.Direction, true, st.delta)
	needed := s.MinFore
	if st.early {
		// Enough builds, but their mean too close to the reference's for
		// fewer than MaxFore to confirm a change.
		needed = s.MaxFore
	}
	if at == t {
		r.Details = fmt.Sprintf("the current build is %+.2f%% away, beyond the %d build(s) before it%s", r.DeltaPercent, len(ref.vals), since)
	} else {
		r.Details = fmt.Sprintf("%d builds since build %d are %+.2f%% away, beyond the %d build(s) before them (%d confirm a change)%s",
			t-at+1, at+1, r.DeltaPercent, len(ref.vals), needed, since)
	}
	switch {
	case in.Rerun && allBeyond(ref, t, samples, st.delta, 0.25):
		r.Details += fmt.Sprintf("; confirmed by re-running: %d of its %d runs are beyond them", countBeyond(ref, t, samples, st.delta), len(samples))
	case runsConfirm(p.points[ref.lo:t], ref, t, samples, f, st.delta):
		// The runs speak for the builds: the current runs against every
		// run of the reference.
		r.PValue = runsPValue(p.points[ref.lo:t], ref, t, samples, f)
		runs := 0
		for _, pt := range p.points[ref.lo:t] {
			runs += len(pt.samples())
		}
		r.Details += fmt.Sprintf("; its runs confirm it (the history's builds vary no more than their runs; Mann-Whitney p=%.3g against the %d runs of those builds)", r.PValue, runs)
	default:
		r.Status, r.PValue = StatusSuspect, math.NaN()
		r.Reason = fmt.Sprintf("%s at a new level, %d needed to confirm a change: --confirm re-runs the current one, the next builds confirm or clear it",
			plural(t-at+1, "build"), needed)
		if st.early {
			r.Reason = fmt.Sprintf("%s at a new level, their mean not far enough from the history's for %d to confirm a change (Welch's t %.3g, %g needed); %d confirm it: the next builds confirm or clear it",
				plural(t-at+1, "build"), t-at+1, math.Abs(st.welch), s.EarlyT, needed)
		}
		if split(ref, t, samples) {
			r.Reason = "the current runs disagree, some at the history's level, some away from it (a slow phase of the host?); " + r.Reason
		}
		r.Details += "; a suspect until re-runs or the next builds confirm it"
	}
	return r
}

// baseline is what a figure of the result marks: the builds of the
// current level, the changes the replay confirmed.
func (s Shift) baseline(r Result, changes []shiftChange, start, t int, logScale bool) *Reference {
	lo := max(start, t-s.Window)
	b := &Reference{Log: logScale, Level: r.Reference, Start: lo, Len: t - lo, Builds: t - lo,
		TrendPValue: math.NaN(), Between: math.NaN(), Within: math.NaN(), SE: r.Noise, DF: math.NaN()}
	if r.Resolution != nil {
		b.Between = r.Resolution.Spread
	}
	for _, c := range changes {
		b.ChangePoints = append(b.ChangePoints, c.at)
	}
	return b
}

// fill sets the reference, change and noise of r from a test.
func (s Shift) fill(r *Result, ref shiftRef, st shiftTest, logScale bool, t int) {
	if st.se > 0 {
		r.Score = st.delta / st.se
	}
	level := ref.intercept + ref.slope*float64(t) + ref.median
	r.Reference = inverse(level, logScale)
	r.DeltaPercent = s.percent(st.delta, logScale, level)
	r.Noise = st.se
	if !logScale {
		r.Noise = math.NaN()
		if level != 0 {
			r.Noise = st.se / math.Abs(level)
		}
	}
	r.Detectable = s.Effect * r.Noise * 100
	r.Resolution = &Resolution{Effect: s.Effect, Spread: relScale(ref, logScale), Builds: len(ref.vals), MinBuilds: s.MinBack, MaxBuilds: s.Window, Fore: s.MinFore}
}

// relScale is the reference's scale relative to its level.
func relScale(ref shiftRef, logScale bool) float64 {
	if logScale {
		return ref.scale
	}
	if ref.median == 0 {
		return math.NaN()
	}
	return ref.scale / math.Abs(ref.median)
}

func inverse(v float64, logScale bool) float64 {
	if logScale {
		return math.Exp(v)
	}
	return v
}

// percent is a shift d on the working scale in percent of level; a shift
// from a level of 0 is infinitely many percent.
func (s Shift) percent(d float64, logScale bool, level float64) float64 {
	switch {
	case logScale:
		return (math.Exp(d) - 1) * 100
	case level == 0 && d != 0:
		return math.Copysign(math.Inf(1), d)
	}
	return deltaPercent(level, level+d)
}

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func mapf(xs []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func countBeyond(ref shiftRef, t int, vals []float64, delta float64) int {
	k := 0
	for _, v := range vals {
		x := ref.residual(t, v)
		if (delta > 0 && x > ref.upper) || (delta < 0 && x < ref.lower) {
			k++
		}
	}
	return k
}

// allBeyond tells whether all but a share slack of vals lie beyond the
// reference's bounds on delta's side.
func allBeyond(ref shiftRef, t int, vals []float64, delta, slack float64) bool {
	return len(vals) > 0 && float64(len(vals)-countBeyond(ref, t, vals, delta)) <= slack*float64(len(vals))
}

// runsExplainBuilds bounds the ratio of the reference's build-to-build
// scale, over k builds, to the spread that the builds' runs predict for
// their medians, for the runs to speak for the builds: the ratio two equal
// spreads exceed one time in a thousand when the first is estimated from k
// values (sqrt of the chi-square quantile over its degrees of freedom),
// times 1.3 for the spread of the runs, itself a MAD of few deviations,
// and the median-centred scale. 3.4 for 3 builds, 2.4 for 8, 2.0 for 20;
// a host whose state changes between builds puts the ratio at 5 or more.
func runsExplainBuilds(k int) float64 {
	if k < 2 {
		return 0
	}
	df := float64(k - 1)
	return 1.3 * math.Sqrt(distuv.ChiSquared{K: df}.Quantile(0.999)/df)
}

// runScale is the spread of a build's median that the history's runs
// predict: the pooled within-build deviations' MAD, over the median number
// of runs a build has (medianSpread), from every build of at least 2 runs;
// 0 when fewer than minSingleBack builds have them. A build median cannot
// vary less than its runs allow, so this floors the reference's scale:
// without it, three build medians that agree by chance make a series whose
// runs spread 30% look quiet. It is the within-build term of the one-way
// random-effects decomposition (between-build variance plus within-build
// variance over the runs per build) that HierBootstrap resamples.
// The second result tells whether enough builds have runs to tell it.
func runScale(history []Point, f func(float64) float64) (float64, bool) {
	var devs, counts []float64
	for _, p := range history {
		if len(p.Samples) < 2 {
			continue
		}
		counts = append(counts, float64(len(p.Samples)))
		devs = appendDeviations(devs, p.Samples, f)
	}
	if len(counts) < minSingleBack {
		return 0, false
	}
	return medianSpread(MAD(devs), Median(counts)), true
}

// runsDecide tells whether a single build's runs decide a change on
// their own: the history's builds vary no more than their runs predict
// (runsConfirm), the shift is Effect standard errors of the build medians'
// own spread (buildScale, without the runs' floor: the runs are the
// evidence here, and a history of identical build medians, as the same
// benchmark output imported thrice, has none), and the runs against every
// run of the reference give a Mann-Whitney p at most Alpha.
func (s Shift) runsDecide(history []Point, ref shiftRef, t int, samples []float64, f func(float64) float64, st shiftTest) bool {
	if !st.beyond || st.drift || !runsConfirm(history, ref, t, samples, f, st.delta) {
		return false
	}
	n := float64(len(ref.vals))
	if math.Abs(st.delta) < s.Effect*ref.buildScale*math.Sqrt(1/n+1) {
		return false
	}
	return runsPValue(history, ref, t, samples, f) <= s.Alpha
}

// runsPValue is the two-sided Mann-Whitney p-value of the current build's
// runs (samples, working scale) against every run of the reference's
// builds, both as residuals of the reference's line.
func runsPValue(history []Point, ref shiftRef, t int, samples []float64, f func(float64) float64) float64 {
	var all []float64
	for i, pt := range history {
		for _, v := range pt.samples() {
			all = append(all, ref.residual(ref.lo+i, f(v)))
		}
	}
	res := make([]float64, len(samples))
	for i, v := range samples {
		res[i] = ref.residual(t, v)
	}
	return MannWhitneyU(res, all).PValue
}

// runsConfirm tells whether the current build's runs are evidence enough
// on their own: at least 3 runs, every one beyond the reference's bounds,
// none split from the others (split),
// and a history whose build-to-build spread is what the spread of its runs
// predicts (the scale of the reference at most runsExplainBuilds(k) times the
// spread of the median of as many runs), so that the host's state between builds adds
// nothing the runs do not show.
func runsConfirm(history []Point, ref shiftRef, t int, samples []float64, f func(float64) float64, delta float64) bool {
	if len(samples) < 3 || !allBeyond(ref, t, samples, delta, 0) || split(ref, t, samples) {
		return false
	}
	within, ok := runScale(history, f)
	return ok && ref.scale <= runsExplainBuilds(len(ref.vals))*within
}

// split tells whether the runs of one build disagree: at least 2 of them,
// and a quarter, sit closer to the reference's level than to the build's
// median. Runs of one build that far apart say a slow (or fast) phase of
// the host, not a change of the code, which moves every run.
func split(ref shiftRef, t int, samples []float64) bool {
	res := make([]float64, len(samples))
	for i, v := range samples {
		res[i] = ref.residual(t, v)
	}
	m := Median(res)
	k := 0
	for _, v := range res {
		if math.Abs(v-ref.median) < math.Abs(v-m) {
			k++
		}
	}
	return k >= 2 && 4*k >= len(samples)
}
