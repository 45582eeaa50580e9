package regression

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/parsers"
)

// Ack acknowledges a known regression (or improvement): the entries it
// matches are reported as acknowledged and never fail. It names the run by
// test_uuid or the comparison value, and may be limited to one KPI.
type Ack struct {
	TestUUID string
	// Comparison matches the entries whose comparison labels have these
	// values (a subset); ComparisonValue the entries whose comparison value
	// reads exactly so (the value alone for one comparison key).
	Comparison      map[string]string
	ComparisonValue string
	// KPI limits the ack to one KPI; "" or "*" is every KPI.
	KPI    string
	Reason string
	// Source is where the ack was read, "file:line", for messages.
	Source string
	// Workload, Series and Build limit the ack to the entries of one
	// workload, series key (exactly these labels) and current build: the
	// ack of a triaged alert (TriageAcks).
	Workload string
	Series   map[string]string
	Build    string
	// Triage marks the ack of a triaged alert: never reported as unused
	// (it was made for one build).
	Triage bool
}

// Matches tells whether the ack covers the given KPI of e.
func (a Ack) Matches(e *Entry, kpi string) bool {
	if a.KPI != "" && a.KPI != "*" && a.KPI != kpi {
		return false
	}
	if a.Workload != "" && a.Workload != e.Workload {
		return false
	}
	if a.Series != nil && canonical(a.Series) != canonical(e.Labels) {
		return false
	}
	if a.Build != "" && !slices.Contains(e.Builds, a.Build) {
		return false
	}
	if a.TestUUID != "" && !slices.ContainsFunc(e.Runs, func(r RunRef) bool { return r.TestUUID == a.TestUUID }) {
		return false
	}
	if a.ComparisonValue != "" && a.ComparisonValue != e.ComparisonValue {
		return false
	}
	for k, v := range a.Comparison {
		if e.Comparison[k] != v {
			return false
		}
	}
	return true
}

func (a Ack) String() string {
	if a.Triage {
		return a.Source
	}
	var parts []string
	if a.TestUUID != "" {
		parts = append(parts, "test_uuid "+a.TestUUID)
	}
	if a.ComparisonValue != "" {
		parts = append(parts, fmt.Sprintf("comparison %q", a.ComparisonValue))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Comparison)) {
		parts = append(parts, fmt.Sprintf("%s=%s", k, a.Comparison[k]))
	}
	kpi := a.KPI
	if kpi == "" {
		kpi = "*"
	}
	return fmt.Sprintf("%s: %s, kpi %s", a.Source, strings.Join(parts, ", "), kpi)
}

// ReadAcks decodes an ack file (YAML, or JSON, which YAML reads too): a
// list of {test_uuid | comparison, kpi, reason}. comparison is a value
// ("2.1.0") or a mapping of comparison labels. Every item needs a reason
// and a test_uuid or a comparison: an ack of everything would hide every
// regression. Errors name the file, line and field of each bad item;
// nothing is acknowledged from a file with errors.
func ReadAcks(name string, data []byte) ([]Ack, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, parsers.YAMLError(name, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	bad := func(n *yaml.Node, field, format string, args ...any) error {
		return &parsers.SyntaxError{File: name, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if root.Kind != yaml.SequenceNode {
		return nil, bad(root, "", "want a list of acks ({test_uuid or comparison, kpi, reason})")
	}
	var acks []Ack
	var errs []error
	for i, item := range root.Content {
		a, err := readAck(name, i, item, bad)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		acks = append(acks, a)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return acks, nil
}

func readAck(name string, i int, item *yaml.Node, bad func(*yaml.Node, string, string, ...any) error) (Ack, error) {
	a := Ack{Source: fmt.Sprintf("%s:%d", name, item.Line)}
	at := fmt.Sprintf("[%d]", i)
	if item.Kind != yaml.MappingNode {
		return a, bad(item, at, "want a mapping {test_uuid or comparison, kpi, reason}")
	}
	var errs []error
	for j := 0; j+1 < len(item.Content); j += 2 {
		k, v := item.Content[j], item.Content[j+1]
		field := at + "." + k.Value
		if k.Value == "comparison" && v.Kind == yaml.MappingNode {
			a.Comparison = map[string]string{}
			for c := 0; c+1 < len(v.Content); c += 2 {
				ck, cv := v.Content[c], v.Content[c+1]
				if cv.Kind != yaml.ScalarNode {
					errs = append(errs, bad(cv, field+"."+ck.Value, "want a label value"))
					continue
				}
				a.Comparison[ck.Value] = cv.Value
			}
			continue
		}
		if v.Kind != yaml.ScalarNode {
			errs = append(errs, bad(v, field, "want a single value"))
			continue
		}
		switch k.Value {
		case "test_uuid":
			a.TestUUID = strings.TrimSpace(v.Value)
		case "comparison":
			a.ComparisonValue = v.Value
		case "kpi":
			a.KPI = strings.TrimSpace(v.Value)
		case "reason":
			a.Reason = strings.TrimSpace(v.Value)
		default:
			errs = append(errs, bad(k, field, "unknown key (want test_uuid, comparison, kpi, reason)"))
		}
	}
	if a.TestUUID == "" && a.ComparisonValue == "" && len(a.Comparison) == 0 {
		errs = append(errs, bad(item, at, "names no run: give a test_uuid or a comparison"))
	}
	if a.Reason == "" {
		errs = append(errs, bad(item, at+".reason", "missing: say why the change is accepted"))
	}
	return a, errors.Join(errs...)
}
