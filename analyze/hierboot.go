package analyze

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// HierBootstrap compares two sides of a two-level experiment: each side is
// a list of runs, each run a list of per-iteration samples (or one value).
// Samples within a run share the run's conditions (its process, its place
// on the host, its build of the caches), so they are not independent
// evidence: n runs of m samples are not n*m observations. The hierarchical
// bootstrap respects that by resampling at both levels: runs with
// replacement, then the samples of each resampled run with replacement
// (Davison & Hinkley, "Bootstrap Methods and their Application", 1997,
// §3.8 "Hierarchical data"; Saravanan, Berman & Sober, "Application of the
// hierarchical bootstrap to multi-level data in neuroscience", Neurons,
// Behavior, Data analysis, and Theory 3(5), 2020).
//
// The statistic is on a log scale, natural for times and rates: a side's
// level is the mean over its runs of the mean log sample of each run (each
// run weighs the same, whatever its sample count), that is the geometric
// mean for runs of equal length; the comparison is the ratio of B's level
// to A's. It needs no sort per resample, so that a comparison of hundreds
// of entries stays quick (BenchmarkHierBootstrap: 1.1 ms for 3 runs x
// 15 samples a side at the default 2000 resamples, on one core).
//
// Three runs a side are few, and a plain percentile interval of the
// resampled ratios is then far too narrow: the bootstrap distribution of a
// mean of n runs has (n-1)/n of the between-run variance, and its tails
// are those of a normal, not of a Student t with few degrees of freedom
// (TestHierBootstrapCalibration's pairs of equal sides, 3 runs x 15
// samples, had p < 0.05 in 20% to 22% of them with a plain percentile
// p-value, 0% to 3% with this one). So the runs' deviations from their
// side's level are first scaled by sqrt(n/(n-1)), the usual adjustment of
// resampled residuals (Davison & Hinkley §3.3 and §3.8), and the bootstrap
// serves for what it estimates well, the standard error of each side's
// log level: the log ratio over its standard error is referred to a
// Student t with the Welch-Satterthwaite degrees of freedom, each side
// counting its runs less one, for the two-sided p-value and the interval
// (the normal-approximation interval of Davison & Hinkley §5.2 with a t
// quantile). Each side needs two runs. testdata/hierboot_reference.py is
// the same algorithm in NumPy; TestHierBootstrapReference checks this one
// against its values.
//
// The bootstrap variance of a side's log level needs no resampling: it is
// the limit that B resamples estimate (Efron & Tibshirani's "ideal
// bootstrap estimate", "An Introduction to the Bootstrap", 1993, §6.2),
// and for a mean of means it has a closed form (Davison & Hinkley §3.8
// give it for the two-stage bootstrap). A resampled run drawn from n runs
// has as mean the mean m_i of a run drawn at random, varying by the
// spread of the runs' means about their level, (1/n) Σ (m_i - m)², and
// within it by the spread of its n_i samples, (1/n) Σ s_i²/n_i (s_i² the
// run's variance over n_i, as resampling with replacement has it); the
// level is the mean of n such draws, so its variance is the sum of the two
// over n. That is what Compare uses unless Resamples is given: exact,
// with no Monte Carlo error, and O(samples) where B = 2000 resamples drew
// every sample 2000 times (seshat serve comparing two 5,000-run builds on
// pi's samples spent 1.2 s of CPU in them; BenchmarkHierBootstrap 1.1 ms
// -> 37 µs, most of it now the t quantiles). TestHierBootstrapExact checks
// it against 400,000 resamples drawn.
//
// With Resamples, the variance is estimated from that many resamples
// drawn instead, by a PCG seeded from the data (or Seed), so that the same
// input always gives the same answer.
type HierBootstrap struct {
	// Resamples is B, the number of bootstrap resamples drawn; 0 takes
	// the exact bootstrap variance (B infinite).
	Resamples int
	// Confidence is the level of the intervals (0.95 when 0).
	Confidence float64
	// Seed seeds the generator; 0 derives a seed from the data.
	Seed uint64
}

