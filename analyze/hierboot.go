package analyze

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

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
// it against 400,000 resamples drawn. It needs of each run only its
// sample count and the mean and variance of its log samples (RunStats):
// CompareStats compares summaries a store kept, Compare summarises the
// samples first (the same figures, TestHierBootstrapStats).
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
	// NoRatioInterval leaves the ratio's interval (HierResult.Lo, Hi)
	// NaN, not computed; everything else is as without it. Its Student t
	// quantile at the Welch-Satterthwaite degrees of freedom, which are
	// not a whole number, is gonum's incomplete beta inverse (about 5 µs,
	// no two rows alike): a fifth of compare.Build's time when seshat
	// serve compares two 5,000-run builds, whose pages show no ratio.
	NoRatioInterval bool
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
// finite is an error. Without Resamples it is CompareStats on each run's
// SummarizeRun.
func (h HierBootstrap) Compare(a, b [][]float64) (HierResult, error) {
	if h.Resamples == 0 {
		sa, err := summarizeRuns(a)
		if err != nil {
			return HierResult{}, fmt.Errorf("side A: %w", err)
		}
		sb, err := summarizeRuns(b)
		if err != nil {
			return HierResult{}, fmt.Errorf("side B: %w", err)
		}
		return h.CompareStats(sa, sb)
	}
	conf, err := h.confidence()
	if err != nil {
		return HierResult{}, err
	}
	if h.Resamples < 2 {
		return HierResult{}, fmt.Errorf("%w: %d resamples", ErrInvalidParam, h.Resamples)
	}
	la, ea, err := hierLogs(a)
	if err != nil {
		return HierResult{}, fmt.Errorf("side A: %w", err)
	}
	lb, eb, err := hierLogs(b)
	if err != nil {
		return HierResult{}, fmt.Errorf("side B: %w", err)
	}
	seed := h.Seed
	if seed == 0 {
		seed = hierSeed(a, b)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e5a7b007))
	var ma, mb hierMoments
	for range h.Resamples {
		ma.add(hierResample(rng, la))
		mb.add(hierResample(rng, lb))
	}
	return h.compare(hierEstimate{ea, ma.variance(), len(a), sampleCount(a)}, hierEstimate{eb, mb.variance(), len(b), sampleCount(b)}, conf), nil
}

// CompareStats compares two sides given as each run's summary
// (SummarizeRun), with the exact bootstrap variance of each side's level
// (see HierBootstrap): the comparison needs nothing else of the samples.
// For a side of n runs, run i of n_i samples whose logs have mean m_i and
// variance s_i² (over n_i), the level is m = (1/n) Σ m_i, and the
// variance of a two-stage resample of the runs as hierLogs widens them
// (each m_i moved to m + sqrt(n/(n-1)) (m_i - m), which leaves s_i² as
// it was) is
//
//	v = ( (1/(n-1)) Σ (m_i - m)²  +  (1/n) Σ s_i²/n_i ) / n
//
// (Davison & Hinkley §3.8, the two-stage bootstrap's variance of a mean
// of means; its limit as the resamples grow, Efron & Tibshirani §6.2).
// The interval and the p-value take v and the runs less one as degrees of
// freedom a side (Welch-Satterthwaite for the difference): the
// normal-approximation interval of Davison & Hinkley §5.2 with a Student t
// quantile. So a store that keeps each run's (n_i, m_i, s_i²) compares
// builds without reading their samples (seshat serve). Resamples, which
// draw samples, is an error here.
func (h HierBootstrap) CompareStats(a, b []RunStats) (HierResult, error) {
	conf, err := h.confidence()
	if err != nil {
		return HierResult{}, err
	}
	if h.Resamples != 0 {
		return HierResult{}, fmt.Errorf("%w: %d resamples: drawing resamples needs the samples (Compare)", ErrInvalidParam, h.Resamples)
	}
	ea, err := statsEstimate(a)
	if err != nil {
		return HierResult{}, fmt.Errorf("side A: %w", err)
	}
	eb, err := statsEstimate(b)
	if err != nil {
		return HierResult{}, fmt.Errorf("side B: %w", err)
	}
	return h.compare(ea, eb, conf), nil
}

// confidence is the level of the intervals, checked.
func (h HierBootstrap) confidence() (float64, error) {
	conf := h.Confidence
	if conf == 0 {
		conf = 0.95
	}
	if !(conf > 0 && conf < 1) {
		return 0, fmt.Errorf("%w: confidence %g, must be in (0, 1)", ErrInvalidParam, h.Confidence)
	}
	return conf, nil
}

// hierEstimate is a side's log level, the bootstrap variance of it, and
// its numbers of runs and samples.
type hierEstimate struct {
	level, variance float64
	runs, samples   int
}

