package cpdscore

import (
	"maps"
	"slices"
)

// Margin is TCPDBench's default margin: a prediction within 5 indices of an
// annotated change point may count for it.
const Margin = 5

// TruePositives counts the points of truth that a prediction matches,
// each prediction used at most once, as TCPDBench's true_positives
// (analysis/scripts/metrics.py): truth is walked in ascending order and each
// point takes the closest prediction still free within margin, the smaller
// index on a tie. Both arguments are sets (sorted, without duplicates).
//
// TCPDBench walks a Python set, whose order is ascending for the small
// indices of its datasets; the walk order can only matter when two truth
// points compete for one prediction.
func TruePositives(truth, pred []int, margin int) int {
	used := make([]bool, len(pred))
	tp := 0
	for _, t := range truth {
		best := -1
		for j, x := range pred {
			if used[j] || abs(t-x) > margin {
				continue
			}
			if best < 0 || abs(t-x) < abs(t-pred[best]) {
				best = j // pred is ascending: on a tie the first, the smaller index, stays
			}
		}
		if best >= 0 {
			used[best] = true
			tp++
		}
	}
	return tp
}

// FMeasure is TCPDBench's F-measure with alpha 0.5 (f_measure in
// analysis/scripts/metrics.py, van den Burg and Williams 2020, section 4):
// every annotator's set and the predictions get index 0 (the start of the
// series is always a change point);
//
//	P = |TP(union of the annotators' sets, predictions)| / |predictions|
//	R = mean over annotators k of |TP(T_k, predictions)| / |T_k|
//	F = P·R / (α·R + (1−α)·P)
//
// annotations maps an annotator id to its change points; an annotator with
// none still counts (its set is {0}). It returns F, P and R.
func FMeasure(annotations map[string][]int, predictions []int, margin int) (f, p, r float64) {
	const alpha = 0.5
	x := withZero(predictions)
	var union []int
	var recall float64
	for _, id := range slices.Sorted(maps.Keys(annotations)) {
		tk := withZero(annotations[id])
		union = append(union, tk...)
		recall += float64(TruePositives(tk, x, margin)) / float64(len(tk))
	}
	if len(annotations) == 0 {
		return 0, 0, 0
	}
	r = recall / float64(len(annotations))
	p = float64(TruePositives(set(union), x, margin)) / float64(len(x))
	// 0 is in every set, so P and R are positive.
	return p * r / (alpha*r + (1-alpha)*p), p, r
}

// clean drops what TCPDBench's summarize.py drops from a method's change
// points before scoring: duplicates, and indices outside [1, n-2] (0 and
// n-1 are endpoints several methods report by default).
func Clean(idx []int, n int) []int {
	var out []int
	for _, i := range idx {
		if i >= 1 && i < n-1 {
			out = append(out, i)
		}
	}
	return set(out)
}

func withZero(xs []int) []int { return set(append([]int{0}, xs...)) }

func set(xs []int) []int {
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
