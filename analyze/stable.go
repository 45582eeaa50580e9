package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Reference is what the current build is compared with: the latest stable
// segment of its history, its level projected to the current build, and
// the noise of the series. Every method reports it (Result.Noise,
// Result.Detectable) so that the gate of an analysis judges all of them by
// the same floor.
//
// It is built in four steps:
//
//  1. Segments. The history's build values (medians of their runs) are
//     cut by e-divisive means (Hunter's variant, see EDivisive). A segment
//     of a single build is a spike, not a level: its build is left out and
//     the history cut again (at most three rounds). The latest stable
//     segment is what follows the last change point.
//  2. Trend. When the segment holds at least minTrendBuilds builds and the
//     Mann-Kendall test finds a monotonic trend (p < trendAlpha), the level
//     is the Theil-Sen line at the current build's position, so that a
//     drifting machine pool neither hides nor fakes a change; otherwise it
//     is the median of the segment.
//  3. Noise. Build-to-build: the scaled MAD of the residuals of every
//     segment (around its median, the latest around its line). Run-to-run:
//     the scaled MAD of every run's deviation from its build's median. A
//     build's value varies at least as much as the median of its runs
//     does: sqrt(π/2m)·run-to-run for m runs (the large-sample variance of
//     a median), which bounds a build-to-build spread that a short history
//     underestimates by chance.
//  4. Prediction. The standard error of the current build's value against
//     the level adds the build-to-build variance not explained by its runs,
//     the variance of the median of the current build's own runs (more runs,
//     after --confirm, make it smaller), and the uncertainty of the level
//     (of a median of k builds, or of the line at that position); the test
//     is Student's t with the degrees of freedom of the residuals, as a
//     prediction interval for a new observation.
//
// Values are compared on a log scale when they are all positive (KPIs are
// rates, times, sizes: their noise is proportional to them, and a drift of
// 0.4% per build is a straight line), else on their own scale.
type Reference struct {
	// Log tells whether values were compared on a log scale.
	Log bool
	// Level is the reference value at the current build, in the KPI's unit.
	Level float64
	// Start and Len are the latest stable segment: history indices
	// [Start, Start+Len), less the spikes within.
	Start, Len int
	// Builds is the number of builds of the segment (spikes excluded).
	Builds int
	// ChangePoints are the history indices where a segment starts; Spikes
	// the history indices left out as single-build spikes.
	ChangePoints, Spikes []int
	// TrendPercent is the trend of the segment in percent per build, 0
	// when none; TrendPValue its Mann-Kendall p-value (NaN when untested).
	TrendPercent, TrendPValue float64
	// Between and Within are the build-to-build and run-to-run spreads,
	// relative (0.02 = 2%); NaN when unknown.
	Between, Within float64
	// SE is the relative standard error of the current build's value
	// against Level; DF the degrees of freedom of its t-test.
	SE, DF float64

	scaled float64 // Level on the working scale
}

// Tunables of the reference; the gate's are in Gate.
const (
	minTrendBuilds = 6
	trendAlpha     = 0.01
	spikeRounds    = 3
	// minNoisePoints is the fewest residuals the build-to-build spread is
	// estimated from.
	minNoisePoints = 3
)

