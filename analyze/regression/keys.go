package regression

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/models"
)

// MetaKeys are labels that identify a run rather than the work: never part
// of a series key, whatever the keys say.
var MetaKeys = []string{"ci_engine", "end", "run_id", "start", "test_path", "test_uuid", "timestamp", "url", "urls"}

// Keys say how a workload's runs are cut into histories.
type Keys struct {
	// ComparisonKeys tell the points of a history apart (a framework
	// version): runs sharing their values are one point.
	ComparisonKeys []string
	// IgnoredKeys neither split histories nor tell points apart.
	IgnoredKeys []string
	// SortingKeys order the entries of the report; never the history.
	SortingKeys []string
	// IgnoredEntries skip the runs, current or stored, matching any.
	IgnoredEntries []Filter
}

// excluded tells whether a label is left out of the series key.
func (k Keys) excluded(name string) bool {
	return slices.Contains(k.ComparisonKeys, name) || slices.Contains(k.IgnoredKeys, name) || slices.Contains(MetaKeys, name)
}

// seriesKey returns the labels of the series key and their canonical text.
func (k Keys) seriesKey(labels map[string]string) (map[string]string, string) {
	key := make(map[string]string, len(labels))
	for name, v := range labels {
		if !k.excluded(name) {
			key[name] = v
		}
	}
	return key, canonical(key)
}

// comparison returns the comparison labels of a run (absent ones are
// empty) and the value a person reads: the value alone for one key, else
// key=value pairs in key order.
func (k Keys) comparison(labels map[string]string) (map[string]string, string) {
	cmp := make(map[string]string, len(k.ComparisonKeys))
	parts := make([]string, 0, len(k.ComparisonKeys))
	for _, name := range k.ComparisonKeys {
		v := labels[name]
		cmp[name] = v
		if len(k.ComparisonKeys) == 1 {
			parts = append(parts, v)
		} else if v != "" {
			parts = append(parts, name+"="+v)
		}
	}
	return cmp, strings.Join(parts, ", ")
}

// ignored tells whether a run matches one of the ignored entries.
func (k Keys) ignored(testUUID string, labels map[string]string) bool {
	return slices.ContainsFunc(k.IgnoredEntries, func(f Filter) bool { return f.Match(testUUID, labels) })
}

// canonical is an unambiguous text of a label set: sorted, NUL-separated.
func canonical(labels map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		b.WriteString(name)
		b.WriteByte(0)
		b.WriteString(labels[name])
		b.WriteByte(0)
	}
	return b.String()
}

// Filter selects runs by label: every label named must have one of its
// values. The name test_uuid matches the run's test_uuid, so that one known
// bad stored run can be skipped.
type Filter map[string][]string

// ParseFilter reads the --filters syntax: "label=v1:v2,label2=v".
func ParseFilter(s string) (Filter, error) {
	f := Filter{}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty filter")
	}
	for _, part := range strings.Split(s, ",") {
		name, values, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("filter %q: want label=value[:value...]", s)
		}
		if !models.IsSnakeCase(name) {
			return nil, fmt.Errorf("filter %q: %q is not a label name (snake_case)", s, name)
		}
		f[name] = append(f[name], strings.Split(values, ":")...)
	}
	return f, nil
}

// ParseFilters reads one filter per item.
func ParseFilters(items []string) ([]Filter, error) {
	var out []Filter
	for _, s := range items {
		f, err := ParseFilter(s)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Match tells whether a run matches the filter.
func (f Filter) Match(testUUID string, labels map[string]string) bool {
	for name, values := range f {
		v, ok := labels[name]
		if name == "test_uuid" {
			v, ok = testUUID, testUUID != ""
		}
		if !ok || !slices.Contains(values, v) {
			return false
		}
	}
	return len(f) > 0
}

func (f Filter) String() string {
	parts := make([]string, 0, len(f))
	for _, name := range slices.Sorted(maps.Keys(f)) {
		parts = append(parts, name+"="+strings.Join(f[name], ":"))
	}
	return strings.Join(parts, ",")
}