// compare is the comparison of two sides' estimates: the log ratio over
// its standard error referred to a Student t (Welch-Satterthwaite).
func (h HierBootstrap) compare(ea, eb hierEstimate, conf float64) HierResult {
	va, vb := ea.variance, eb.variance
	r := HierResult{Ratio: math.Exp(eb.level - ea.level), Resamples: h.Resamples}
	r.A = hierSide(ea, conf)
	r.B = hierSide(eb, conf)
	d, v := eb.level-ea.level, va+vb
	switch {
	case v > 0:
		// Welch-Satterthwaite.
		r.DF = v * v / (va*va/float64(ea.runs-1) + vb*vb/float64(eb.runs-1))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
		r.P = 2 * t.Survival(math.Abs(d)/math.Sqrt(v))
		if !h.NoRatioInterval {
			q := t.Quantile((1 + conf) / 2)
			r.Lo, r.Hi = math.Exp(d-q*math.Sqrt(v)), math.Exp(d+q*math.Sqrt(v))
		}
	case d == 0: // every sample equal, the same on both sides
		r.P, r.Lo, r.Hi = 1, 1, 1
	default: // every sample of a side equal, the sides apart
		r.P, r.Lo, r.Hi = 0, r.Ratio, r.Ratio
	}
	if h.NoRatioInterval {
		r.Lo, r.Hi = math.NaN(), math.NaN()
	}
	return r
}

// RunStats is what CompareStats needs of a run's samples: their number,
// and the mean and the variance (over N, as resampling with replacement
// has it) of their logs. The variance is exactly 0 when every sample is
// equal.
type RunStats struct {
	N       int     `json:"n"`
	LogMean float64 `json:"log_mean"`
	LogVar  float64 `json:"log_var"`
}

// SummarizeRun summarises a run's samples for CompareStats. No sample,
// or one that is not positive and finite, is an error.
func SummarizeRun(samples []float64) (RunStats, error) {
	if len(samples) == 0 {
		return RunStats{}, errors.New("no sample")
	}
	logs := make([]float64, len(samples))
	var sum float64
	for j, v := range samples {
		if !(v > 0) || math.IsInf(v, 1) {
			return RunStats{}, fmt.Errorf("sample %d: %v: %w", j+1, v, ErrNotPositive)
		}
		logs[j] = math.Log(v)
		sum += logs[j]
	}
	// The mean summed as logRuns sums it: Compare and ComparePaired agree
	// on a side's level to the last bit.
	_, v := popMeanVariance(logs)
	return RunStats{N: len(samples), LogMean: sum / float64(len(samples)), LogVar: v}, nil
}

// summarizeRuns is SummarizeRun of every run, the error naming the run.
func summarizeRuns(runs [][]float64) ([]RunStats, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("%d run(s): %w", len(runs), ErrTooFewRuns)
	}
	out := make([]RunStats, len(runs))
	for i, run := range runs {
		var err error
		if out[i], err = SummarizeRun(run); err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
	}
	return out, nil
}

// statsEstimate is a side's log level and its exact bootstrap variance
// (CompareStats), from its runs' summaries.
func statsEstimate(runs []RunStats) (hierEstimate, error) {
	if len(runs) < 2 {
		return hierEstimate{}, fmt.Errorf("%d run(s): %w", len(runs), ErrTooFewRuns)
	}
	e := hierEstimate{runs: len(runs)}
	means := make([]float64, len(runs))
	var within float64
	for i, r := range runs {
		if r.N < 1 || math.IsNaN(r.LogMean) || math.IsInf(r.LogMean, 0) || !(r.LogVar >= 0) || math.IsInf(r.LogVar, 1) {
			return hierEstimate{}, fmt.Errorf("run %d: %d sample(s), log mean %v, log variance %v: %w", i+1, r.N, r.LogMean, r.LogVar, ErrInvalidParam)
		}
		means[i] = r.LogMean
		within += r.LogVar / float64(r.N)
		e.samples += r.N
	}
	n := float64(len(runs))
	e.level = stat.Mean(means, nil)
	_, between := popMeanVariance(means)
	between *= n / (n - 1) // the runs widened by sqrt(n/(n-1)), see hierLogs
	e.variance = (between + within/n) / n
	return e, nil
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
		if !h.NoRatioInterval {
			q := t.Quantile((1 + conf) / 2)
			r.Lo, r.Hi = math.Exp(d-q*se), math.Exp(d+q*se)
		}
	case d == 0:
		r.P, r.Lo, r.Hi = 1, 1, 1
	default: // every round differs by the same amount
		r.P, r.Lo, r.Hi = 0, r.Ratio, r.Ratio
	}
	if h.NoRatioInterval {
		r.Lo, r.Hi = math.NaN(), math.NaN()
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
func hierSide(e hierEstimate, conf float64) HierLevel {
	se := math.Sqrt(e.variance)
	q := sideQuantile(e.runs-1, (1+conf)/2)
	return HierLevel{Center: math.Exp(e.level), Lo: math.Exp(e.level - q*se), Hi: math.Exp(e.level + q*se), SE: se, Runs: e.runs, Samples: e.samples}
}

// sideQuantiles are the Student t quantiles of the sides' intervals,
// by degrees of freedom and probability: sides of as many runs share
// one. A quantile is gonum's incomplete beta inverse, about 5 µs: two a
// row were most of the comparison's time once the samples were
// summaries (seshat serve comparing two 5,000-run builds computes 4,000;
// BenchmarkHierBootstrap 14-20 -> 8.5-13 µs, alternating at a load of 5).
var sideQuantiles sync.Map // [2]float64 -> float64

// sideQuantile is the p quantile of a Student t of df degrees of freedom.
func sideQuantile(df int, p float64) float64 {
	key := [2]float64{float64(df), p}
	if q, ok := sideQuantiles.Load(key); ok {
		return q.(float64)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
	sideQuantiles.Store(key, q)
	return q
}

// sampleCount is the number of samples of all runs.
func sampleCount(runs [][]float64) int {
	n := 0
	for _, run := range runs {
		n += len(run)
	}
	return n
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
