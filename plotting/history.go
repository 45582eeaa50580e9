package plotting

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// KPIPoint is one stored KPI value of one run.
type KPIPoint struct {
	KPI         string
	Time        time.Time
	Value       float64
	Unit        string
	LowerBetter bool
	TestUUID    string
	Labels      map[string]string
}

// HistoryQuery selects stored KPI values: those of a workload whose labels
// take one of the listed values for every listed label.
type HistoryQuery struct {
	Workload string
	Labels   map[string][]string
}

func (q HistoryQuery) match(workload string, labels map[string]string) bool {
	if q.Workload != "" && workload != q.Workload {
		return false
	}
	for k, allowed := range q.Labels {
		if !slices.Contains(allowed, labels[k]) {
			return false
		}
	}
	return true
}

// History is where the KPI history report reads stored KPI values: an LTS
// store, or payloads already read. Points are ordered by time, then by test
// UUID, never by name.
type History interface {
	// Source names the history for the page (a store URL, a file).
	Source() string
	Points(ctx context.Context, q HistoryQuery) ([]KPIPoint, error)
}

// PayloadHistory is a History over LTS payloads in memory, such as the
// array `seshat parse --output-lts` writes.
func PayloadHistory(source string, payloads []*models.Payload) History {
	return payloadHistory{source: source, payloads: payloads}
}

type payloadHistory struct {
	source   string
	payloads []*models.Payload
}

func (h payloadHistory) Source() string { return h.source }

func (h payloadHistory) Points(ctx context.Context, q HistoryQuery) ([]KPIPoint, error) {
	var out []KPIPoint
	for _, p := range h.payloads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p == nil || !q.match(p.Metadata.Workload, p.Metadata.Labels) {
			continue
		}
		for name, v := range p.KPIs {
			t := v.Timestamp
			if t.IsZero() {
				t = p.Metadata.Start
			}
			uuid := v.TestUUID
			if uuid == "" {
				uuid = p.Metadata.TestUUID
			}
			out = append(out, KPIPoint{KPI: name, Time: t.UTC(), Value: v.Value, Unit: v.Unit,
				LowerBetter: v.LowerBetter, TestUUID: uuid, Labels: p.Metadata.Labels})
		}
	}
	SortPoints(out)
	return out, nil
}

// SortPoints orders points by time, then test UUID, then KPI name.
func SortPoints(ps []KPIPoint) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.TestUUID != b.TestUUID {
			return a.TestUUID < b.TestUUID
		}
		return a.KPI < b.KPI
	})
}

// KPISeries is the history of one KPI for one set of labels, oldest first.
type KPISeries struct {
	KPI         string
	Unit        string
	LowerBetter bool
	// Labels identify the series (the ignored labels removed); Key is their
	// canonical text.
	Labels map[string]string
	Key    string
	Points []KPIPoint
}

// LabelKey is the canonical text of labels: sorted name=value pairs.
func LabelKey(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Quote(labels[k])
	}
	return strings.Join(parts, ",")
}

// GroupSeries groups time-ordered points into series by KPI and labels,
// leaving the ignored labels out of the identity (the versions that change
// over time, which is what a history shows). Series are sorted by KPI, then
// key; points keep their order.
func GroupSeries(points []KPIPoint, ignored []string) []KPISeries {
	index := map[string]int{}
	var out []KPISeries
	for _, p := range points {
		labels := make(map[string]string, len(p.Labels))
		for k, v := range p.Labels {
			if !slices.Contains(ignored, k) {
				labels[k] = v
			}
		}
		key := LabelKey(labels)
		id := p.KPI + "\x00" + key
		i, ok := index[id]
		if !ok {
			i = len(out)
			index[id] = i
			out = append(out, KPISeries{KPI: p.KPI, Unit: p.Unit, LowerBetter: p.LowerBetter, Labels: labels, Key: key})
		}
		out[i].Points = append(out[i].Points, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].KPI != out[j].KPI {
			return out[i].KPI < out[j].KPI
		}
		return out[i].Key < out[j].Key
	})
	return out
}