// NewReference computes the reference of the current point against the
// history points (oldest first, finite values), cut into segments by ed.
// ok is false when the history is empty.
func NewReference(history []Point, current Point, ed EDivisive) (Reference, bool) {
	ref := Reference{TrendPValue: math.NaN(), Between: math.NaN(), Within: math.NaN(), SE: math.NaN(), DF: math.NaN(), Level: math.NaN()}
	n := len(history)
	if n == 0 {
		return ref, false
	}
	ref.Log = current.Value > 0 && allPositive(current.samples())
	for _, p := range history {
		if !(p.Value > 0 && allPositive(p.samples())) {
			ref.Log = false
		}
	}
	f := func(v float64) float64 { return v }
	if ref.Log {
		f = math.Log
	}
	y := make([]float64, n)
	for i, p := range history {
		y[i] = f(p.Value)
	}
	ed = ed.withDefaults()

	// 1. Segments, spikes left out.
	kept := make([]int, 0, n)
	for i, spike := range hampel(y) {
		if spike {
			ref.Spikes = append(ref.Spikes, i)
			continue
		}
		kept = append(kept, i)
	}
	var bounds []int // segment starts, positions in kept
	for round := 0; ; round++ {
		ys := make([]float64, len(kept))
		for i, k := range kept {
			ys[i] = y[k]
		}
		bounds = bounds[:0]
		if len(ys) >= 3 && !allEqual(ys) {
			for _, c := range ed.changePoints(ys) {
				bounds = append(bounds, c.Index)
			}
		}
		if round == spikeRounds {
			break
		}
		edges := append(append([]int{0}, bounds...), len(kept))
		var spikes []int
		for i := 0; i+1 < len(edges); i++ {
			if edges[i+1]-edges[i] == 1 && len(kept) > 2 {
				spikes = append(spikes, edges[i])
			}
		}
		if len(spikes) == 0 {
			break
		}
		for _, s := range slices.Backward(spikes) {
			ref.Spikes = append(ref.Spikes, kept[s])
			kept = slices.Delete(kept, s, s+1)
		}
	}
	slices.Sort(ref.Spikes)
	// A drifting machine pool makes e-divisive cut a straight line into
	// steps. When one line through the whole history leaves residuals
	// without a change point, the history is one drifting segment.
	if len(bounds) > 0 && len(kept) >= minTrendBuilds {
		xs := make([]float64, len(kept))
		ys := make([]float64, len(kept))
		for i, k := range kept {
			xs[i], ys[i] = float64(k), y[k]
		}
		if MannKendall(ys) < trendAlpha {
			slope, intercept := TheilSen(xs, ys)
			resid := make([]float64, len(ys))
			for i := range ys {
				resid[i] = ys[i] - (intercept + slope*xs[i])
			}
			if allEqual(resid) || len(ed.changePoints(resid)) == 0 {
				bounds = bounds[:0]
			}
		}
	}
	for _, b := range bounds {
		ref.ChangePoints = append(ref.ChangePoints, kept[b])
	}
	last := 0
	if len(bounds) > 0 {
		last = bounds[len(bounds)-1]
	}
	seg := kept[last:]
	ref.Start, ref.Len, ref.Builds = seg[0], seg[len(seg)-1]-seg[0]+1, len(seg)

	// 2. Level and trend of the latest segment.
	xs := make([]float64, len(seg))
	ys := make([]float64, len(seg))
	for i, k := range seg {
		xs[i], ys[i] = float64(k), y[k]
	}
	xc := float64(n) // the current build follows the last history build
	trend := false
	var slope, intercept float64
	if len(seg) >= minTrendBuilds {
		ref.TrendPValue = MannKendall(ys)
		if ref.TrendPValue < trendAlpha {
			slope, intercept = TheilSen(xs, ys)
			trend = slope != 0
		}
	}
	level := Median(ys)
	if trend {
		level = intercept + slope*xc
		if ref.Log {
			ref.TrendPercent = (math.Exp(slope) - 1) * 100
		} else if level != 0 {
			ref.TrendPercent = slope / math.Abs(level) * 100
		}
	}
	ref.scaled = level
	ref.Level = level
	if ref.Log {
		ref.Level = math.Exp(level)
	}

	// 3. Noise: residuals of every segment, runs around their builds.
	var resid []float64
	edges := append(append([]int{0}, bounds...), len(kept))
	params := 0
	for i := 0; i+1 < len(edges); i++ {
		part := kept[edges[i]:edges[i+1]]
		params++
		if i+2 == len(edges) && trend {
			params++
			for _, k := range part {
				resid = append(resid, y[k]-(intercept+slope*float64(k)))
			}
			continue
		}
		vals := make([]float64, len(part))
		for j, k := range part {
			vals[j] = y[k]
		}
		m := Median(vals)
		for _, v := range vals {
			resid = append(resid, v-m)
		}
	}
	between := math.NaN()
	if len(resid) >= minNoisePoints {
		between = MAD(resid)
	}
	var devs []float64
	var counts []float64
	for _, k := range kept {
		s := history[k].Samples
		if len(s) < 2 {
			continue
		}
		counts = append(counts, float64(len(s)))
		devs = appendDeviations(devs, s, f)
	}
	within := math.NaN()
	if len(devs) >= minNoisePoints {
		within = MAD(devs)
	}
	// A build's value spreads at least as much as the median of its runs.
	medianSD := func(m float64) float64 { return medianSpread(within, m) }
	s := between
	if !math.IsNaN(within) {
		floor := medianSD(Median(counts))
		if math.IsNaN(s) || s < floor {
			s = floor
		}
	}
	ref.DF = math.Max(1, float64(len(resid)-params))

	// 4. Prediction.
	if !math.IsNaN(s) {
		varCurrent := s * s
		if mc := float64(len(current.Samples)); !math.IsNaN(within) && mc >= 1 {
			// The build-to-build part not explained by runs, plus this
			// build's own median.
			typical := medianSD(Median(counts))
			tau2 := math.Max(0, s*s-typical*typical)
			varCurrent = tau2 + math.Pow(medianSD(mc), 2)
		}
		k := float64(len(seg))
		varLevel := math.Pi / 2 * s * s / k
		if trend {
			mx := Median(xs)
			var sxx float64
			for _, x := range xs {
				sxx += (x - mx) * (x - mx)
			}
			varLevel = s * s * (1/k + (xc-mx)*(xc-mx)/sxx)
		}
		ref.SE = math.Sqrt(varCurrent + varLevel)
	}
	ref.Between, ref.Within = between, within
	if !ref.Log {
		rel := func(v float64) float64 {
			if level == 0 {
				return math.NaN()
			}
			return v / math.Abs(level)
		}
		ref.Between, ref.Within, ref.SE = rel(ref.Between), rel(ref.Within), rel(ref.SE)
	}
	return ref, true
}

