package history

import (
	"maps"
	"slices"
	"strings"
)

// MetaKeys are labels that identify a run rather than the work: never part
// of a series, whatever a Rule says.
var MetaKeys = []string{"ci_engine", "end", "run_id", "start", "test_path", "test_uuid", "timestamp", "url", "urls"}

// Rule says which labels of a run make its series and which tell the
// points of a series apart. A workload's regression keys give it
// (regression.Keys.Rule).
type Rule struct {
	// Comparison labels tell the points of a series apart besides the
	// build (a framework version): they change along a series.
	Comparison []string
	// Ignored labels neither make a series nor tell points apart.
	Ignored []string
}

// excluded tells whether a label is left out of the series.
func (r Rule) excluded(name string) bool {
	return slices.Contains(r.Comparison, name) || slices.Contains(r.Ignored, name) || slices.Contains(MetaKeys, name)
}

// Series returns the labels of a run that identify its series: all but the
// comparison, ignored and meta labels.
func (r Rule) Series(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for name, v := range labels {
		if !r.excluded(name) {
			out[name] = v
		}
	}
	return out
}

// ComparisonOf returns the comparison labels of a run (absent ones are
// empty) and the value a person reads: the value alone for one label, else
// label=value pairs in the rule's order.
func (r Rule) ComparisonOf(labels map[string]string) (map[string]string, string) {
	cmp := make(map[string]string, len(r.Comparison))
	parts := make([]string, 0, len(r.Comparison))
	for _, name := range r.Comparison {
		v := labels[name]
		cmp[name] = v
		if len(r.Comparison) == 1 {
			parts = append(parts, v)
		} else if v != "" {
			parts = append(parts, name+"="+v)
		}
	}
	return cmp, strings.Join(parts, ", ")
}

// Canonical is an unambiguous text of a label set: sorted, NUL-separated.
func Canonical(labels map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		b.WriteString(name)
		b.WriteByte(0)
		b.WriteString(labels[name])
		b.WriteByte(0)
	}
	return b.String()
}
