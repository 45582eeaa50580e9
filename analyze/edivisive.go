package analyze

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// EDivisive is Hunter's variant of e-divisive means (Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023), as Apache Otava implements it:
//
//  1. Split: the series is cut into windows of WindowLen points, the next
//     window starting at max(last change point found in this window,
//     start + WindowLen/2). In each window, e-divisive repeatedly splits
//     the segment whose best split maximises the Q-hat divergence
//     (alpha = 1) over (tau, kappa); a split is kept while the two-sided
//     pooled t-test between the two new segments has p <= a relaxed
//     threshold (10x MaxPValue, 2x from 0.05, MaxPValue itself from 0.5).
//     The union of all windows' splits are the "weak" change points.
//  2. Their statistics are recomputed on the whole series, each against
//     the adjacent weak change points.
//  3. Merge: repeatedly drop the change point with the worst p-value while
//     it is >= MaxPValue, else the one of smallest magnitude while it is
//     <= MinMagnitude, recomputing its neighbours each time.
//
// ChangePoints then goes on merging, dropping first any change point next
// to a segment of a single point (see minSegment): one value is a spike,
// not a level, so a change needs two points on each side. Evaluate keeps a
// last segment of one point: that is the current run starting a new level.
//
// The current run regresses when it starts a new segment (a change point
// at the last index) whose change goes the bad way for the KPI.
type EDivisive struct {
	WindowLen    int     // points per window; 0 means DefaultWindowLen
	MaxPValue    float64 // final significance threshold; 0 means DefaultMaxPValue
	MinMagnitude float64 // smallest relative change kept; default 0
}

// The defaults of EDivisive (and of --window-len and --max-pvalue).
const (
	DefaultWindowLen = 50
	DefaultMaxPValue = 0.001
)

// Name implements Method.
func (EDivisive) Name() string { return "edivisive" }

func (e EDivisive) withDefaults() EDivisive {
	if e.WindowLen == 0 {
		e.WindowLen = DefaultWindowLen
	}
	if e.MaxPValue == 0 {
		e.MaxPValue = DefaultMaxPValue
	}
	return e
}

func (e EDivisive) validate() error {
	e = e.withDefaults()
	switch {
	case e.WindowLen < 2:
		return fmt.Errorf("%w: window length %d, must be at least 2", ErrInvalidParam, e.WindowLen)
	case !(e.MaxPValue > 0 && e.MaxPValue < 1):
		return fmt.Errorf("%w: max p-value %g, must be in (0, 1)", ErrInvalidParam, e.MaxPValue)
	case !(e.MinMagnitude >= 0) || math.IsInf(e.MinMagnitude, 0):
		return fmt.Errorf("%w: min magnitude %g, must be a number >= 0", ErrInvalidParam, e.MinMagnitude)
	}
	return nil
}

// ChangePoints implements Detector.
func (e EDivisive) ChangePoints(series []float64) ([]ChangePoint, []Warning) {
	warns, ok := seriesWarnings(series, 2*minSegment, "e-divisive")
	if !ok {
		return nil, warns
	}
	return e.withDefaults().levels(series), warns
}

// levels are the change points of a plain series: those of changePoints,
// merged on until no segment holds a single point.
func (e EDivisive) levels(x []float64) []ChangePoint {
	return merge(x, e.changePoints(x), spikesFirst(func(cps []ChangePoint) int {
		return weakest(cps, e.MaxPValue, e.MinMagnitude)
	}))
}

// changePoints runs split, recompute and merge on a finite series.
func (e EDivisive) changePoints(x []float64) []ChangePoint {
	weak := splitWindows(x, e.WindowLen, firstPassPValue(e.MaxPValue))
	cps := make([]ChangePoint, len(weak))
	for i, idx := range weak {
		cps[i] = changePointAt(x, idx, prevIndex(weak, i), nextIndex(weak, i, len(x)))
	}
	return mergeChangePoints(x, cps, e.MaxPValue, e.MinMagnitude)
}

// firstPassPValue is the relaxed threshold of the split step, as Otava's.
func firstPassPValue(p float64) float64 {
	switch {
	case p < 0.05:
		return 10 * p
	case p < 0.5:
		return 2 * p
	default:
		return p
	}
}

func prevIndex(idx []int, i int) int {
	if i == 0 {
		return 0
	}
	return idx[i-1]
}

func nextIndex(idx []int, i, n int) int {
	if i == len(idx)-1 {
		return n
	}
	return idx[i+1]
}

