package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// MannWhitney compares the current batch of repeated runs with the previous
// comparison value's batch by a two-sided Mann-Whitney U test (Wilcoxon
// rank-sum). The change is flagged when p < Alpha; its direction and size
// are the Hodges-Lehmann shift (median of all current-minus-previous
// differences) and its 95% confidence interval.
type MannWhitney struct {
	Alpha float64 // significance level; 0 means 0.05
}

// Name implements Method.
func (MannWhitney) Name() string { return "mannwhitney" }

func (m MannWhitney) alpha() float64 {
	if m.Alpha == 0 {
		return 0.05
	}
	return m.Alpha
}

func (m MannWhitney) validate() error {
	if a := m.alpha(); !(a > 0 && a < 1) {
		return fmt.Errorf("%w: alpha %g, must be in (0, 1)", ErrInvalidParam, m.Alpha)
	}
	return nil
}

// Evaluate implements Method.
func (m MannWhitney) Evaluate(in Input) Result {
	p, r, done := prepare(m.Name(), in)
	if done {
		return r
	}
	prev := finiteOnly(p.points[len(p.points)-1].samples())
	cur := finiteOnly(in.Current.samples())
	if len(prev) == 0 || len(cur) == 0 {
		r.Status, r.Reason = StatusNotAnalyzed, "no finite samples in the current or the previous batch"
		return r
	}
	t := MannWhitneyU(cur, prev)
	alpha := m.alpha()
	if t.MinPValue > alpha {
		r.Warnings = append(r.Warnings, warnf(WarnTooFewSamples,
			"%d current and %d previous runs: the smallest possible p-value is %.3g, so p < %g can never be reached; add repeated runs",
			len(cur), len(prev), t.MinPValue, alpha))
	}
	ref, now := Median(prev), Median(cur)
	r.Reference, r.Score, r.PValue = ref, t.U, t.PValue
	r.CILow, r.CIHigh = t.CILow, t.CIHigh
	r.DeltaPercent = deltaPercent(ref, now)
	shift := t.Shift
	if shift == 0 {
		shift = now - ref
	}
	r.Status = judge(in.Direction, t.PValue < alpha, shift)
	if t.MinPValue > alpha {
		// No difference could ever be significant with these batches: say
		// so rather than a silent ok.
		r.Status = StatusNoisy
		r.Reason = fmt.Sprintf("too few runs to judge: %d current and %d previous runs can never reach p < %g", len(cur), len(prev), alpha)
	}
	how := "normal approximation with tie correction"
	if t.Exact {
		how = "exact"
	}
	r.Details = fmt.Sprintf("U=%g, p=%.3g (%s) for %d current vs %d previous runs; median %s -> %s; shift %s, 95%% CI [%s, %s]",
		t.U, t.PValue, how, len(cur), len(prev), fmtNum(ref), fmtNum(now), fmtNum(t.Shift), fmtNum(t.CILow), fmtNum(t.CIHigh))
	return r
}

func finiteOnly(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if isFinite(x) {
			out = append(out, x)
		}
	}
	return out
}

// UTest is the outcome of a two-sided Mann-Whitney U test of x against y.
type UTest struct {
	// U counts the pairs (x_i, y_j) with x_i > y_j, ties counting one half
	// (R's W statistic for wilcox.test(x, y)).
	U      float64
	PValue float64
	// Exact is true when PValue comes from the exact distribution of U
	// (both samples under 50 values and no ties, as R decides); otherwise
	// from the normal approximation with continuity and tie corrections.
	Exact bool
	// Shift is the Hodges-Lehmann estimate of the location shift x - y:
	// the median of all differences x_i - y_j. CILow and CIHigh bound it
	// at 95%.
	Shift, CILow, CIHigh float64
	// MinPValue is the smallest two-sided p-value samples of these sizes can
	// give (2 / C(n1+n2, n1)): above alpha, no difference can be detected.
	MinPValue float64
}

// exactLimit is the sample size from which the normal approximation is used
// even without ties (R's wilcox.test uses the exact distribution below 50).
const exactLimit = 50