// HierResult is a hierarchical bootstrap comparison of A and B.
type HierResult struct {
	// Ratio is B's level over A's (geometric means, see HierBootstrap);
	// Lo and Hi bound its confidence interval.
	Ratio, Lo, Hi float64
	// P is the two-sided p-value of Ratio = 1; DF the degrees of freedom
	// of its t reference.
	P, DF float64
	// A and B are each side's level (a geometric mean) and its interval.
	A, B HierLevel
	// Resamples is the number of bootstrap resamples drawn: 0 when the
	// exact bootstrap variance was taken.
	Resamples int
	// Paired tells that P, DF and the interval compare the sides within
	// rounds (ComparePaired).
	Paired bool
}

// HierLevel is the level of one side with its confidence interval.
type HierLevel struct {
	Center, Lo, Hi float64
	// SE is the bootstrap standard error of the log level.
	SE float64
	// Runs is the number of runs, Samples the number of samples in all.
	Runs, Samples int
}

// ErrNotPositive says that a value of a hierarchical bootstrap is not
// positive: the statistic is on a log scale.
var ErrNotPositive = errors.New("not positive")

// ErrTooFewRuns says that a side has fewer than two runs: the spread
// between runs, which the comparison must count, is then unknown.
var ErrTooFewRuns = errors.New("fewer than 2 runs")

// Compare resamples both sides and compares them. A side with fewer than
// two runs, a run without a sample, or a value that is not positive and
// finite is an error.
func (h HierBootstrap) Compare(a, b [][]float64) (HierResult, error) {
	nb := h.Resamples
	conf := h.Confidence
	if conf == 0 {
		conf = 0.95
	}
	if nb != 0 && nb < 2 {
		return HierResult{}, fmt.Errorf("%w: %d resamples", ErrInvalidParam, h.Resamples)
	}
	if !(conf > 0 && conf < 1) {
		return HierResult{}, fmt.Errorf("%w: confidence %g, must be in (0, 1)", ErrInvalidParam, h.Confidence)
	}
	la, ea, err := hierLogs(a)
	if err != nil {
		return HierResult{}, fmt.Errorf("side A: %w", err)
	}
	lb, eb, err := hierLogs(b)
	if err != nil {
		return HierResult{}, fmt.Errorf("side B: %w", err)
	}
	va, vb := hierVariance(la), hierVariance(lb)
	if nb > 0 {
		seed := h.Seed
		if seed == 0 {
			seed = hierSeed(a, b)
		}
		rng := rand.New(rand.NewPCG(seed, 0x5e5a7b007))
		var sa, sb hierMoments
		for range nb {
			sa.add(hierResample(rng, la))
			sb.add(hierResample(rng, lb))
		}
		va, vb = sa.variance(), sb.variance()
	}
	r := HierResult{Ratio: math.Exp(eb - ea), Resamples: nb}
	r.A = hierSide(ea, va, len(a)-1, conf, a)
	r.B = hierSide(eb, vb, len(b)-1, conf, b)
	d, v := eb-ea, va+vb
	switch {
	case v > 0:
		// Welch-Satterthwaite.
		r.DF = v * v / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
		r.P = 2 * t.Survival(math.Abs(d)/math.Sqrt(v))
		q := t.Quantile((1 + conf) / 2)
		r.Lo, r.Hi = math.Exp(d-q*math.Sqrt(v)), math.Exp(d+q*math.Sqrt(v))
	case d == 0: // every sample equal, the same on both sides
		r.P, r.Lo, r.Hi = 1, 1, 1
	default: // every sample of a side equal, the sides apart
		r.P, r.Lo, r.Hi = 0, r.Ratio, r.Ratio
	}
	return r, nil
}

