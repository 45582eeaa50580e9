package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/models"
)

// labelMergedSettings makes every setting that varies across the matrix
// but that no label tells apart a label of the runs: a setting whose runs
// share one workload and one label set yet differ in it (an exec PI's
// `slow: [0, 0.1]`, a `side` only its command reads). Without it, those
// runs would be one entry and one series, both values mixed. Settings that
// the labels already tell apart (matrix_size, backend...) are left as they
// are, so that the entries' labels stay those of the stored payloads. It
// returns one note per setting made a label: stored payloads do not carry
// it, so the history of these entries is the builds that do. The A/B key
// (--baseline KEY=VALUE) gets none: telling its sides apart is the point.
func labelMergedSettings(runs []regression.Run, abKey string) []string {
	type group struct{ values map[string]map[string]bool }
	groups := map[string]*group{}
	for _, r := range runs {
		if r.Labels == nil {
			continue
		}
		key := r.Workload + "\x00" + models.Settings(anyMap(r.Labels)).Identity()
		g := groups[key]
		if g == nil {
			g = &group{values: map[string]map[string]bool{}}
			groups[key] = g
		}
		for k, v := range r.Settings {
			if g.values[k] == nil {
				g.values[k] = map[string]bool{}
			}
			g.values[k][v] = true
		}
	}
	// merged[workload] = the settings of several values under one label set.
	merged := map[string]map[string]bool{}
	for key, g := range groups {
		workload, _, _ := strings.Cut(key, "\x00")
		for k, vs := range g.values {
			if len(vs) > 1 {
				if merged[workload] == nil {
					merged[workload] = map[string]bool{}
				}
				merged[workload][k] = true
			}
		}
	}
	if len(merged) == 0 {
		return nil
	}
	values := map[string]map[string]bool{}
	for i := range runs {
		r := &runs[i]
		keys := merged[r.Workload]
		if r.Labels == nil || len(keys) == 0 {
			continue
		}
		r.Labels = maps.Clone(r.Labels)
		for k := range keys {
			if v, ok := r.Settings[k]; ok {
				r.Labels[k] = v
				id := r.Workload + "\x00" + k
				if values[id] == nil {
					values[id] = map[string]bool{}
				}
				values[id][v] = true
			}
		}
	}
	var notes []string
	for _, id := range slices.Sorted(maps.Keys(values)) {
		workload, k, _ := strings.Cut(id, "\x00")
		if k == abKey {
			continue
		}
		notes = append(notes, fmt.Sprintf("setting %s (%s) varies across the matrix of workload %s but no label of its runs tells its values apart: "+
			"it is a label of this analysis, one series per value (stored builds without it are not their history)",
			k, strings.Join(slices.Sorted(maps.Keys(values[id])), ", "), workload))
	}
	return notes
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
