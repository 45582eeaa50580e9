package regression

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/analyze"
)

// StatusBaseline is the status of the results of a baseline entry of an
// A/B analysis (Options.Baseline): the reference the other sides of its
// point are judged against, not judged itself.
const StatusBaseline analyze.Status = "baseline"

// MethodBaseline names the method of an A/B analysis in its report.
const MethodBaseline = "baseline"

// Baseline is the side of an A/B analysis in one job (`seshat regression
// --baseline KEY=VALUE`): every current entry whose label Key has another
// value is judged against the current entry with the same labels but
// Key=Value, by a hierarchical bootstrap of their runs (and per-iteration
// samples, Run.Samples, when every run of both sides has them) rather than
// against its history. History, when a store is given, is only context.
type Baseline struct {
	Key, Value string
}

func (b *Baseline) String() string { return b.Key + "=" + b.Value }

// withBaselineKey keeps the baseline's key in the entries' identity: it is
// never an ignored key of an A/B analysis.
func withBaselineKey(keys func(string) Keys, key string) func(string) Keys {
	return func(w string) Keys {
		var k Keys
		if keys != nil {
			k = keys(w)
		}
		if slices.Contains(k.IgnoredKeys, key) {
			k.IgnoredKeys = slices.DeleteFunc(slices.Clone(k.IgnoredKeys), func(s string) bool { return s == key })
		}
		return k
	}
}

// side is the value of the baseline key of an entry, and whether it has it.
func (e *Entry) side(key string) (string, bool) {
	if v, ok := e.Labels[key]; ok {
		return v, true
	}
	v, ok := e.Comparison[key]
	return v, ok && v != ""
}

// pointKey identifies an entry's matrix point without the baseline key:
// the two sides of one point share it.
func (e *Entry) pointKey(key string) string {
	all := maps.Clone(e.Labels)
	maps.Copy(all, e.Comparison)
	delete(all, key)
	return e.Workload + "\x02" + canonical(all)
}

// evaluateAB judges every entry against its baseline (an A/B analysis).
func (a *analysis) evaluateAB() {
	b := a.opts.Baseline
	bases := map[string]*Entry{}
	for _, e := range a.entries {
		if v, ok := e.side(b.Key); ok && v == b.Value && !e.noLabel {
			bases[e.pointKey(b.Key)] = e
		}
	}
	for _, e := range a.entries {
		v, ok := e.side(b.Key)
		switch {
		case e.noLabel:
			a.entryNotAnalyzed(e, "")
		case !ok:
			a.entryNotAnalyzed(e, "no label "+b.Key+": not a side of the A/B")
		case v == b.Value:
			a.evaluateSide(e, nil)
		case bases[e.pointKey(b.Key)] == nil:
			a.entryNotAnalyzed(e, "no current run of the baseline "+b.String()+" with the same other labels")
		default:
			a.evaluateSide(e, bases[e.pointKey(b.Key)])
		}
	}
}

// evaluateSide judges every KPI of entry e against base; base nil means e
// is the baseline itself, reported as the reference.
func (a *analysis) evaluateSide(e, base *Entry) {
	names := map[string]bool{}
	for _, en := range []*Entry{e, base} {
		if en == nil {
			continue
		}
		for _, r := range en.runs {
			for name := range r.Values {
				if a.wanted(e.Workload, name) {
					names[name] = true
				}
			}
		}
	}
	if len(names) == 0 {
		a.entryNotAnalyzed(e, "")
		return
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		e.Results = append(e.Results, a.evaluateABKPI(e, base, name))
	}
}

// entryNotAnalyzed gives e its one not-analysed result: why, else the
// problems of its runs.
func (a *analysis) entryNotAnalyzed(e *Entry, why string) {
	if why == "" {
		var problems []string
		for _, r := range e.runs {
			for _, p := range r.Problems {
				problems = append(problems, r.Path+": "+p)
			}
		}
		why = "the run(s) have no KPI value"
		if len(problems) > 0 {
			why = "no KPI: " + strings.Join(problems, "; ")
		}
	}
	e.Results = []*KPIResult{{Status: analyze.StatusNotAnalyzed, Result: notAnalyzed(a.rep.Method, why),
		Current: analyze.Point{Value: math.NaN(), Label: e.ComparisonValue}}}
}