// MannWhitneyU runs the two-sided Mann-Whitney U test of x against y. Both
// samples must be non-empty and finite.
func MannWhitneyU(x, y []float64) UTest {
	n1, n2 := len(x), len(y)
	ranks, tieTerm := rankAll(x, y)
	var rx float64
	for _, r := range ranks[:n1] {
		rx += r
	}
	n := float64(n1 * n2)
	t := UTest{U: rx - float64(n1*(n1+1))/2}
	t.MinPValue = math.Min(1, 2/combin.GeneralizedBinomial(float64(n1+n2), float64(n1)))
	diffs := make([]float64, 0, n1*n2)
	for _, a := range x {
		for _, b := range y {
			diffs = append(diffs, a-b)
		}
	}
	slices.Sort(diffs)
	t.Shift = Median(diffs)
	if n1 < exactLimit && n2 < exactLimit && tieTerm == 0 {
		t.Exact = true
		dist := uDistribution(n1, n2)
		u := int(math.Round(t.U))
		t.PValue = math.Min(1, 2*dist.cdf(min(u, n1*n2-u)))
		// R: qu = qwilcox(alpha/2), at least 1; CI = [d(qu), d(N+1-qu)].
		qu := max(dist.quantile(0.025), 1)
		t.CILow, t.CIHigh = diffs[qu-1], diffs[n1*n2-qu]
		return t
	}
	sum := float64(n1 + n2)
	sigma := math.Sqrt(n / 12 * ((sum + 1) - tieTerm/(sum*(sum-1))))
	if sigma == 0 { // every value is the same
		t.PValue = 1
	} else {
		z := t.U - n/2
		z = (z - math.Copysign(0.5, z)) / sigma
		if t.U == n/2 {
			z = 0
		}
		t.PValue = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(z)))
	}
	// Hollander & Wolfe's large-sample bound: C = N/2 - z(0.975) sqrt(N(n1+n2+1)/12),
	// rounded, CI = [d(C), d(N+1-C)] (ties ignored).
	c := int(math.Round(n/2 - distuv.UnitNormal.Quantile(0.975)*math.Sqrt(n*(sum+1)/12)))
	c = min(max(c, 1), n1*n2/2+n1*n2%2)
	t.CILow, t.CIHigh = diffs[c-1], diffs[n1*n2-c]
	return t
}

// rankAll ranks the values of x then y together (1-based, ties sharing
// their mean rank) and returns the ranks and Σ(t³ - t) over tie groups.
func rankAll(x, y []float64) (ranks []float64, tieTerm float64) {
	all := append(slices.Clone(x), y...)
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(all[a], all[b]) })
	ranks = make([]float64, len(all))
	for i := 0; i < len(order); {
		j := i
		for j+1 < len(order) && all[order[j+1]] == all[order[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[order[k]] = mean
		}
		if g := float64(j - i + 1); g > 1 {
			tieTerm += g*g*g - g
		}
		i = j + 1
	}
	return ranks, tieTerm
}

// uDist is the exact null distribution of U for sample sizes n1 and n2.
type uDist struct {
	freq  []float64 // freq[u]: arrangements giving U = u
	total float64
}

// uDistribution counts the arrangements by the recursion on the largest
// value: it is an x (U grows by n2) or a y (U unchanged), so
// f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u). Only additions: no
// cancellation, so tail probabilities keep their precision. One table,
// updated in place for m = 1..n1 (u descending keeps f(m-1, n, ·) readable).
func uDistribution(n1, n2 int) uDist {
	size := n1*n2 + 1
	table := make([]float64, (n2+1)*size)
	g := make([][]float64, n2+1) // g[n][u] = f(m, n, u) for the current m
	for n := range g {
		g[n] = table[n*size : (n+1)*size]
		g[n][0] = 1 // m = 0: only U = 0
	}
	for m := 1; m <= n1; m++ {
		for n := 1; n <= n2; n++ {
			cur, below := g[n], g[n-1]
			for u := m * n; u >= 0; u-- {
				v := below[u] // the largest value is a y
				if u >= n {
					v += cur[u-n] // an x: f(m-1, n, u-n), not yet overwritten
				}
				cur[u] = v
			}
		}
	}
	d := uDist{freq: g[n2]}
	for _, c := range d.freq {
		d.total += c
	}
	return d
}

// cdf is P(U <= u).
func (d uDist) cdf(u int) float64 {
	var s float64
	for _, c := range d.freq[:min(u, len(d.freq)-1)+1] {
		s += c
	}
	return s / d.total
}

// quantile is the smallest u with P(U <= u) >= p, as R's qwilcox.
func (d uDist) quantile(p float64) int {
	p -= 10 * 2.220446049250313e-16 // R's fuzz against rounding
	var s float64
	for u, c := range d.freq {
		s += c
		if s/d.total >= p {
			return u
		}
	}
	return len(d.freq) - 1
}