// ComparePaired compares two sides measured in rounds: a[i] and b[i] are
// the runs of round i, run one after the other on the same host (an A/B of
// one job whose rounds alternate A B, B A, ...). A slow phase of the host
// that lasts a round moves both of its runs, so the comparison is made
// within rounds, on each round's difference of its two runs' mean log
// samples (the paired design of randomized multiple interleaved trials,
// Abedi & Brecht, "Conducting Repeatable Experiments in Highly Variable
// Cloud Computing Environments", ICPE 2017; duet benchmarking, Bulej et
// al., ICPE 2020).
//
// On a busy host a run is now and then slowed as a whole (it shared its
// core with another process: bench/realhost's runs of 10 samples agreeing
// within 2% and one of them 40% slower), which moves one round's
// difference far. The test is therefore Yuen's on the 10% trimmed mean of
// the rounds' differences (Yuen, "The two-sample trimmed t for unequal
// population variances", Biometrika 1974; its form for dependent groups,
// Wilcox, "Introduction to Robust Estimation and Hypothesis Testing",
// 3rd ed. 2012, §5.9.5): the g = floor(0.1 n) largest and smallest
// differences are left out of the mean, the standard error is the
// winsorized standard deviation of the differences over (1-2g/n) sqrt(n),
// and the trimmed mean over it is referred to a Student t with n-2g-1
// degrees of freedom. The rounds are the independent units and each
// round's difference uses every sample of its two runs: for runs of equal
// length this is the test of the two-level model with rounds as random
// effects (the summary-statistics approach; Holmes & Friston,
// "Generalisability, random effects and population inference",
// NeuroImage 1998), made robust by the trimming. The sides' levels (A and
// B) are their geometric means over the rounds kept, so that B over A is
// the ratio compared; their intervals are Compare's. It needs two rounds
// and as many runs a side; an unpaired run is an error (Compare then
// applies).
func (h HierBootstrap) ComparePaired(a, b [][]float64) (HierResult, error) {
	if len(a) != len(b) {
		return HierResult{}, fmt.Errorf("%w: %d run(s) of A and %d of B are not paired by rounds", ErrInvalidParam, len(a), len(b))
	}
	r, err := h.Compare(a, b)
	if err != nil {
		return r, err
	}
	conf := h.Confidence
	if conf == 0 {
		conf = 0.95
	}
	_, ma, _ := logRuns(a)
	_, mb, _ := logRuns(b)
	n := len(a)
	g := pairedTrim(n)
	diffs := make([]float64, n)
	for i := range n {
		diffs[i] = mb[i] - ma[i]
	}
	d, kept := trimmedMean(diffs, g)
	var ka, kb float64
	for _, i := range kept {
		ka += ma[i]
		kb += mb[i]
	}
	ka /= float64(len(kept))
	kb /= float64(len(kept))
	r.Ratio = math.Exp(d)
	r.A.Center, r.B.Center = math.Exp(ka), math.Exp(kb)
	// The winsorized differences: the g smallest raised to the smallest
	// kept, the g largest lowered to the largest kept.
	lo, hi := diffs[kept[0]], diffs[kept[len(kept)-1]]
	w := make([]float64, n)
	for i, v := range diffs {
		w[i] = min(max(v, lo), hi)
	}
	se := stat.StdDev(w, nil) / ((1 - 2*float64(g)/float64(n)) * math.Sqrt(float64(n)))
	r.DF = float64(n - 2*g - 1)
	switch {
	case se > 0:
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
		r.P = 2 * t.Survival(math.Abs(d)/se)
		q := t.Quantile((1 + conf) / 2)
		r.Lo, r.Hi = math.Exp(d-q*se), math.Exp(d+q*se)
	case d == 0:
		r.P, r.Lo, r.Hi = 1, 1, 1
	default: // every round differs by the same amount
		r.P, r.Lo, r.Hi = 0, r.Ratio, r.Ratio
	}
	r.Paired = true
	return r, nil
}

// pairedTrim is how many of the largest and of the smallest of n round
// differences ComparePaired leaves out: 10%, floor(0.1 n), none under 10
// rounds (a plain paired t). Wilcox's usual 20% made the test liberal on
// few rounds: of 4,000 simulated pairs of equal sides with normal round
// effects, p < 0.05 in 7.0% at 5 rounds, 7.3% at 6 and 5.9-6.5% at 10-15;
// with 10% in 4.7-5.6% from 5 to 30 rounds.
func pairedTrim(n int) int { return n / 10 }

// trimmedMean is the mean of xs less its g smallest and g largest values,
// and the indices of the values kept. xs is left as it was.
func trimmedMean(xs []float64, g int) (float64, []int) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(xs[i], xs[j]) })
	kept := idx[g : len(xs)-g]
	var s float64
	for _, i := range kept {
		s += xs[i]
	}
	return s / float64(len(kept)), kept
}

// shifted adds d to every value of run, in place.
func shifted(run []float64, d float64) []float64 {
	for j := range run {
		run[j] += d
	}
	return run
}

// resampleMean is the mean of len(run) values drawn from run with
// replacement (the value itself for a run of one).
func resampleMean(rng *rand.Rand, run []float64) float64 {
	n := len(run)
	if n == 1 {
		return run[0]
	}
	var m float64
	for range n {
		m += run[rng.IntN(n)]
	}
	return m / float64(n)
}