// withinBias corrects the MAD of deviations from a small build's own
// median, which sit closer to it than to the true centre. With an odd
// number of runs the median run itself is left out and the rest are nearly
// unbiased; with an even number the two middle runs sit close to their
// mean. The factors were measured by simulation (20,000 builds of normal
// runs each): 1.41, 1.39, 1.28, 1.20 and 1.14 for 2, 4, 6, 8 and 10 runs,
// then about 1 + 1.2/m.
func withinBias(m int) float64 {
	switch {
	case m%2 == 1:
		return 1
	case m <= 2:
		return 1.41
	case m == 4:
		return 1.39
	case m == 6:
		return 1.28
	case m == 8:
		return 1.20
	case m == 10:
		return 1.14
	}
	return 1 + 1.2/float64(m)
}

// medianSpread is the standard deviation of the median of m runs whose
// own standard deviation is sd: the mean's for 1 or 2 runs, else the
// large-sample sqrt(π/2m) (within 8% of simulated values from 3 runs on,
// on the safe side).
func medianSpread(sd, m float64) float64 {
	if m <= 2 {
		return sd / math.Sqrt(math.Max(m, 1))
	}
	return sd * math.Sqrt(math.Pi/(2*m))
}

// appendDeviations appends each sample's deviation from the median of the
// samples, on the working scale, leaving out the one sample that is the
// median itself (its deviation is 0 by construction).
func appendDeviations(devs, samples []float64, f func(float64) float64) []float64 {
	vals := make([]float64, len(samples))
	for i, s := range samples {
		vals[i] = f(s)
	}
	m := Median(vals)
	bias := withinBias(len(vals))
	skipped := false
	for _, v := range vals {
		if v == m && !skipped && len(vals)%2 == 1 {
			skipped = true
			continue
		}
		devs = append(devs, (v-m)*bias)
	}
	return devs
}

// Hampel filter parameters: a build is a spike when it is more than
// hampelLimit robust deviations from the median of the hampelHalf builds on
// each side of it.
const (
	hampelHalf  = 2
	hampelLimit = 5
)

// hampel marks the spikes of y with a two-sided Hampel identifier (Hampel
// 1974; Pearson 2002, "Outliers in process modeling and identification"):
// a value is a spike when it departs by more than hampelLimit times the
// noise, the same way, from the median of the hampelHalf values before it
// and from the median of the hampelHalf values after it (a value at an end
// is judged against the one side it has). Requiring both sides keeps the
// two values either side of a step of the level, each of which matches its
// own side, from being taken for spikes; the last value, which has only the
// values before it, is a spike when it departs from them: one build cannot
// tell a new level from a spike, and is left out of the reference until the
// next build says which it was. The noise is the scaled MAD of successive
// differences over √2, which neither a step nor a steady drift inflates;
// the drift (the median difference) is projected over the distance to each
// neighbour, so that a drifting series has no spikes.
func hampel(y []float64) []bool {
	out := make([]bool, len(y))
	if len(y) < hampelHalf+2 {
		return out
	}
	diffs := make([]float64, len(y)-1)
	for i := range diffs {
		diffs[i] = y[i+1] - y[i]
	}
	noise := MAD(diffs) / math.Sqrt2
	drift := Median(diffs)
	if !(noise > 0) {
		return out
	}
	// side is the departure of y[i] from the median of its neighbours
	// from lo to hi (exclusive), each projected along the drift; NaN when
	// there are none.
	side := func(i, lo, hi int) float64 {
		lo, hi = max(lo, 0), min(hi, len(y))
		if lo >= hi {
			return math.NaN()
		}
		w := make([]float64, 0, hi-lo)
		for j := lo; j < hi; j++ {
			w = append(w, y[j]+drift*float64(i-j))
		}
		return y[i] - Median(w)
	}
	limit := hampelLimit * noise
	for i := range y {
		before, after := side(i, i-hampelHalf, i), side(i, i+1, i+1+hampelHalf)
		switch {
		case math.IsNaN(before):
			out[i] = math.Abs(after) > limit
		case math.IsNaN(after):
			out[i] = math.Abs(before) > limit
		default:
			out[i] = math.Abs(before) > limit && math.Abs(after) > limit && (before > 0) == (after > 0)
		}
	}
	return out
}

