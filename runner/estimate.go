package runner

import (
	"math"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// estimator predicts the time the rest of a plan takes from the time its
// finished runs took, point by point: a 1024 matmul takes far longer than a
// 128 one, so an average over runs, what a count-based progress bar uses,
// is wrong whenever the sizes left differ from the sizes done. A point is
// expected to take:
//
//  1. the mean time of its earlier runs (the same settings but @repeat):
//     exact from the second repeat on, since repeats are the outer loop;
//  2. else the mean time of its nearest finished neighbours in the same
//     experiment: those sharing the most settings with it, and among them
//     those whose differing numbers are closest on a log scale (an unseen
//     matrix_size 2048 is timed like 1024 rather than like 64);
//  3. else the mean of every finished run.
//
// Before the first run finishes nothing is known.
type estimator struct {
	plan []Planned
	// runs are the finished runs, in order, with their durations.
	runs []observed
	// byPoint sums the durations of the runs of each point.
	byPoint map[string]*meanDuration
}

type observed struct {
	p Planned
	d time.Duration
}

type meanDuration struct {
	sum time.Duration
	n   int
}

func (m *meanDuration) mean() time.Duration { return m.sum / time.Duration(m.n) }

func newEstimator(plan []Planned) *estimator {
	return &estimator{plan: plan, byPoint: map[string]*meanDuration{}}
}

// pointKey identifies a point across its repeats.
func pointKey(p Planned) string {
	s := models.Settings{}
	for k, v := range p.Settings {
		if !models.IsMeta(k) {
			s[k] = v
		}
	}
	return p.Experiment + "\x00" + s.Identity()
}

// observe records that a run of p took d.
func (e *estimator) observe(p Planned, d time.Duration) {
	e.runs = append(e.runs, observed{p, d})
	k := pointKey(p)
	m := e.byPoint[k]
	if m == nil {
		m = &meanDuration{}
		e.byPoint[k] = m
	}
	m.sum += d
	m.n++
}

// remaining is the time left: the rest of point i, which has been running
// for runningFor (0 when it has not started), then every point after it
// that is not skipped. ok is false while nothing is known.
func (e *estimator) remaining(i int, runningFor time.Duration) (left time.Duration, ok bool) {
	if len(e.runs) == 0 {
		return 0, false
	}
	for j := i; j < len(e.plan); j++ {
		if e.plan[j].Skip {
			continue
		}
		d := e.expected(e.plan[j])
		if j == i {
			d = max(d-runningFor, 0)
		}
		left += d
	}
	return left, true
}

// expected is how long a run of p should take (len(e.runs) > 0).
func (e *estimator) expected(p Planned) time.Duration {
	if m := e.byPoint[pointKey(p)]; m != nil {
		return m.mean()
	}
	var near meanDuration
	bestShared, bestDist := -1, math.Inf(1)
	for _, r := range e.runs {
		if r.p.Experiment != p.Experiment {
			continue
		}
		shared, dist := likeness(p.Settings, r.p.Settings)
		switch {
		case shared > bestShared || shared == bestShared && dist < bestDist:
			bestShared, bestDist = shared, dist
			near = meanDuration{r.d, 1}
		case shared == bestShared && dist == bestDist:
			near.sum += r.d
			near.n++
		}
	}
	if near.n > 0 {
		return near.mean()
	}
	var all meanDuration
	for _, r := range e.runs {
		all.sum += r.d
		all.n++
	}
	return all.mean()
}

// likeness counts the settings (but @ ones) two points share, and sums
// |log(a/b)| over those that differ and are both positive numbers (1 for
// any other difference).
func likeness(a, b map[string]any) (shared int, dist float64) {
	for k, va := range a {
		if models.IsMeta(k) {
			continue
		}
		vb, ok := b[k]
		switch {
		case ok && models.EqualValues(va, vb):
			shared++
		case ok:
			x, okx := positive(va)
			y, oky := positive(vb)
			if okx && oky {
				dist += math.Abs(math.Log(x / y))
			} else {
				dist++
			}
		default:
			dist++
		}
	}
	return shared, dist
}

func positive(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	return f, f > 0
}
