package models

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"time"
)

// ReservedLabelNames are the fields of a KPI document. A label of the same
// name would be overwritten when labels are flattened into the document, so
// labels models may not declare them.
var ReservedLabelNames = []string{"@timestamp", "test_uuid", "kpi", "value", "unit", "lower_better"}

// KPIDocument is one KPI of one run exported on its own (the OpenSearch KPI
// index, `seshat kpis --format json`): the KPI value with its payload's
// labels flattened beside the fixed fields.
type KPIDocument struct {
	Timestamp   time.Time
	TestUUID    string
	KPI         string
	Value       float64
	Unit        string
	LowerBetter bool
	Labels      map[string]string
}

// ID is the document's key in a KPI index: re-exporting a run replaces its
// documents instead of duplicating them.
func (d KPIDocument) ID() string { return d.TestUUID + "." + d.KPI }

// MarshalJSON flattens the labels beside the fixed fields. encoding/json
// sorts the keys, so the output is deterministic.
func (d KPIDocument) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Labels)+6)
	for k, v := range d.Labels {
		m[k] = v
	}
	m["@timestamp"] = d.Timestamp
	m["test_uuid"] = d.TestUUID
	m["kpi"] = d.KPI
	m["value"] = d.Value
	m["unit"] = d.Unit
	m["lower_better"] = d.LowerBetter
	return json.Marshal(m)
}

// UnmarshalJSON reads a flattened document back: every string field that is
// not a fixed field is a label.
func (d *KPIDocument) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := KPIDocument{Labels: map[string]string{}}
	fields := map[string]any{
		"@timestamp": &out.Timestamp, "test_uuid": &out.TestUUID, "kpi": &out.KPI,
		"value": &out.Value, "unit": &out.Unit, "lower_better": &out.LowerBetter,
	}
	for k, raw := range m {
		dst, fixed := fields[k]
		if !fixed {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("kpi document label %s: %w", k, err)
			}
			out.Labels[k] = s
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("kpi document field %s: %w", k, err)
		}
	}
	*d = out
	return nil
}

// KPIDocuments returns one document per KPI of the payload, sorted by KPI
// name, each carrying a copy of the payload's labels.
func (p *Payload) KPIDocuments() []KPIDocument {
	names := make([]string, 0, len(p.KPIs))
	for n := range p.KPIs {
		names = append(names, n)
	}
	sort.Strings(names)
	docs := make([]KPIDocument, 0, len(names))
	for _, n := range names {
		k := p.KPIs[n]
		docs = append(docs, KPIDocument{
			Timestamp: k.Timestamp, TestUUID: k.TestUUID, KPI: n, Value: k.Value,
			Unit: k.Unit, LowerBetter: k.LowerBetter, Labels: maps.Clone(p.Metadata.Labels),
		})
	}
	return docs
}
