package declared

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/theory/jsonpath"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
)

// compiled holds what check built while checking: the parsed queries.
type compiled struct {
	paths   map[string]*jsonpath.Path // by value name
	regexes map[string]*regexp.Regexp // by value name
	groups  map[string]int            // the submatch a regex value reads
}

// check verifies what struct tags cannot: every reference resolves, every
// query compiles, and package kpi accepts the KPIs and labels.
func (c *checker) check(s *Spec) *compiled {
	out := &compiled{paths: map[string]*jsonpath.Path{}, regexes: map[string]*regexp.Regexp{}, groups: map[string]int{}}
	for _, name := range sortedKeys(s.Files) {
		f := s.Files[name]
		if f == nil {
			continue // refused by its tags already
		}
		if dir, rest, ok := strings.Cut(f.Path, "}"); ok && strings.HasPrefix(dir, "{") {
			if _, declared := s.ArtifactDirs[dir[1:]]; !declared {
				c.add([]string{"files", name, "path"}, "artifact directory %q is not declared in artifact_dirs", dir[1:])
			}
			if !strings.HasPrefix(rest, "/") || len(rest) < 2 {
				c.add([]string{"files", name, "path"}, "want {dirname}/file, got %q", f.Path)
			}
		}
		if strings.HasPrefix(f.Path, "/") || slices.Contains(strings.Split(f.Path, "/"), "..") {
			c.add([]string{"files", name, "path"}, "must be relative to the run directory, inside it: %q", f.Path)
		}
		if f.TailBytes > 0 && f.format() != FormatText {
			c.add([]string{"files", name, "tail_bytes"}, "only text files can be read from their end")
		}
	}
	for _, name := range sortedKeys(s.Values) {
		if s.Values[name] != nil {
			c.checkValue(s, name, out)
		}
	}
	c.checkMetadata(s)
	model := c.checkLabels(s)
	var defs []kpi.Definition
	for _, name := range sortedKeys(s.KPIs) {
		k := s.KPIs[name]
		if k == nil {
			continue
		}
		at := []string{"kpis", name}
		v, ok := s.Values[k.Value]
		switch {
		case !ok || v == nil:
			c.add(append(at, "value"), "no value %q in values", k.Value)
			continue
		case v.typ() != TypeNumber && v.typ() != TypeNumbers:
			c.add(append(at, "value"), "value %q is of type %s: a KPI needs a number or numbers", k.Value, v.typ())
			continue
		case k.Aggregate != "" && v.typ() != TypeNumbers:
			c.add(append(at, "aggregate"), "value %q is one number: nothing to aggregate", k.Value)
		}
		if k.Direction != "higher" && k.Direction != "lower" {
			continue // refused by its tags already
		}
		d := definition(name, k, func(*models.Payload) (float64, error) { return 0, nil })
		if _, err := kpi.NewCatalog(s.Name, kpi.LabelsModel{SettingsVersion: "1.0.0"}, d); err != nil {
			c.add(at, "%s", strings.TrimPrefix(err.Error(), "workload "+s.Name+": invalid KPI catalog: "))
			continue
		}
		defs = append(defs, d)
	}
	if len(c.problems) == 0 {
		if _, err := kpi.NewCatalog(s.Name, model, defs...); err != nil {
			c.add(nil, "%v", err)
		}
	}
	c.checkRegression(s)
	c.checkPlots(s)
	return out
}

func (c *checker) checkValue(s *Spec, name string, out *compiled) {
	v := s.Values[name]
	at := []string{"values", name}
	f, ok := s.Files[v.File]
	if !ok || f == nil {
		c.add(append(at, "file"), "no file %q in files (files: %s)", v.File, strings.Join(sortedKeys(s.Files), ", "))
		return
	}
	n := 0
	for _, q := range []string{v.Path, v.Column, v.Regex} {
		if q != "" {
			n++
		}
	}
	if n != 1 {
		c.add(at, "give exactly one of path (json, yaml), column (csv) or regex (text)")
		return
	}
	format := f.format()
	switch {
	case v.Path != "":
		if format != FormatJSON && format != FormatYAML {
			c.add(append(at, "path"), "file %q is %s: a path reads json or yaml files", v.File, format)
			return
		}
		p, err := jsonpath.Parse(v.Path)
		if err != nil {
			c.add(append(at, "path"), "not an RFC 9535 JSONPath: %v", err)
			return
		}
		out.paths[name] = p
	case v.Column != "":
		if format != FormatCSV {
			c.add(append(at, "column"), "file %q is %s: a column reads csv files", v.File, format)
		}
	case v.Regex != "":
		if format != FormatText {
			c.add(append(at, "regex"), "file %q is %s: a regex reads text files", v.File, format)
			return
		}
		re, err := regexp.Compile(v.Regex)
		if err != nil {
			c.add(append(at, "regex"), "%v", err)
			return
		}
		out.regexes[name] = re
		out.groups[name] = 0
		if i := re.SubexpIndex("value"); i > 0 {
			out.groups[name] = i
		} else if re.NumSubexp() > 0 {
			out.groups[name] = 1
		}
	}
	if v.Aggregate != "" && v.typ() != TypeNumber {
		c.add(append(at, "aggregate"), "only a value of type number is aggregated (this one is %s)", v.typ())
	}
	if v.Scale != 0 && v.typ() != TypeNumber && v.typ() != TypeNumbers {
		c.add(append(at, "scale"), "only numbers are scaled (this value is %s)", v.typ())
	}
}

