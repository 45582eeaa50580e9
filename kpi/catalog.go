package kpi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/models"
)

// The labels every payload carries, whatever its workload.
const (
	LabelWorkload        = "workload"
	LabelSettingsVersion = "kpi_settings_version"
)

// Label is one label of a labels model.
type Label struct {
	Name string
	Help string
	// Required labels must be present and non-empty in a strictly valid
	// payload; the others are present only when known (e.g. the BLAS).
	Required bool
}

// LabelsModel is the set of labels a workload's KPIs are grouped by.
type LabelsModel struct {
	// SettingsVersion is the kpi_settings_version label, a semantic version:
	// bump it when a label or a KPI changes meaning, so that regression
	// analysis never compares records computed differently.
	SettingsVersion string
	Labels          []Label
}

// Catalog is a workload's declared KPIs and labels model, checked.
type Catalog struct {
	workload string
	version  string
	labels   []Label // sorted by name, the generic labels included
	defs     []Definition
}

// NewCatalog checks and builds a catalog. The labels workload and
// kpi_settings_version are added to the model; payload assembly fills them.
func NewCatalog(workload string, model LabelsModel, defs ...Definition) (*Catalog, error) {
	var problems []error
	if !models.IsSnakeCase(workload) {
		problems = append(problems, fmt.Errorf("workload name %q is not snake_case", workload))
	}
	if err := models.ValidateValue(LabelSettingsVersion, model.SettingsVersion, "required,semver"); err != nil {
		problems = append(problems, err)
	}
	c := &Catalog{workload: workload, version: model.SettingsVersion}
	labels := append([]Label{
		{Name: LabelWorkload, Help: "the workload that produced the run", Required: true},
		{Name: LabelSettingsVersion, Help: "version of the labels and KPI definitions", Required: true},
	}, model.Labels...)
	seen := map[string]bool{}
	for _, l := range labels {
		switch {
		case !models.IsSnakeCase(l.Name):
			problems = append(problems, fmt.Errorf("label %q: not snake_case", l.Name))
		case slices.Contains(models.ReservedLabelNames, l.Name):
			problems = append(problems, fmt.Errorf("label %q: reserved for the KPI document's own field", l.Name))
		case seen[l.Name]:
			problems = append(problems, fmt.Errorf("label %q: declared twice", l.Name))
		}
		seen[l.Name] = true
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].Name < labels[j].Name })
	c.labels = labels
	names := map[string]bool{}
	for _, d := range defs {
		if err := d.check(); err != nil {
			problems = append(problems, err)
		}
		if names[d.Name] {
			problems = append(problems, fmt.Errorf("kpi %q: declared twice", d.Name))
		}
		names[d.Name] = true
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("workload %s: invalid KPI catalog: %w", workload, errors.Join(problems...))
	}
	c.defs = slices.Clone(defs)
	sort.Slice(c.defs, func(i, j int) bool { return c.defs[i].Name < c.defs[j].Name })
	return c, nil
}

// MustCatalog is NewCatalog for package-level declarations: an invalid
// catalog is a programming error and panics when the workload registers.
func MustCatalog(workload string, model LabelsModel, defs ...Definition) *Catalog {
	c, err := NewCatalog(workload, model, defs...)
	if err != nil {
		panic(err)
	}
	return c
}

// Workload is the workload the catalog belongs to.
func (c *Catalog) Workload() string { return c.workload }

// SettingsVersion is the kpi_settings_version label value.
func (c *Catalog) SettingsVersion() string { return c.version }

// Labels returns the labels model, sorted by name.
func (c *Catalog) Labels() []Label { return slices.Clone(c.labels) }

// Definitions returns the KPI definitions, sorted by name.
func (c *Catalog) Definitions() []Definition { return slices.Clone(c.defs) }

// Definition returns the definition named name.
func (c *Catalog) Definition(name string) (Definition, bool) {
	i, ok := slices.BinarySearchFunc(c.defs, name, func(d Definition, n string) int { return strings.Compare(d.Name, n) })
	if !ok {
		return Definition{}, false
	}
	return c.defs[i], true
}

// Evaluate computes every KPI of the payload. A KPI whose extractor fails,
// panics or returns a NaN or infinite value is absent, with a warning naming
// it; ErrNotApplicable leaves it absent silently. The KPIs carry the
// payload's start as their timestamp and its test_uuid.
func (c *Catalog) Evaluate(p *models.Payload) (map[string]models.KPIValue, []string) {
	kpis := map[string]models.KPIValue{}
	var warnings []string
	for _, d := range c.defs {
		v, err := extract(d, p)
		switch {
		case errors.Is(err, ErrNotApplicable):
			continue
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("kpi %s: not computed: %v", d.Name, err))
			continue
		case math.IsNaN(v) || math.IsInf(v, 0):
			warnings = append(warnings, fmt.Sprintf("kpi %s: value %v is not a finite number, refused", d.Name, v))
			continue
		}
		kpis[d.Name] = models.KPIValue{
			Value: v, Unit: d.Unit, Help: d.Help, LowerBetter: d.LowerBetter(),
			Timestamp: p.Metadata.Start, TestUUID: p.Metadata.TestUUID,
		}
	}
	return kpis, warnings
}

// extract runs one extractor; a panic (a nil part of the results the
// extractor did not expect) becomes an error so the other KPIs go on.
func extract(d Definition, p *models.Payload) (v float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("extractor panicked: %v", r)
		}
	}()
	return d.Extract(p)
}

// Validate checks, beyond the payload's struct tags, what the catalog
// declares: every required label present and non-empty, no undeclared
// label, kpi_settings_version and workload matching the catalog, and no
// undeclared KPI. Errors name JSON paths.
func (c *Catalog) Validate(p *models.Payload) *models.ValidationError {
	ve := &models.ValidationError{}
	declared := map[string]bool{}
	for _, l := range c.labels {
		declared[l.Name] = true
		if v, ok := p.Metadata.Labels[l.Name]; l.Required && (!ok || v == "") {
			ve.Add("metadata.labels."+l.Name, "required")
		}
	}
	for _, k := range sortedKeys(p.Metadata.Labels) {
		if !declared[k] {
			ve.Add("metadata.labels."+k, "not a label of workload %s", c.workload)
		}
	}
	if v, ok := p.Metadata.Labels[LabelSettingsVersion]; ok && v != "" && v != c.version {
		ve.Add("metadata.labels."+LabelSettingsVersion, "is %q, the %s workload's KPIs are version %q", v, c.workload, c.version)
	}
	if v, ok := p.Metadata.Labels[LabelWorkload]; ok && v != "" && v != p.Metadata.Workload {
		ve.Add("metadata.labels."+LabelWorkload, "is %q but metadata.workload is %q", v, p.Metadata.Workload)
	}
	for _, k := range sortedKeys(p.KPIs) {
		d, ok := c.Definition(k)
		if !ok {
			ve.Add("kpis."+k, "not a KPI of workload %s", c.workload)
			continue
		}
		if v := p.KPIs[k]; v.Unit != d.Unit || v.LowerBetter != d.LowerBetter() {
			ve.Add("kpis."+k, "unit %q, lower_better %v: the definition says %q, %v", v.Unit, v.LowerBetter, d.Unit, d.LowerBetter())
		}
	}
	return ve
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
