package pipeline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
)

// parseBaseline reads --baseline KEY=VALUE; nil when unset.
func parseBaseline(s string) (*regression.Baseline, error) {
	if s == "" {
		return nil, nil
	}
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--baseline %q: want KEY=VALUE, the label and the value of the baseline side (e.g. side=base)", s)
	}
	return &regression.Baseline{Key: k, Value: v}, nil
}

// sideOf is the value of the baseline key of a current run: its label, or
// for a run without payload (incomplete), its setting.
func sideOf(r regression.Run, key string) (string, bool) {
	if r.Labels != nil {
		v, ok := r.Labels[key]
		return v, ok
	}
	v, ok := r.Settings[key]
	return v, ok
}

// withSideLabel makes the baseline's key a label of the runs whose
// workload does not label them with it (a setting such as side, read only
// by the command it substitutes): from their settings in the results
// directory.
func withSideLabel(b *regression.Baseline, runs []regression.Run) {
	for i := range runs {
		r := &runs[i]
		if r.Labels == nil {
			continue
		}
		if _, ok := r.Labels[b.Key]; ok {
			continue
		}
		if v, ok := r.Settings[b.Key]; ok {
			r.Labels = maps.Clone(r.Labels)
			r.Labels[b.Key] = v
		}
	}
}

// checkBaseline tells whether the current runs hold the baseline: its key
// with another value beside (else exit 4, listing the values there are),
// and a complete run of it (else exit 3).
func checkBaseline(b *regression.Baseline, runs []regression.Run) error {
	values := map[string]bool{}
	complete := map[string]bool{}
	several := map[string]map[string]bool{}
	for _, r := range runs {
		for _, labels := range []map[string]string{r.Labels, r.Settings} {
			for k, v := range labels {
				if several[k] == nil {
					several[k] = map[string]bool{}
				}
				several[k][v] = true
			}
		}
		v, ok := sideOf(r, b.Key)
		if !ok {
			continue
		}
		values[v] = true
		if r.Labels != nil {
			complete[v] = true
		}
	}
	if len(values) == 0 {
		var keys []string
		for _, k := range slices.Sorted(maps.Keys(several)) {
			if len(several[k]) > 1 {
				keys = append(keys, k+" ("+strings.Join(slices.Sorted(maps.Keys(several[k])), ", ")+")")
			}
		}
		there := "none"
		if len(keys) > 0 {
			there = strings.Join(keys, "; ")
		}
		return exitcode.Errorf(exitcode.InvalidInput, "--baseline %s: no current run has the label %s; labels and settings with several values: %s", b, b.Key, there)
	}
	list := strings.Join(slices.Sorted(maps.Keys(values)), ", ")
	switch {
	case !values[b.Value]:
		return exitcode.Errorf(exitcode.InvalidInput, "--baseline %s: no current run has %s; the values of %s are: %s", b, b, b.Key, list)
	case len(values) == 1:
		return exitcode.Errorf(exitcode.InvalidInput, "--baseline %s: %s has no other value to judge against it (values: %s)", b, b.Key, list)
	case !complete[b.Value]:
		return exitcode.Errorf(exitcode.NoData, "--baseline %s: the baseline has no complete run (only incomplete ones)", b)
	}
	return nil
}

// baselineSidesMissing names the sides of the A/B that have no run with a
// KPI value (every run failed or is incomplete) at a matrix point where
// they ran, as the report's Incomplete reason (exit 3); "" when every side
// has one wherever it ran. A point is a run's settings but the key and the
// meta settings (@repeat): a side that has values at one experiment's
// points and none at another's is missing there, and said to be.
func baselineSidesMissing(b *regression.Baseline, runs []regression.Run) string {
	type point struct{ ran, valued map[string]bool }
	points := map[string]*point{}
	for _, r := range runs {
		side, ok := sideOf(r, b.Key)
		if !ok {
			continue
		}
		at := models.Settings{}
		for k, v := range r.Settings {
			if k != b.Key && !models.IsMeta(k) {
				at[k] = v
			}
		}
		id := at.Identity()
		pt := points[id]
		if pt == nil {
			pt = &point{ran: map[string]bool{}, valued: map[string]bool{}}
			points[id] = pt
		}
		pt.ran[side] = true
		for _, v := range r.Values {
			if !math.IsNaN(v) {
				pt.valued[side] = true
			}
		}
	}
	ran, lacking := map[string]int{}, map[string]int{}
	for _, pt := range points {
		for side := range pt.ran {
			ran[side]++
			if !pt.valued[side] {
				lacking[side]++
			}
		}
	}
	var missing []string
	for _, side := range slices.Sorted(maps.Keys(lacking)) {
		m := b.Key + "=" + side
		if lacking[side] < ran[side] {
			m += fmt.Sprintf(" (at %d of the %d points it ran)", lacking[side], ran[side])
		}
		missing = append(missing, m)
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("--baseline %s: no complete run with a KPI value for %s", b, strings.Join(missing, ", "))
}

// settingsText is the settings of a run as label text.
func settingsText(s map[string]any) map[string]string {
	out := make(map[string]string, len(s))
	for k, v := range s {
		if !models.IsMeta(k) {
			out[k] = models.FormatValue(v)
		}
	}
	return out
}
