package main

import (
	"math"
	"slices"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/bench/internal/cpdscore"
)

// margin is how many builds an alert may sit from a labelled point to be
// counted for it, as TCPDBench's default margin of 5.
const margin = 5

// score is how one method did on one series: alerts are the indices it
// flagged (a regression or improvement reported at that build, or a change
// point), judged the number of builds it could have flagged.
type score struct {
	judged    int
	alerts    int
	confirmed int // TP and FN labels
	found     int // confirmed labels with an alert within the margin
	large     int // confirmed labels that are steps of the gate's minimum effect or more (step)
	foundLg   int // large labels with an alert within the margin
	near      int // alerts within the margin of a found confirmed label, summed per label
	far       int // alerts farther than the margin from every label
	dismissed int // FP labels
	repeated  int // FP labels with an alert within the margin
	counts
	f1 float64
}

// counts are a replay's results that are not alerts: suspects, and noisy
// (undecided) results.
type counts struct{ suspects, noisy int }

func (s *score) add(o score) {
	s.judged += o.judged
	s.alerts += o.alerts
	s.confirmed += o.confirmed
	s.found += o.found
	s.large += o.large
	s.foundLg += o.foundLg
	s.near += o.near
	s.far += o.far
	s.dismissed += o.dismissed
	s.repeated += o.repeated
	s.suspects += o.suspects
	s.noisy += o.noisy
	s.f1 += o.f1
}

func within(a, b int) bool { return a-b <= margin && b-a <= margin }

// scoreSeries scores alerts (indices, any order) against a series' labels;
// values, when given, size the confirmed changes (step).
func scoreSeries(labels []label, values []float64, alerts []int, judged int) score {
	s := score{judged: judged, alerts: len(alerts)}
	for _, l := range labels {
		large := values != nil && isLarge(values, l)
		if large {
			s.large++
		}
		n := 0
		for _, a := range alerts {
			if within(a, l.Index) {
				n++
			}
		}
		switch {
		case l.Confirmed():
			s.confirmed++
			if n > 0 {
				s.found++
				s.near += n
				if large {
					s.foundLg++
				}
			}
		case l.Status == "FP":
			s.dismissed++
			if n > 0 {
				s.repeated++
			}
		}
	}
	for _, a := range alerts {
		if !slices.ContainsFunc(labels, func(l label) bool { return within(a, l.Index) }) {
			s.far++
		}
	}
	var truth []int
	for _, l := range labels {
		if l.Confirmed() {
			truth = append(truth, l.Index)
		}
	}
	s.f1 = f1Margin(truth, alerts, margin)
	return s
}

// f1Margin is TCPDBench's F1 score for one annotator (cpdscore.FMeasure,
// after van den Burg and Williams 2020): both sets get the series' start
// (index 0) as a change point, and a prediction is a true positive when it
// lies within margin of an annotated point not yet matched, the closest
// first.
func f1Margin(truth, pred []int, margin int) float64 {
	f, _, _ := cpdscore.FMeasure(map[string][]int{"labels": truth}, pred, margin)
	return f
}

// stepBefore and stepAfter are the builds on either side of a split that
// step compares: a reference as long as a CI job's before a change, and a
// few builds after it, so that one spike does not make a step.
const stepBefore, stepAfter = 15, 5

// step is the largest relative step of values near build i: the median of
// the stepAfter builds from a split against the median of the up to
// stepBefore builds before it, over every split within the margin of i; 0
// when no split has builds on both sides. It sizes a labelled change, so
// that the report can say how many confirmed changes are as large as the
// gate's minimum effect: a replay gated at that effect cannot alert on the
// others.
func step(values []float64, i int) float64 {
	best := 0.0
	for c := max(1, i-margin); c <= i+margin && c+stepAfter <= len(values); c++ {
		if r := relStep(values[max(0, c-stepBefore):c], values[c:c+stepAfter]) / 100; math.Abs(r) > math.Abs(best) {
			best = r
		}
	}
	return best
}

// isLarge tells whether l is a confirmed change whose step is at least the
// gate's minimum effect (analyze.DefaultMinEffect).
func isLarge(values []float64, l label) bool {
	return l.Confirmed() && math.Abs(step(values, l.Index)) >= float64(analyze.DefaultMinEffect)/100
}
