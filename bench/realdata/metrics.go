package main

import "slices"

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
	near      int // alerts within the margin of a found confirmed label, summed per label
	far       int // alerts farther than the margin from every label
	dismissed int // FP labels
	repeated  int // FP labels with an alert within the margin
	suspects  int
	f1        float64
}

func (s *score) add(o score) {
	s.judged += o.judged
	s.alerts += o.alerts
	s.confirmed += o.confirmed
	s.found += o.found
	s.near += o.near
	s.far += o.far
	s.dismissed += o.dismissed
	s.repeated += o.repeated
	s.suspects += o.suspects
	s.f1 += o.f1
}

func within(a, b int) bool { return a-b <= margin && b-a <= margin }

// scoreSeries scores alerts (indices, any order) against a series' labels.
func scoreSeries(labels []label, alerts []int, judged int) score {
	s := score{judged: judged, alerts: len(alerts)}
	for _, l := range labels {
		n := 0
		for _, a := range alerts {
			if within(a, l.Index) {
				n++
			}
		}
		switch {
		case l.confirmed():
			s.confirmed++
			if n > 0 {
				s.found++
				s.near += n
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
		if l.confirmed() {
			truth = append(truth, l.Index)
		}
	}
	s.f1 = f1Margin(truth, alerts, margin)
	return s
}

// f1Margin is TCPDBench's F1 score (van den Burg and Williams, "An
// evaluation of change point detection algorithms", 2020, cpdbench_metrics
// f_measure) for one annotator: both sets get the series' start (index 0)
// as a change point, a prediction is a true positive when it lies within
// margin of an annotated point not yet matched (each annotation counts
// once, the closest prediction first), precision is true positives over predictions and recall true
// positives over annotations.
func f1Margin(truth, pred []int, margin int) float64 {
	t := uniq(append([]int{0}, truth...))
	p := uniq(append([]int{0}, pred...))
	tp := 0
	used := make([]bool, len(p))
	for _, x := range t {
		best := -1
		for j, y := range p {
			if !used[j] && abs(x-y) <= margin && (best < 0 || abs(x-y) < abs(x-p[best])) {
				best = j
			}
		}
		if best >= 0 {
			used[best] = true
			tp++
		}
	}
	precision := float64(tp) / float64(len(p))
	recall := float64(tp) / float64(len(t))
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

func uniq(xs []int) []int {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return slices.Compact(xs)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
