package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/seshat-bench/seshat/analyze"
)

// The frontier (-frontier) asks what recall any online detector could have
// on the labelled series at a given rate of far alerts: at each judged
// build b, seeing only builds up to b as a CI job does, a statistic scores
// "a change started fore builds ago" (the fore group, builds b-fore+1..b)
// against the back window before them. A detector alerts when the score
// reaches a threshold and the relative step of the medians reaches a
// minimum effect; after an alert the next suppress builds do not alert and
// the reference restarts at the fore group's first build (one alert per
// change). Every statistic is swept over its thresholds, fore windows,
// minimum back windows and minimum effects, and each configuration is
// scored as the methods are (scoreSeries: recall within the margin, far
// alerts per 1,000 judged builds, alerts per found change).

// suppress is how many builds after an alert do not alert.
const suppress = 5

// frontierMaxFar and frontierMaxPer are issue 20's targets: at most 2 far
// alerts per 1,000 builds and 1.3 alerts per found change.
const frontierMaxFar, frontierMaxPer = 2.0, 1.3

// statistic scores a possible change: back are the reference builds in
// order (the last one just before the fore group), fore the builds from
// the candidate start to the judged build. Scores are >= 0; larger means
// more evidence of a change.
type statistic struct {
	name    string
	maxBack int // most back builds used
	score   func(back, fore []float64) float64
	grid    []float64 // thresholds swept
}

// geometric is n thresholds from lo, each ratio times the last.
func geometric(lo, ratio float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(ratio, float64(i))
	}
	return out
}

// statistics are the candidate statistics of the frontier.
func statistics() []statistic {
	tGrid := geometric(1, 1.05, 100)
	perfherderT := func(back, fore []float64) float64 { return math.Abs(analyze.PerfherderT(reversed(back), fore)) }
	return []statistic{
		// Perfherder's weighted t (treeherder's perfalert calc_t, linear
		// weights) with its back window of 12, and with 8 and 24.
		{"perfherder t (back 12)", 12, perfherderT, tGrid},
		{"perfherder t (back 8)", 8, perfherderT, tGrid},
		{"perfherder t (back 24)", 24, perfherderT, tGrid},
		// Welch's t (Welch 1947) of the plain means, back 30.
		{"welch t (back 30)", 30, func(back, fore []float64) float64 {
			return math.Abs(analyze.WelchT(back, fore))
		}, tGrid},
		// Perfherder's weighted t counted only when every fore build lies
		// beyond the back window's bounds (as shift's known-mode rule).
		{"perfherder t, beyond bounds", 12, func(back, fore []float64) float64 {
			if !beyondBounds(back, fore) {
				return 0
			}
			return math.Abs(analyze.PerfherderT(reversed(back), fore))
		}, tGrid},
		// The Mann-Whitney U test (Mann & Whitney 1947) of the fore builds
		// against the back window, its two-sided p as a normal z.
		{"mann-whitney z (back 30)", 30, func(back, fore []float64) float64 {
			p := analyze.MannWhitneyU(fore, back).PValue
			return distuv.UnitNormal.Quantile(1 - math.Max(p, 1e-300)/2)
		}, geometric(0.5, 1.025, 100)},
		// shift's effect: the median shift over its mode-aware scale's
		// standard error (analyze.ModeAwareSpread, scale × √(1/n + 1/m)).
		{"shift effect/SE (back 30)", 30, func(back, fore []float64) float64 {
			return shiftSE(back, fore, false)
		}, tGrid},
		// The same, counted only when every fore build lies beyond the
		// back window's bounds on one side (shift's known-mode rule).
		{"shift effect/SE, beyond bounds", 30, func(back, fore []float64) float64 {
			return shiftSE(back, fore, true)
		}, tGrid},
		// The relative step of the medians, in percent.
		{"median step % (back 30)", 30, func(back, fore []float64) float64 {
			return math.Abs(relStep(back, fore))
		}, geometric(0.5, 1.05, 100)},
	}
}