// sideRuns are the values of a KPI in the runs of an entry, the
// per-iteration samples of each (nil for a run without) and the round
// that made each (Run.Round).
func sideRuns(e *Entry, name string) (values []float64, samples [][]float64, rounds []string) {
	for _, r := range e.runs {
		v, ok := r.KPI(name)
		if !ok || math.IsNaN(v.Value) {
			continue
		}
		values = append(values, v.Value)
		samples = append(samples, r.Samples[name])
		rounds = append(rounds, r.Round)
	}
	return values, samples, rounds
}

// byRounds orders y's runs as x's rounds, when every run of either side
// has a partner of the same round on the other and no round is twice on a
// side: the two sides can then be compared within rounds.
func byRounds(x, y [][]float64, rx, ry []string) ([][]float64, bool) {
	if len(x) != len(y) || len(x) < 2 {
		return nil, false
	}
	at := make(map[string]int, len(ry))
	for i, r := range ry {
		if _, twice := at[r]; twice || r == "" {
			return nil, false
		}
		at[r] = i
	}
	out := make([][]float64, len(x))
	seen := make(map[string]bool, len(rx))
	for i, r := range rx {
		j, ok := at[r]
		if !ok || seen[r] {
			return nil, false
		}
		seen[r] = true
		out[i] = y[j]
	}
	return out, true
}

func (a *analysis) evaluateABKPI(e, base *Entry, name string) *KPIResult {
	b := a.opts.Baseline
	res := &KPIResult{KPI: name}
	res.def, res.hasDef = a.definition(e.Workload, name)
	if res.hasDef {
		res.Unit, res.Direction = res.def.Unit, analyze.DirectionOf(res.def.LowerBetter())
	}
	for _, r := range e.runs {
		if v, ok := r.KPI(name); ok {
			res.Unit, res.Direction = v.Unit, analyze.DirectionOf(v.LowerBetter)
			break
		}
	}
	if e.series != nil {
		res.History = e.series.points(name) // context only, from a store when given
	}
	vb, sb, rb := sideRuns(e, name)
	res.Current = analyze.Point{Value: math.NaN(), Label: e.ComparisonValue}
	if len(vb) > 0 {
		res.Current = analyze.PointOf(vb...)
		res.Current.Label = e.ComparisonValue
		if len(e.Builds) == 1 {
			res.Current.Build = e.Builds[0]
		}
		res.Current.Commit = e.Commit
		for _, r := range e.runs {
			if res.Current.Time.IsZero() || r.Time.Before(res.Current.Time) {
				res.Current.Time = r.Time
			}
		}
	}
	notAnalysed := func(reason string) *KPIResult {
		res.Status, res.Result = analyze.StatusNotAnalyzed, notAnalyzed(a.rep.Method, reason)
		return res
	}
	if base == nil {
		res.Status, res.Result = StatusBaseline, notAnalyzed(a.rep.Method, "the baseline "+b.String()+": the reference of the other sides")
		res.Result.Status = StatusBaseline
		res.Result.Current, res.Result.Reference = res.Current.Value, res.Current.Value
		if level := sideLevel(vb, sb); !math.IsNaN(level) {
			// What the other sides' rows show as their reference.
			res.Result.Current, res.Result.Reference = level, level
		}
		if len(vb) == 0 {
			res.Result.Reason = "the baseline " + b.String() + " has no value of this KPI: no complete run"
		}
		return res
	}
	if len(vb) == 0 {
		return notAnalysed("absent from the current run(s) of this side")
	}
	va, sa, ra := sideRuns(base, name)
	if len(va) == 0 {
		return notAnalysed("the baseline " + b.String() + " has no value of this KPI")
	}
	side, _ := e.side(b.Key)
	res.Sides = &Sides{Baseline: b.String(), Current: b.Key + "=" + side, BaselinePoint: analyze.PointOf(va...)}
	if level := sideLevel(va, sa); !math.IsNaN(level) {
		res.Sides.BaselinePoint.Value = level
	}
	res.Sides.BaselinePoint.Label = b.String()
	// Every sample of every run when all runs of both sides have them,
	// else the run values.
	x, y, what := sa, sb, "runs and their per-iteration samples"
	for _, s := range append(slices.Clone(sa), sb...) {
		if len(s) == 0 {
			x, y, what = single(va), single(vb), "run values"
			break
		}
	}
	// Within rounds when the runs pair up: a slow phase of the host that
	// moves both runs of a round is then no noise of the comparison.
	compare := analyze.HierBootstrap{}.Compare
	if yy, paired := byRounds(x, y, ra, rb); paired {
		y, compare = yy, analyze.HierBootstrap{}.ComparePaired
	}
	h, err := compare(x, y)
	r := &res.Result
	*r = notAnalyzed(a.rep.Method, "")
	r.Current, r.Reference = res.Current.Value, analyze.Median(va)
	switch {
	case errors.Is(err, analyze.ErrTooFewRuns):
		r.Status = analyze.StatusNoisy
		r.Reason = fmt.Sprintf("too few runs to judge: %d run(s) here and %d of the baseline %s; the spread between runs needs 2 a side or more (repeat)", len(vb), len(va), b)
		r.DeltaPercent = (r.Current/r.Reference - 1) * 100
		res.Status = r.Status
		return res
	case err != nil:
		return notAnalysed(fmt.Sprintf("hierarchical bootstrap against the baseline %s: %v", b, err))
	}
	r.Current, r.Reference = h.B.Center, h.A.Center
	r.DeltaPercent, r.PValue, r.Score = (h.Ratio-1)*100, h.P, h.Ratio
	r.CILow, r.CIHigh = (h.Lo-1)*h.A.Center, (h.Hi-1)*h.A.Center
	// The smallest change the comparison could see: half its interval.
	r.Detectable = (h.Hi - h.Lo) / 2 * 100
	r.Status = analyze.StatusOK
	if h.Lo > 1 || h.Hi < 1 {
		worse := (h.Ratio > 1) == (res.Direction == analyze.LowerIsBetter)
		r.Status = analyze.StatusImprovement
		if worse {
			r.Status = analyze.StatusRegression
		}
	}
	how := "a hierarchical bootstrap"
	if h.Paired {
		how = fmt.Sprintf("a hierarchical bootstrap within %d rounds", h.A.Runs)
	}
	r.Details = fmt.Sprintf("against the baseline %s by %s of %s: %d run(s) (%d samples) here, %d (%d) there; ratio %.4f, 95%% interval [%.4f, %.4f], p=%.3g",
		b, how, what, h.B.Runs, h.B.Samples, h.A.Runs, h.A.Samples, h.Ratio, h.Lo, h.Hi, h.P)
	res.Status = r.Status
	return res
}

