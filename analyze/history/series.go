package history

import (
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/lts"
)

// Series is the runs of one series: a workload and the labels the rule
// keeps.
type Series struct {
	Workload string
	Labels   map[string]string
	// Key is the workload and the canonical text of Labels.
	Key  string
	Runs []Run
}

// SeriesKey is the key of the series of a run of workload with labels.
func SeriesKey(workload string, rule Rule, labels map[string]string) (map[string]string, string) {
	l := rule.Series(labels)
	return l, workload + "\x02" + Canonical(l)
}

// Group cuts records into series by the rule of each workload, the runs
// of each in the order given. Series are sorted by key.
func Group(records []lts.Record, rule func(workload string) Rule) []*Series {
	byKey := map[string]*Series{}
	var out []*Series
	for _, r := range records {
		ru := rule(r.Workload)
		labels, key := SeriesKey(r.Workload, ru, r.Labels)
		s := byKey[key]
		if s == nil {
			s = &Series{Workload: r.Workload, Labels: labels, Key: key}
			byKey[key] = s
			out = append(out, s)
		}
		s.Runs = append(s.Runs, RunOf(r, ru))
	}
	slices.SortFunc(out, func(a, b *Series) int { return strings.Compare(a.Key, b.Key) })
	return out
}