// changePointAt is the change point at idx between the segments
// x[start:idx] and x[idx:end].
func changePointAt(x []float64, idx, start, end int) ChangePoint {
	s := CompareSegments(x[start:idx], x[idx:end])
	return ChangePoint{
		Index: idx, MeanBefore: s.MeanBefore, MeanAfter: s.MeanAfter,
		StdDevBefore: s.StdDevBefore, StdDevAfter: s.StdDevAfter,
		NBefore: s.NBefore, NAfter: s.NAfter, PValue: s.PValue,
	}
}

// splitWindows returns the sorted weak change points of x: the union of the
// e-divisive splits of each window.
func splitWindows(x []float64, windowLen int, pvalue float64) []int {
	step := windowLen / 2
	var found []int
	q := newQHat(min(windowLen, len(x)))
	for start := 0; start < len(x); {
		end := min(start+windowLen, len(x))
		local := q.divide(x[start:end], pvalue)
		last := 0
		for _, i := range local {
			found = append(found, start+i)
			last = start + i
		}
		start = max(last, start+step)
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// interval is a segment [s, e) of a window with its best split.
type interval struct {
	s, e int
	tau  int     // best split, s < tau < e; valid when e-s > 1
	q    float64 // Q-hat at tau
}

// qhat holds the scratch space of the Q-hat search, sized for one window.
type qhat struct {
	diag, col []float64
}

func newQHat(n int) *qhat {
	return &qhat{diag: make([]float64, n), col: make([]float64, n)}
}

// divide runs e-divisive on one window w: while the best split of all
// segments (largest Q-hat, the leftmost segment on ties) is significant,
// split there. It returns the splits found, sorted.
func (q *qhat) divide(w []float64, pvalue float64) []int {
	ivs := []interval{q.candidate(w, 0, len(w))}
	var cps []int
	for {
		best := -1
		for i, iv := range ivs {
			if iv.e-iv.s > 1 && (best < 0 || iv.q > ivs[best].q) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		iv := ivs[best]
		// NaN never passes, as in Otava (p <= threshold).
		if !(CompareSegments(w[iv.s:iv.tau], w[iv.tau:iv.e]).PValue <= pvalue) {
			break
		}
		left, right := q.candidate(w, iv.s, iv.tau), q.candidate(w, iv.tau, iv.e)
		ivs = slices.Replace(ivs, best, best+1, left, right)
		cps = append(cps, iv.tau)
	}
	slices.Sort(cps)
	return cps
}

// candidate finds the split tau of w[s:e] maximising over s < tau < kappa <= e
//
//	Q(tau, kappa) = 2/(m+n) Σ|X_i - Y_j| - 2m/((m+n)(n-1)) Σ_{i<k}|X_i - X_k|
//	                                      - 2n/((m+n)(m-1)) Σ_{j<k}|Y_j - Y_k|
//
// with X = w[s:tau] (n points), Y = w[tau:kappa] (m points), a within-sum
// term being 0 for a single point. The first maximum in (tau, kappa) order
// wins, as numpy's argmax in Otava. O((e-s)^2) time, O(e-s) space: running
// sums replace Otava's precomputed matrices.
func (q *qhat) candidate(w []float64, s, e int) interval {
	iv := interval{s: s, e: e, q: math.Inf(-1)}
	if e-s < 2 {
		return iv
	}
	z := w[s:e]
	l := len(z)
	diag, col := q.diag[:l], q.col[:l]
	// diag[k] = Σ_{i<k} |z_i - z_k|; col[k] = Σ_{i<tau} |z_i - z_k| for k >= tau.
	for k := range z {
		var sum float64
		for i := range k {
			sum += math.Abs(z[i] - z[k])
		}
		diag[k] = sum
		col[k] = math.Abs(z[0] - z[k])
	}
	var withinX float64 // Σ_{i<k<tau} |z_i - z_k|
	for tau := 1; tau < l; tau++ {
		n := float64(tau)
		var between, withinY float64
		for kappa := tau + 1; kappa <= l; kappa++ {
			k := kappa - 1 // the point entering Y
			between += col[k]
			withinY += diag[k] - col[k]
			m := float64(kappa - tau)
			v := 2 / (m + n) * between
			if tau > 1 {
				v -= 2 * m / ((m + n) * (n - 1)) * withinX
			}
			if kappa-tau > 1 {
				v -= 2 * n / ((m + n) * (m - 1)) * withinY
			}
			if v > iv.q {
				iv.q, iv.tau = v, s+tau
			}
		}
		withinX += diag[tau]
		for k := tau + 1; k < l; k++ {
			col[k] += math.Abs(z[tau] - z[k])
		}
	}
	return iv
}

// mergeChangePoints drops weak change points until every one left has
// p < maxP and magnitude > minMag. Each drop recomputes the two change
// points either side of the dropped one, since their segments grew.
// (Otava recomputes the two after it, leaving the one before stale; see
// apache/otava#96. We recompute the true neighbours.)
func mergeChangePoints(x []float64, cps []ChangePoint, maxP, minMag float64) []ChangePoint {
	return merge(x, cps, func(cps []ChangePoint) int { return weakest(cps, maxP, minMag) })
}

// weakest is the change point the merge drops next: the one of worst
// p-value while it is >= maxP, else the one of smallest magnitude while it
// is <= minMag; -1 when every one passes.
func weakest(cps []ChangePoint, maxP, minMag float64) int {
	if len(cps) == 0 {
		return -1
	}
	w := 0
	for i, c := range cps {
		if c.PValue > cps[w].PValue {
			w = i
		}
	}
	if !(cps[w].PValue < maxP) {
		return w
	}
	w = 0
	for i, c := range cps {
		if c.Magnitude() < cps[w].Magnitude() {
			w = i
		}
	}
	if cps[w].Magnitude() > minMag {
		return -1
	}
	return w
}

// merge drops the change point pick chooses, recomputing the change points
// either side of it against the grown segment, until pick chooses none
// (-1).
func merge(x []float64, cps []ChangePoint, pick func([]ChangePoint) int) []ChangePoint {
	for {
		drop := pick(cps)
		if drop < 0 {
			return cps
		}
		cps = slices.Delete(cps, drop, drop+1)
		idx := make([]int, len(cps))
		for i, c := range cps {
			idx[i] = c.Index
		}
		for _, i := range []int{drop - 1, drop} {
			if i >= 0 && i < len(cps) {
				cps[i] = changePointAt(x, cps[i].Index, prevIndex(idx, i), nextIndex(idx, i, len(x)))
			}
		}
	}
}

// Evaluate implements Method: e-divisive on the history followed by the
// current value.
func (e EDivisive) Evaluate(in Input) Result {
	p, r, done := prepare(e.Name(), in)
	if done {
		return r
	}
	e = e.withDefaults()
	n := len(p.history)
	if n < 3 {
		p.warnings = append(p.warnings, warnf(WarnTooFewPoints,
			"%d history point(s): too few for e-divisive to tell a change from noise", n))
	}
	r.Warnings = p.warnings
	series := append(slices.Clip(p.history), p.current)
	cps := e.changePoints(series)
	if len(cps) > 0 && cps[len(cps)-1].Index == n {
		cp := cps[len(cps)-1]
		r.Reference, r.PValue, r.Score = cp.MeanBefore, cp.PValue, cp.Magnitude()
		r.DeltaPercent = deltaPercent(cp.MeanBefore, p.current)
		r.Status = judge(in.Direction, true, p.current-cp.MeanBefore)
		r.Details = fmt.Sprintf("the current run starts a new segment: mean of the %d point(s) before %s, now %s (%+.2f%%), p=%.3g, magnitude %.4f",
			cp.NBefore, fmtNum(cp.MeanBefore), fmtNum(p.current), cp.ForwardChangePercent(), cp.PValue, cp.Magnitude())
		return r
	}
	start := 0
	if len(cps) > 0 {
		start = cps[len(cps)-1].Index
	}
	s := CompareSegments(p.history[start:], []float64{p.current})
	r.Reference, r.PValue = s.MeanBefore, s.PValue
	r.DeltaPercent = deltaPercent(s.MeanBefore, p.current)
	r.Status = StatusOK
	r.Details = fmt.Sprintf("no change at the current run: it continues a segment of %d point(s) with mean %s (p=%.3g); %d change point(s) in the history",
		s.NBefore, fmtNum(s.MeanBefore), s.PValue, len(cps))
	return r
}

// fmtNum prints a KPI value compactly for details: six significant
// digits, large values as whole numbers rather than with an exponent
// (a size of 67108864 bytes, not 6.71089e+07).
func fmtNum(v float64) string {
	if a := math.Abs(v); a >= 1e5 && a < 1e15 {
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	return fmt.Sprintf("%.6g", v)
}