// sideLevel is a side's level as analyze.HierBootstrap measures it, the
// geometric mean over its runs of each run's geometric mean sample (of the
// run values when some run has no samples, as evaluateABKPI compares);
// NaN without runs or with a value that is not positive.
func sideLevel(values []float64, samples [][]float64) float64 {
	runs := samples
	for _, s := range samples {
		if len(s) == 0 {
			runs = single(values)
			break
		}
	}
	if len(runs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, r := range runs {
		st, err := analyze.SummarizeRun(r)
		if err != nil {
			return math.NaN()
		}
		sum += st.LogMean
	}
	return math.Exp(sum / float64(len(runs)))
}

func single(values []float64) [][]float64 {
	out := make([][]float64, len(values))
	for i, v := range values {
		out[i] = []float64{v}
	}
	return out
}

// explainNoisyAB words the gate's noisy verdicts of an A/B analysis: the
// interval of the ratio, not a history, is what is too wide.
func (a *analysis) explainNoisyAB() {
	g := a.opts.Gate
	maxNoise := g.MaxNoise
	if maxNoise == 0 {
		maxNoise = analyze.DefaultMaxNoise
	}
	for _, e := range a.entries {
		for _, r := range e.Results {
			if r.Result.Status != analyze.StatusNoisy || math.IsNaN(r.Result.Score) || !strings.HasPrefix(r.Result.Details, "against the baseline") {
				continue
			}
			r.Result.Reason = fmt.Sprintf("too noisy to judge: the interval of the change against the baseline %s is ±%.1f%%, wider than --max-noise %g%%; more runs a side (repeat) narrow it",
				a.opts.Baseline, r.Result.Detectable, maxNoise)
		}
	}
}