// hierLogs takes the logs of every sample, checking them, and returns them
// with their level (the mean over runs of each run's mean log), each
// sample shifted so that its run's mean log lies sqrt(n/(n-1)) times as
// far from the level as it did: resampled runs then vary as much as the
// runs of the side would (not (n-1)/n of that).
func hierLogs(runs [][]float64) ([][]float64, float64, error) {
	out, means, err := logRuns(runs)
	if err != nil {
		return nil, 0, err
	}
	level := stat.Mean(means, nil)
	n := float64(len(runs))
	scale := math.Sqrt(n / (n - 1))
	for i, run := range out {
		shifted(run, (scale-1)*(means[i]-level))
	}
	return out, level, nil
}

// logRuns is the log of every sample, checked, and each run's mean log.
func logRuns(runs [][]float64) ([][]float64, []float64, error) {
	if len(runs) < 2 {
		return nil, nil, fmt.Errorf("%d run(s): %w", len(runs), ErrTooFewRuns)
	}
	out := make([][]float64, len(runs))
	means := make([]float64, len(runs))
	for i, run := range runs {
		if len(run) == 0 {
			return nil, nil, fmt.Errorf("run %d: no sample", i+1)
		}
		out[i] = make([]float64, len(run))
		for j, v := range run {
			if !(v > 0) || math.IsInf(v, 1) {
				return nil, nil, fmt.Errorf("run %d, sample %d: %v: %w", i+1, j+1, v, ErrNotPositive)
			}
			out[i][j] = math.Log(v)
			means[i] += out[i][j]
		}
		means[i] /= float64(len(run))
	}
	return out, means, nil
}

// hierVariance is the exact variance of hierResample(rng, runs) over
// every draw of rng (see HierBootstrap): the variance of a resampled
// run's mean, between runs plus within a run, over the number of runs.
func hierVariance(runs [][]float64) float64 {
	n := float64(len(runs))
	means := make([]float64, len(runs))
	var within float64
	for i, run := range runs {
		m, v := popMeanVariance(run)
		means[i] = m
		within += v / float64(len(run))
	}
	_, between := popMeanVariance(means)
	return (between + within/n) / n
}

// popMeanVariance is stat.PopMeanVariance, the variance exactly 0 when
// every value is equal (rounding may leave the mean an ulp off them):
// equal sides then compare as equal, as the resamples of such sides did.
func popMeanVariance(xs []float64) (float64, float64) {
	if !slices.ContainsFunc(xs, func(x float64) bool { return x != xs[0] }) {
		return xs[0], 0
	}
	return stat.PopMeanVariance(xs, nil)
}

// hierResample is the level of one two-level resample: runs drawn with
// replacement, then the samples of each drawn run with replacement.
func hierResample(rng *rand.Rand, runs [][]float64) float64 {
	var s float64
	for range runs {
		s += resampleMean(rng, runs[rng.IntN(len(runs))])
	}
	return s / float64(len(runs))
}

// hierMoments accumulates a mean and a variance (Welford).
type hierMoments struct {
	n       int
	mean, m float64
}

func (w *hierMoments) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m += d * (x - w.mean)
}

func (w *hierMoments) variance() float64 { return w.m / float64(w.n-1) }

// hierSide is a side's level with its interval: the log level plus or
// minus a Student t quantile (runs less one degrees of freedom) times the
// bootstrap standard error.
func hierSide(est, v float64, df int, conf float64, runs [][]float64) HierLevel {
	se := math.Sqrt(v)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile((1 + conf) / 2)
	l := HierLevel{Center: math.Exp(est), Lo: math.Exp(est - q*se), Hi: math.Exp(est + q*se), SE: se, Runs: len(runs)}
	for _, run := range runs {
		l.Samples += len(run)
	}
	return l
}

// hierSeed hashes the values and the shape of both sides (FNV-1a).
func hierSeed(sides ...[][]float64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(u uint64) {
		for i := range buf {
			buf[i] = byte(u >> (8 * i))
		}
		h.Write(buf[:])
	}
	for _, runs := range sides {
		put(uint64(len(runs)))
		for _, run := range runs {
			put(uint64(len(run)))
			for _, v := range run {
				put(math.Float64bits(v))
			}
		}
	}
	return h.Sum64() | 1
}