// splitDistance is how far, in run-to-run standard deviations, a build's
// value must be from the level for its runs to be told apart by which
// they sit closer to.
const splitDistance = 5

// Split counts the runs of the current build that sit closer to the level
// than to the build's own value (its median), when the two are at least
// splitDistance run-to-run deviations apart: runs of one build that
// disagree that much say a slow (or fast) phase of the host, not a change
// of the code, which moves every run. It returns the count and whether the
// build is split: at least 2 runs, and at least a quarter of them.
func (r Reference) Split(current Point) (atLevel int, split bool) {
	if math.IsNaN(r.Within) || r.Within == 0 || len(current.Samples) < 3 {
		return 0, false
	}
	f := func(v float64) float64 { return v }
	if r.Log {
		f = math.Log
	}
	level, value := r.scaled, f(current.Value)
	within := r.Within
	if !r.Log {
		within *= math.Abs(level)
	}
	if math.Abs(value-level) < splitDistance*within {
		return 0, false
	}
	for _, s := range current.Samples {
		v := f(s)
		if math.Abs(v-level) < math.Abs(v-value) {
			atLevel++
		}
	}
	n := len(current.Samples)
	return atLevel, atLevel >= 2 && 4*atLevel >= n
}

// Test is the t statistic of the current point against the reference, its
// two-sided p-value, and the change in percent.
func (r Reference) Test(current Point) (t, p, delta float64) {
	yc := current.Value
	if r.Log {
		yc = math.Log(yc)
	}
	diff := yc - r.scaled
	if r.Log {
		delta = (math.Exp(diff) - 1) * 100
	} else {
		delta = deltaPercent(r.scaled, yc)
		if r.scaled != 0 {
			diff /= math.Abs(r.scaled)
		}
	}
	switch {
	case math.IsNaN(r.SE):
		return math.NaN(), math.NaN(), delta
	case r.SE == 0:
		if diff == 0 {
			return 0, 1, delta
		}
		return math.Copysign(math.Inf(1), diff), 0, delta
	}
	t = diff / r.SE
	return t, studentTwoSided(t, r.DF), delta
}

// Detectable is the smallest change, in percent, that a two-sided test at
// level alpha can tell from the noise of this reference; NaN when unknown.
func (r Reference) Detectable(alpha float64) float64 {
	if math.IsNaN(r.SE) {
		return math.NaN()
	}
	return studentQuantile(alpha, r.DF) * r.SE * 100
}

// Describe tells the reference in a sentence.
func (r Reference) Describe(n int) string {
	var b strings.Builder
	if r.Builds == n {
		fmt.Fprintf(&b, "against its %d history build(s)", r.Builds)
	} else {
		fmt.Fprintf(&b, "against the latest stable segment: builds %d-%d of %d (%d build(s))", r.Start+1, r.Start+r.Len, n, r.Builds)
	}
	if len(r.Spikes) > 0 {
		fmt.Fprintf(&b, ", %d spike(s) left out", len(r.Spikes))
	}
	fmt.Fprintf(&b, ", level %s", fmtNum(r.Level))
	if r.TrendPercent != 0 {
		fmt.Fprintf(&b, " on a trend of %+.2f%%/build (Mann-Kendall p=%.2g)", r.TrendPercent, r.TrendPValue)
	}
	between := pct(r.Between)
	if math.IsNaN(r.Between) {
		between = "not measurable on so few builds, taken from run-to-run"
	}
	fmt.Fprintf(&b, "; spread build-to-build %s, run-to-run %s", between, pct(r.Within))
	return b.String()
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "unknown"
	}
	return fmt.Sprintf("%.2f%%", v*100)
}

func allPositive(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return !(x > 0) || math.IsInf(x, 0) })
}
