package regression

import (
	"fmt"
	"slices"

	"github.com/seshat-bench/seshat/analyze/history"

	"github.com/seshat-bench/seshat/models"
)

// MetaKeys are labels that identify a run rather than the work: never part
// of a series key, whatever the keys say (history.MetaKeys).
var MetaKeys = history.MetaKeys

// Keys say how a workload's runs are cut into histories. They are declared
// once, here: a workload's defaults (workloads.RegressionDefaults), the
// regression_analyses section of seshat.yaml (which inlines them), the flags
// of `seshat regression` and the analysis all use this type. A nil list is
// unset (Or takes the default); an empty one sets no keys.
type Keys struct {
	// ComparisonKeys tell the points of a history apart (a framework
	// version): runs sharing their values are one point.
	ComparisonKeys []string `yaml:"comparison_keys"`
	// IgnoredKeys neither split histories nor tell points apart.
	IgnoredKeys []string `yaml:"ignored_keys"`
	// SortingKeys order the entries of the report; never the history.
	SortingKeys []string `yaml:"sorting_keys"`
	// IgnoredEntries are filters in the --filters syntax on labels
	// ("label=v1:v2,label2=v"; the name test_uuid matches the run's
	// test_uuid): the runs, current or stored, matching any are skipped.
	IgnoredEntries []string `yaml:"ignored_entries"`
}

// Or returns k with the keys it leaves unset (nil) taken from defaults:
// what seshat.yaml, the environment and the flags set (config.Apply ranks
// those) over a workload's defaults, key by key.
func (k Keys) Or(defaults Keys) Keys {
	or := func(set, def []string) []string {
		if set != nil {
			return set
		}
		return def
	}
	return Keys{
		ComparisonKeys: or(k.ComparisonKeys, defaults.ComparisonKeys),
		IgnoredKeys:    or(k.IgnoredKeys, defaults.IgnoredKeys),
		SortingKeys:    or(k.SortingKeys, defaults.SortingKeys),
		IgnoredEntries: or(k.IgnoredEntries, defaults.IgnoredEntries),
	}
}

// Filters parses the ignored entries; an error names the entry at fault.
// An empty entry, or one naming something that is not a label, is refused.
func (k Keys) Filters() ([]models.Filter, error) {
	out := make([]models.Filter, 0, len(k.IgnoredEntries))
	for _, s := range k.IgnoredEntries {
		f, err := models.ParseFilter(s)
		if err == nil && len(f) == 0 {
			err = fmt.Errorf("empty filter")
		}
		if err == nil {
			err = f.CheckLabelNames()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Rule is the rule of package history that the keys give: which labels
// make a series, which tell its points apart.
func (k Keys) Rule() history.Rule {
	return history.Rule{Comparison: k.ComparisonKeys, Ignored: k.IgnoredKeys}
}

// SeriesLabels are the labels of a run that identify its series: all but
// the comparison, ignored and meta keys.
func (k Keys) SeriesLabels(labels map[string]string) map[string]string {
	return k.Rule().Series(labels)
}

// seriesKey returns the labels of the series key and their canonical text.
func (k Keys) seriesKey(labels map[string]string) (map[string]string, string) {
	key := k.SeriesLabels(labels)
	return key, canonical(key)
}

// comparison returns the comparison labels of a run (absent ones are
// empty) and the value a person reads (history.Rule.ComparisonOf).
func (k Keys) comparison(labels map[string]string) (map[string]string, string) {
	return k.Rule().ComparisonOf(labels)
}

// ignored tells whether a run matches one of the filters.
func ignored(filters []models.Filter, testUUID string, labels map[string]string) bool {
	return slices.ContainsFunc(filters, func(f models.Filter) bool { return matchRun(f, testUUID, labels) })
}

// matchRun tells whether a run matches a filter of ignored entries: the
// name test_uuid matches the run's test_uuid, so that one known bad stored
// run can be skipped.
func matchRun(f models.Filter, testUUID string, labels map[string]string) bool {
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

// canonical is an unambiguous text of a label set (history.Canonical).
func canonical(labels map[string]string) string { return history.Canonical(labels) }
