package plotting

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/lts"
)

// KPISeries is the history of one KPI for one set of labels: the records
// holding it, oldest first.
type KPISeries struct {
	KPI         string
	Unit        string
	LowerBetter bool
	// Labels identify the series (the ignored labels removed); Key is their
	// canonical text.
	Labels  map[string]string
	Key     string
	Records []lts.Record
}

// Value is the series' KPI value in record i.
func (s KPISeries) Value(i int) float64 { return s.Records[i].Values[s.KPI] }

// LabelKey is the canonical text of labels: sorted name=value pairs.
func LabelKey(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Quote(labels[k])
	}
	return strings.Join(parts, ",")
}

// GroupSeries groups records, in the time order a store yields them, into
// series by KPI and labels, leaving the ignored labels out of the identity
// (the versions that change over time, which is what a history shows).
// Series are sorted by KPI, then key; records keep their order.
func GroupSeries(records []lts.Record, ignored []string) []KPISeries {
	index := map[string]int{}
	var out []KPISeries
	for _, r := range records {
		labels := make(map[string]string, len(r.Labels))
		for k, v := range r.Labels {
			if !slices.Contains(ignored, k) {
				labels[k] = v
			}
		}
		key := LabelKey(labels)
		for _, name := range slices.Sorted(maps.Keys(r.Values)) {
			id := name + "\x00" + key
			i, ok := index[id]
			if !ok {
				i = len(out)
				index[id] = i
				def := r.Defs[name]
				out = append(out, KPISeries{KPI: name, Unit: def.Unit, LowerBetter: def.LowerBetter, Labels: labels, Key: key})
			}
			out[i].Records = append(out[i].Records, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].KPI != out[j].KPI {
			return out[i].KPI < out[j].KPI
		}
		return out[i].Key < out[j].Key
	})
	return out
}