func (c *checker) checkMetadata(s *Spec) {
	ref := func(key, value string, types ...string) {
		if value == "" {
			return
		}
		v, ok := s.Values[value]
		switch {
		case !ok || v == nil:
			c.add([]string{"metadata", key}, "no value %q in values", value)
		case !slices.Contains(types, v.typ()):
			c.add([]string{"metadata", key}, "value %q is of type %s, want %s", value, v.typ(), strings.Join(types, " or "))
		}
	}
	ref("test_uuid", s.Metadata.TestUUID, TypeString)
	ref("start", s.Metadata.Start, TypeTime)
	ref("end", s.Metadata.End, TypeTime)
	ref("duration", s.Metadata.Duration, TypeNumber)
	if s.Metadata.End != "" && s.Metadata.Duration != "" {
		c.add([]string{"metadata", "duration"}, "give end or duration, not both")
	}
	if (s.Metadata.End != "" || s.Metadata.Duration != "") && s.Metadata.Start == "" {
		c.add([]string{"metadata"}, "an end or a duration needs a start")
	}
}

// checkLabels checks the labels and returns their model.
func (c *checker) checkLabels(s *Spec) kpi.LabelsModel {
	model := kpi.LabelsModel{SettingsVersion: s.KPISettingsVersion}
	for _, name := range sortedKeys(s.Labels) {
		l := s.Labels[name]
		if l == nil {
			continue
		}
		at := []string{"labels", name}
		switch {
		case slices.Contains(models.ReservedLabelNames, name):
			c.add(at, "%q is a field of every KPI document, not a label", name)
		case name == kpi.LabelWorkload || name == kpi.LabelSettingsVersion:
			c.add(at, "%q is set by Seshat on every payload", name)
		}
		if l.Value == "" && l.Setting == "" {
			c.add(at, "give a value or a setting (or both: the value wins)")
		}
		if l.Value != "" {
			v, ok := s.Values[l.Value]
			switch {
			case !ok || v == nil:
				c.add(append(at, "value"), "no value %q in values", l.Value)
			case v.typ() == TypeNumbers:
				c.add(append(at, "value"), "value %q is a list: a label is one value", l.Value)
			}
		}
		model.Labels = append(model.Labels, kpi.Label{Name: name, Help: labelHelp(name, l), Required: l.Required})
	}
	return model
}

func labelHelp(name string, l *Label) string {
	if l.Help != "" {
		return l.Help
	}
	switch {
	case l.Value != "" && l.Setting != "":
		return "value " + l.Value + ", else setting " + l.Setting
	case l.Value != "":
		return "value " + l.Value
	}
	return "setting " + l.Setting
}

func (c *checker) checkRegression(s *Spec) {
	isLabel := func(k string) bool {
		_, ok := s.Labels[k]
		return ok || k == kpi.LabelWorkload || k == kpi.LabelSettingsVersion
	}
	for _, list := range []struct {
		key  string
		keys []string
	}{{"comparison_keys", s.Regression.ComparisonKeys}, {"ignored_keys", s.Regression.IgnoredKeys}, {"sorting_keys", s.Regression.SortingKeys}} {
		for i, k := range list.keys {
			if !isLabel(k) {
				c.add([]string{"regression", list.key, strconv.Itoa(i)}, "%q is not a label (labels: %s)", k, strings.Join(sortedKeys(s.Labels), ", "))
			}
		}
	}
}

func (c *checker) checkPlots(s *Spec) {
	seen := map[string]bool{}
	for i, p := range s.Plots {
		if p == nil {
			continue
		}
		at := []string{"plots", strconv.Itoa(i)}
		if seen[p.Name] {
			c.add(append(at, "name"), "report %q declared twice", p.Name)
		}
		seen[p.Name] = true
		if p.Name != strings.TrimSpace(p.Name) || strings.ContainsAny(p.Name, ":\n") {
			c.add(append(at, "name"), "a report name has no colon, newline nor surrounding spaces: %q", p.Name)
		}
		for j, k := range p.KPIs {
			if _, ok := s.KPIs[k]; !ok {
				c.add(append(at, "kpis", strconv.Itoa(j)), "no KPI %q in kpis", k)
			}
		}
		if p.X != "" && p.Kind != PlotScaling {
			c.add(append(at, "x"), "only a scaling report has an x axis")
		}
		if p.Split != "" && p.Kind != PlotDistribution {
			c.add(append(at, "split"), "only a distribution report is split")
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