func reversed(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// relStep is the median of fore against the median of back, in percent; 0
// when back's median is 0.
func relStep(back, fore []float64) float64 {
	b := analyze.Median(back)
	if b == 0 {
		return 0
	}
	return 100 * (analyze.Median(fore)/b - 1)
}

// shiftSE is the median shift of fore over back in standard errors of
// back's mode-aware scale; with beyond, 0 unless every fore build lies
// beyond back's bounds on the side of the shift.
func shiftSE(back, fore []float64, beyond bool) float64 {
	med, lower, upper, scale := analyze.ModeAwareSpread(back)
	d := analyze.Median(fore) - med
	if d == 0 {
		return 0
	}
	if beyond && !allBeyond(fore, med, lower, upper) {
		return 0
	}
	se := scale * math.Sqrt(1/float64(len(back))+1/float64(len(fore)))
	if se == 0 {
		return math.Inf(1)
	}
	return math.Abs(d) / se
}

// beyondBounds tells whether every fore build lies beyond the bounds of
// back (analyze.ModeAwareSpread) on the side of the fore median.
func beyondBounds(back, fore []float64) bool {
	med, lower, upper, _ := analyze.ModeAwareSpread(back)
	return allBeyond(fore, med, lower, upper)
}

// allBeyond tells whether every fore build lies beyond lower or upper on
// the side of the fore median against med.
func allBeyond(fore []float64, med, lower, upper float64) bool {
	d := analyze.Median(fore) - med
	for _, v := range fore {
		if (d > 0 && !(v > upper)) || (d < 0 && !(v < lower)) || d == 0 {
			return false
		}
	}
	return true
}

// detectorConfig is one online detector of the frontier: a change may
// start at any of the last maxFore builds with at least minFore builds
// from its start to the judged one.
type detectorConfig struct {
	minFore, maxFore, minBack int
	minEffect                 float64 // percent
	threshold                 float64
}

// foreRanges are the fore groups swept: fixed sizes 1-5, and a start
// anywhere in the last 5 builds with at least 2, 3 or 4 of them (as shift
// does with 4).
var foreRanges = [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {2, 5}, {3, 5}, {4, 5}}

// window is a back window and fore group of one series: back is
// values[lo:start], fore values[start:start+fore].
type window struct{ lo, start, fore int }

// scored is a window's statistic and relative step of medians (percent).
type scored struct{ score, step float64 }

// memo keeps a statistic's scores of one series' windows: the sweep meets
// the same windows in most configurations.
type memo map[window]scored

// onlineAlerts are the builds at which the detector st with c alerts on
// values, each build judged on the builds up to it.
func onlineAlerts(values []float64, st statistic, c detectorConfig, m memo) []int {
	var alerts []int
	ref, quiet := 0, -1
	for b := 1; b < len(values); b++ {
		if b <= quiet {
			continue
		}
		best, at := math.Inf(-1), -1
		for f := c.minFore; f <= c.maxFore; f++ {
			start := b - f + 1
			if start-ref < c.minBack {
				continue
			}
			w := window{max(ref, start-st.maxBack), start, f}
			sc, ok := m[w]
			if !ok {
				back, fore := values[w.lo:w.start], values[w.start:b+1]
				sc = scored{st.score(back, fore), relStep(back, fore)}
				m[w] = sc
			}
			if sc.score >= c.threshold && math.Abs(sc.step) >= c.minEffect && sc.score > best {
				best, at = sc.score, start
			}
		}
		if at >= 0 {
			alerts = append(alerts, b)
			quiet, ref = b+suppress, at
		}
	}
	return alerts
}

// outcome is how one configuration did over every series.
type outcome struct {
	stat  string
	c     detectorConfig
	total score
	found map[string]bool // confirmed labels found, by labelKey
	// each is the score on each series, in order.
	each []score
	// farStep are the far alerts after which the level held a step of at
	// least the gate's minimum effect (farAtSteps).
	farStep int
}

// heldStep is the relative step (percent) of the median of the 10 builds
// from start against the up to stepBefore builds before it: whether a
// level an alert found held.
func heldStep(values []float64, start int) float64 {
	start = max(1, start)
	return relStep(values[max(0, start-stepBefore):start], values[start:min(len(values), start+10)])
}

// farAtSteps counts the alerts farther than the margin from every label
// after which the level held a step of at least the gate's minimum effect
// (heldStep from the fore group's first build, minFore builds back): a
// lasting change nobody labelled rather than noise.
func farAtSteps(s *series, alerts []int, minFore int) int {
	n := 0
	for _, a := range alerts {
		if !slices.ContainsFunc(s.Labels, func(l label) bool { return within(a, l.Index) }) &&
			math.Abs(heldStep(s.Values, a-minFore+1)) >= float64(analyze.DefaultMinEffect) {
			n++
		}
	}
	return n
}

func (o outcome) far1k() float64 { return o.per1k(o.total.far) }

func (o outcome) per1k(n int) float64 { return 1000 * float64(n) / float64(max(o.total.judged, 1)) }

// allFar counts every far alert; unexplained only those after which no
// step of the gate's minimum effect held (farAtSteps).
func allFar(o outcome) int      { return o.total.far }
func unexplained(o outcome) int { return o.total.far - o.farStep }

func (o outcome) perChange() float64 {
	if o.total.found == 0 {
		return 0
	}
	return float64(o.total.near) / float64(o.total.found)
}

// meets tells whether the outcome keeps issue 20's bounds on far alerts
// and alerts per change.
func (o outcome) meets() bool { return o.far1k() <= frontierMaxFar && o.perChange() <= frontierMaxPer }

func labelKey(s *series, l label) string {
	return fmt.Sprintf("%s %s@%d", s.Signature, l.Status, l.Index)
}

// sweep scores every configuration of st on the series.
func sweep(all []*series, st statistic) []outcome {
	memos := make([]memo, len(all))
	for i := range memos {
		memos[i] = memo{}
	}
	var out []outcome
	for _, fore := range foreRanges {
		for _, minBack := range []int{6, 10, 14} {
			for _, minEffect := range []float64{0, 2, 3} {
				for _, thr := range st.grid {
					c := detectorConfig{fore[0], fore[1], minBack, minEffect, thr}
					o := outcome{stat: st.name, c: c, found: map[string]bool{}}
					for i, s := range all {
						alerts := onlineAlerts(s.Values, st, c, memos[i])
						sc := scoreSeries(s.Labels, s.Values, alerts, len(s.Values)-1)
						o.total.add(sc)
						o.each = append(o.each, sc)
						o.farStep += farAtSteps(s, alerts, c.minFore)
						for _, l := range s.Labels {
							if l.Confirmed() && slices.ContainsFunc(alerts, func(a int) bool { return within(a, l.Index) }) {
								o.found[labelKey(s, l)] = true
							}
						}
					}
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// crossValidated is the score of choosing a setting on all series but one
// and judging that one with it, summed over every series left out
// (leave-one-out cross-validation): each held-out series is judged by the
// setting that, on the others, finds the most confirmed changes within
// the targets' bounds (the fewest far alerts among equals). It tells how
// much of a frontier is the choice of the setting fitting these labels.
func crossValidated(outs []outcome, n int) score {
	var cv score
	for h := range n {
		best, found, far := -1, -1, 0
		for i, o := range outs {
			f := o.total.found - o.each[h].found
			fa := o.total.far - o.each[h].far
			judged := o.total.judged - o.each[h].judged
			near := o.total.near - o.each[h].near
			if 1000*float64(fa) > frontierMaxFar*float64(judged) || float64(near) > frontierMaxPer*float64(f) {
				continue
			}
			if f > found || f == found && fa < far {
				best, found, far = i, f, fa
			}
		}
		if best >= 0 {
			cv.add(outs[best].each[h])
		}
	}
	return cv
}

// paretoFront is, for each number of confirmed changes found, the
// configuration with the fewest far alerts (as far counts them) that finds
// at least as many with at most frontierMaxPer alerts per change, for
// counts up to the largest any configuration reaches.
func paretoFront(outs []outcome, far func(outcome) int) []outcome {
	best := map[int]outcome{}
	for _, o := range outs {
		if o.perChange() > frontierMaxPer {
			continue
		}
		if b, ok := best[o.total.found]; !ok || far(o) < far(b) {
			best[o.total.found] = o
		}
	}
	var counts []int
	for k := range best {
		counts = append(counts, k)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	var front []outcome
	for _, k := range counts {
		o := best[k]
		if len(front) > 0 && far(front[len(front)-1]) <= far(o) {
			continue // dominated: more found with no more far alerts
		}
		front = append(front, o)
	}
	slices.Reverse(front)
	return front
}

// either is detectors side by side: every alert of any of them, except
// one within suppress builds after an alert kept (approximately a gate
// with several paths that share one alert per change; each path keeps its
// own reference).
func either(lists ...[]int) []int {
	var all []int
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	var out []int
	for _, x := range all {
		if len(out) == 0 || x > out[len(out)-1]+suppress {
			out = append(out, x)
		}
	}
	return out
}

// combo is detectors side by side: indices into the candidates, and how
// they did together.
type combo struct {
	idx []int
	o   outcome
}

// better orders outcomes by confirmed changes found, then fewer far
// alerts.
func better(a, b outcome) bool {
	return a.total.found > b.total.found || a.total.found == b.total.found && a.total.far < b.total.far
}

// sideBySide finds the best two and three detectors side by side (either)
// within the targets' bounds, drawn from the statistics' fronts: every
// pair, then every third detector added to the 20 best pairs. Each is
// described by name; "" when none keeps the bounds.
func sideBySide(all []*series, stats []statistic, fronts [][]outcome) (pair, triple combo, names func(combo) string) {
	type cand struct {
		o      outcome
		alerts [][]int
	}
	var cands []cand
	for i, front := range fronts {
		for _, o := range front {
			c := cand{o: o}
			for _, s := range all {
				c.alerts = append(c.alerts, onlineAlerts(s.Values, stats[i], o.c, memo{}))
			}
			cands = append(cands, c)
		}
	}
	score := func(idx ...int) outcome {
		o := outcome{}
		for k, s := range all {
			lists := make([][]int, len(idx))
			for j, i := range idx {
				lists[j] = cands[i].alerts[k]
			}
			o.total.add(scoreSeries(s.Labels, s.Values, either(lists...), len(s.Values)-1))
		}
		return o
	}
	var pairs []combo
	for i := range cands {
		for j := i + 1; j < len(cands); j++ {
			if o := score(i, j); o.meets() {
				pairs = append(pairs, combo{[]int{i, j}, o})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b combo) int {
		switch {
		case better(a.o, b.o):
			return -1
		case better(b.o, a.o):
			return 1
		}
		return 0
	})
	if len(pairs) > 0 {
		pair = pairs[0]
	}
	for _, p := range pairs[:min(20, len(pairs))] {
		for k := range cands {
			if slices.Contains(p.idx, k) {
				continue
			}
			if o := score(p.idx[0], p.idx[1], k); o.meets() && (triple.idx == nil || better(o, triple.o)) {
				triple = combo{[]int{p.idx[0], p.idx[1], k}, o}
			}
		}
	}
	names = func(c combo) string {
		var parts []string
		for _, i := range c.idx {
			parts = append(parts, fmt.Sprintf("%s (%s)", cands[i].o.stat, configText(cands[i].o.c)))
		}
		return strings.Join(parts, " or ")
	}
	return pair, triple, names
}

// farAlerts prints the far alerts of the detector o of st: where, the
// step there (step), and the relative step of the median of the 10 builds
// from the alert's build against the 15 before its fore group (whether the
// level held).
func farAlerts(w io.Writer, all []*series, st statistic, o outcome) {
	fmt.Fprintf(w, "%s, %s: far alerts (recall %d, far/1k %.1f)\n", st.name, configText(o.c), o.total.found, o.far1k())
	for _, s := range all {
		for _, a := range onlineAlerts(s.Values, st, o.c, memo{}) {
			if slices.ContainsFunc(s.Labels, func(l label) bool { return within(a, l.Index) }) {
				continue
			}
			held := heldStep(s.Values, a-o.c.minFore+1)
			fmt.Fprintf(w, "  %-48.48s build %3d  step %+6.1f%%  10 builds after %+6.1f%%  labels %s\n", s.Name(), a, 100*step(s.Values, a), held, labelText(s.Labels))
		}
	}
}

// oracleFound counts the confirmed labels whose step (step: the median of
// the 5 builds from a split against the 15 before it, the largest within
// the margin) is at least minStep percent: what a detector alerting once
// at each of them, and nowhere else, would find.
func oracleFound(all []*series, minStep float64) (found, confirmed int) {
	for _, s := range all {
		for _, l := range s.Labels {
			if !l.Confirmed() {
				continue
			}
			confirmed++
			if 100*math.Abs(step(s.Values, l.Index)) >= minStep {
				found++
			}
		}
	}
	return found, confirmed
}

// spreadBefore is the mode-aware scale (analyze.ModeAwareSpread) of the up
// to stepBefore builds before build i, in percent of their median.
func spreadBefore(values []float64, i int) float64 {
	back := values[max(0, i-stepBefore):i]
	if len(back) == 0 {
		return 0
	}
	med, _, _, scale := analyze.ModeAwareSpread(back)
	if med == 0 {
		return 0
	}
	return 100 * scale / math.Abs(med)
}

func configText(c detectorConfig) string {
	fore := fmt.Sprint(c.minFore)
	if c.maxFore > c.minFore {
		fore = fmt.Sprintf("%d-%d", c.minFore, c.maxFore)
	}
	return fmt.Sprintf("fore %s, back >= %d, effect >= %g%%, >= %.3g", fore, c.minBack, c.minEffect, c.threshold)
}

// frontier prints the frontier of every statistic on one file's series,
// the oracle, and the confirmed changes no configuration within the
// targets finds.
func frontier(w io.Writer, file string, all []*series, curve bool) {
	_, confirmed := oracleFound(all, 0)
	fmt.Fprintf(w, "%s: frontier of online detectors (alert within %d builds; after an alert %d builds quiet and the reference restarts)\n", file, margin, suppress)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "statistic\tbest recall at far <= %g/1k, per change <= %g\tfar/1k\tper change\tconfiguration\tthe same, far alerts after which a step >= %g%% held not counted\tother far/1k\tconfiguration\tleave one series out: recall\tfar/1k\t\n",
		frontierMaxFar, frontierMaxPer, float64(analyze.DefaultMinEffect))
	seen := map[string]bool{}
	var fronts [][]outcome
	cell := func(front []outcome, far func(outcome) int) string {
		for i := len(front) - 1; i >= 0; i-- {
			if o := front[i]; o.per1k(far(o)) <= frontierMaxFar {
				return fmt.Sprintf("%s\t%.1f\t%s", ratio(o.total.found, confirmed), o.per1k(far(o)), configText(o.c))
			}
		}
		return "-\t\t"
	}
	for _, st := range statistics() {
		outs := sweep(all, st)
		front := paretoFront(outs, allFar)
		fronts = append(fronts, front)
		for _, o := range outs {
			if o.meets() {
				for k := range o.found {
					seen[k] = true
				}
			}
		}
		perChange := "-"
		for i := len(front) - 1; i >= 0; i-- {
			if front[i].meets() {
				perChange = fmt.Sprintf("%.2f", front[i].perChange())
				break
			}
		}
		// Columns: recall, far/1k, per change, configuration; then the
		// unexplained front's recall, far/1k, configuration.
		first := strings.SplitN(cell(front, allFar), "\t", 3)
		cv := crossValidated(outs, len(all))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", st.name, first[0], first[1], perChange, first[2], cell(paretoFront(outs, unexplained), unexplained),
			ratio(cv.found, confirmed), 1000*float64(cv.far)/float64(max(cv.judged, 1)))
	}
	tw.Flush()
	if *verbose {
		for i, st := range statistics() {
			for _, o := range fronts[i] {
				if 5*o.total.found >= 3*confirmed {
					farAlerts(os.Stderr, all, st, o)
					break
				}
			}
		}
	}
	pair, triple, names := sideBySide(all, statistics(), fronts)
	for _, c := range []combo{pair, triple} {
		if c.idx != nil {
			fmt.Fprintf(w, "best %d side by side: %s, far/1k %.1f, per change %.2f: %s\n", len(c.idx), ratio(c.o.total.found, confirmed), c.o.far1k(), c.o.perChange(), names(c))
		}
	}
	if curve {
		for i, st := range statistics() {
			fmt.Fprintf(w, "\n%s: fewest far alerts for each recall (per change <= %g)\n", st.name, frontierMaxPer)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "recall\tfar/1k\tfar alerts\tthat held a step >= %g%%\tper change\tconfiguration\t\n", float64(analyze.DefaultMinEffect))
			for _, o := range fronts[i] {
				fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%.2f\t%s\t\n", ratio(o.total.found, confirmed), o.far1k(), o.total.far, o.farStep, o.perChange(), configText(o.c))
			}
			tw.Flush()
		}
	}
	fmt.Fprintf(w, "\noracle: one alert at each confirmed change whose step (median of %d builds after a split against the %d before, the largest within %d builds) is at least X, none elsewhere\n", stepAfter, stepBefore, margin)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "X\trecall\t\n")
	for _, x := range []float64{0.5, 1, 2, 3, 5, 10} {
		n, _ := oracleFound(all, x)
		fmt.Fprintf(tw, "%g%%\t%s\t\n", x, ratio(n, confirmed))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nconfirmed changes that no configuration of any statistic within far <= %g/1k and per change <= %g finds (step %%, spread of the %d builds before in %% of their median)\n", frontierMaxFar, frontierMaxPer, stepBefore)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "series\tlabel\tstep\tspread\tstep/spread\t\n")
	missed := 0
	for _, s := range all {
		for _, l := range s.Labels {
			if !l.Confirmed() || seen[labelKey(s, l)] {
				continue
			}
			missed++
			st, sp := 100*step(s.Values, l.Index), spreadBefore(s.Values, l.Index)
			ratio := "-"
			if sp > 0 {
				ratio = fmt.Sprintf("%.1f", math.Abs(st)/sp)
			}
			fmt.Fprintf(tw, "%s\t%s@%d\t%+.1f%%\t%.1f%%\t%s\t\n", truncate(s.Name(), 48), l.Status, l.Index, st, sp, ratio)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d confirmed changes are found by some configuration within the bounds (not one detector: the union)\n\n", confirmed-missed, confirmed)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n])
}
