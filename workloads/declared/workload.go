package declared

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// The files seshat run writes in every run directory that a declared
// workload reads when its metadata section does not name values.
const (
	UUIDFile  = ".uuid"
	UsageFile = "usage.json"
)

// Workload is a workload declared by a file. It implements store.Parser,
// workloads.KPIProvider, workloads.PlotProvider, workloads.RegressionDefaults
// and, when the file has a run section, workloads.Runner.
type Workload struct {
	spec *Spec
	comp *compiled
	// Source is the file it was loaded from (as given), Hash the SHA-256 of
	// its content.
	Source string
	Hash   string
	dir    string // absolute directory of Source, for {workload_dir}

	catalog     *kpi.Catalog
	plots       *plotting.Registry
	resultsType reflect.Type   // the payload's typed results
	fields      map[string]int // value name -> field index in resultsType
	important   []string
	// fileOf lists, per declared file, the values read from it.
	fileOf map[string][]string
}

// Spec returns the decoded workload file.
func (w *Workload) Spec() *Spec { return w.spec }

// New builds a workload from a file's content; source names it in
// messages. Errors are *SpecError.
func New(source string, data []byte) (*Workload, error) {
	s, comp, err := parseSpec(source, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	w := &Workload{spec: s, comp: comp, Source: source, Hash: hex.EncodeToString(sum[:]), fileOf: map[string][]string{}}
	if abs, err := filepath.Abs(filepath.Dir(source)); err == nil {
		w.dir = abs
	}
	var defs []kpi.Definition
	for _, name := range sortedKeys(s.KPIs) {
		defs = append(defs, definition(name, s.KPIs[name], w.extractor(name)))
	}
	model := kpi.LabelsModel{SettingsVersion: s.KPISettingsVersion}
	for _, name := range sortedKeys(s.Labels) {
		l := s.Labels[name]
		model.Labels = append(model.Labels, kpi.Label{Name: name, Help: labelHelp(name, l), Required: l.Required})
	}
	if w.catalog, err = kpi.NewCatalog(s.Name, model, defs...); err != nil {
		return nil, &SpecError{Problems: []*parsers.SyntaxError{{File: source, Msg: err.Error()}}}
	}
	w.buildResultsType()
	for _, name := range sortedKeys(s.Values) {
		f := s.Values[name].File
		w.fileOf[f] = append(w.fileOf[f], name)
	}
	for _, f := range sortedKeys(w.fileOf) {
		w.important = append(w.important, s.Files[f].Path)
	}
	if s.Metadata.TestUUID == "" {
		w.important = append(w.important, UUIDFile)
	}
	if s.Metadata.Start == "" {
		w.important = append(w.important, UsageFile)
	}
	w.plots = w.newPlots()
	return w, nil
}

// definition turns a declared KPI into package kpi's form.
func definition(name string, k *KPI, extract kpi.Extractor) kpi.Definition {
	d := kpi.Definition{
		Name: name, Help: k.Help, Unit: k.Unit, IgnoredForRegression: k.IgnoredForRegression,
		Format: k.Format, Divisor: k.Divisor, DisplayUnit: k.DisplayUnit, Extract: extract,
	}
	switch k.Direction {
	case "higher":
		d.Direction = kpi.HigherIsBetter
	case "lower":
		d.Direction = kpi.LowerIsBetter
	}
	return d
}

// buildResultsType makes the struct type of the payload's results: one
// field per value, typed, `validate:"required"` when the value is. Strict
// validation and the JSON Schema then see a declared workload's results as
// they see a Go workload's.
func (w *Workload) buildResultsType() {
	names := sortedKeys(w.spec.Values)
	fields := make([]reflect.StructField, len(names))
	w.fields = map[string]int{}
	for i, name := range names {
		v := w.spec.Values[name]
		var t reflect.Type
		switch v.typ() {
		case TypeNumbers:
			t = reflect.TypeFor[[]float64]()
		case TypeString:
			t = reflect.TypeFor[*string]()
		case TypeTime:
			t = reflect.TypeFor[*time.Time]()
		default:
			t = reflect.TypeFor[*float64]()
		}
		tag := `json:"` + name + `,omitempty"`
		if v.Required {
			tag += ` validate:"required"`
		}
		if v.Help != "" {
			tag += ` jsonschema:"description=` + strings.NewReplacer(",", `\,`, `"`, "'").Replace(v.Help) + `"`
		}
		fields[i] = reflect.StructField{Name: "V" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(tag)}
		w.fields[name] = i
	}
	w.resultsType = reflect.StructOf(fields)
}

// Name implements store.Parser.
func (w *Workload) Name() string { return w.spec.Name }

// ParserVersion implements store.Parser: the engine's version and the
// file's hash, so that editing the workload file re-parses its runs.
func (w *Workload) ParserVersion() string { return "declared-1+" + w.Hash[:16] }

// ArtifactDirnames implements store.Parser.
func (w *Workload) ArtifactDirnames() map[string]string { return maps.Clone(w.spec.ArtifactDirs) }

// ImportantFiles implements store.Parser: the declared files that values
// read, and .uuid and usage.json unless the metadata section replaces them.
func (w *Workload) ImportantFiles() []string { return slices.Clone(w.important) }

// NewResult implements store.Parser.
func (w *Workload) NewResult() any { return &Results{} }

// ParseAlways implements store.Parser: a declared workload keeps nothing
// that depends on where the results are (lts sets the artifact URL).
func (w *Workload) ParseAlways(*store.AlwaysContext, any) error { return nil }

// ParseOnce implements store.Parser: each declared file is read once, and
// each value extracted from it. A missing file or value is a warning (for
// values only when required); the entry is never failed.
func (w *Workload) ParseOnce(ctx *store.ParseContext) (any, error) {
	r := &Results{Values: map[string]Datum{}}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", w.spec.Name, canonicalSettings(ctx.Settings))
	for _, fname := range sortedKeys(w.fileOf) {
		f := w.spec.Files[fname]
		var data []byte
		var err error
		if f.TailBytes > 0 {
			data, err = ctx.ReadTail(f.Path, f.TailBytes)
		} else {
			data, err = ctx.ReadFile(f.Path)
		}
		switch {
		case isMissing(err):
			if !f.Optional {
				ctx.Warnf("%s: missing", f.Path)
			}
			continue
		case err != nil:
			ctx.Warnf("%v", err)
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f.Path, len(data))
		h.Write(data)
		doc := decodeDocument(f.Path, f.format(), data)
		if doc.err != nil {
			ctx.Warnf("%v", doc.err)
			if doc.tree == nil && doc.csv == nil && doc.text == nil {
				continue
			}
		}
		for _, vname := range w.fileOf[fname] {
			v := w.spec.Values[vname]
			ms, err := w.query(vname, v, doc)
			if err == nil {
				var d Datum
				if d, err = convert(v, ms); err == nil {
					r.Values[vname] = d
					continue
				}
			}
			if errors.Is(err, errNotFound) && !v.Required {
				continue
			}
			if errors.Is(err, errNotFound) {
				ctx.Warnf("%s: value %s (%s): not found", f.Path, vname, w.where(v))
				continue
			}
			ctx.Warnf("%s: value %s: %v", f.Path, vname, err)
		}
	}
	w.metadata(ctx, r, h.Sum(nil))
	return r, nil
}

// where names a value's query in messages.
func (w *Workload) where(v *Value) string {
	switch {
	case v.Path != "":
		return v.Path
	case v.Column != "":
		return "column " + v.Column
	}
	return "regex " + v.Regex
}

// metadata sets the run's id and times from the declared values, else from
// the files seshat run writes; the id is derived from the settings and the
// files read when nothing gives one.
func (w *Workload) metadata(ctx *store.ParseContext, r *Results, digest []byte) {
	m := w.spec.Metadata
	if m.TestUUID != "" {
		if d, ok := r.Values[m.TestUUID]; ok && d.String != nil {
			r.UUID = strings.ToLower(strings.TrimSpace(*d.String))
		}
	} else if data, err := ctx.ReadFile(UUIDFile); err == nil {
		if id, err := parsers.UUID(UUIDFile, data); err == nil {
			r.UUID = id
		} else {
			ctx.Warnf("%v", err)
		}
	}
	if r.UUID == "" {
		r.UUID = derivedUUID(digest)
	}
	if m.Start != "" {
		if d, ok := r.Values[m.Start]; ok && d.Time != nil {
			r.Start = *d.Time
		}
		r.End = r.Start
		if d, ok := r.Values[m.End]; ok && d.Time != nil {
			r.End = *d.Time
		}
		if d, ok := r.Values[m.Duration]; ok && d.Number != nil && *d.Number >= 0 && *d.Number < 1e9 {
			r.End = r.Start.Add(time.Duration(*d.Number * float64(time.Second)))
		}
		if r.Start.IsZero() {
			ctx.Warnf("no start time: value %s not found", m.Start)
		}
		return
	}
	data, err := ctx.ReadFile(UsageFile)
	if err != nil {
		if isMissing(err) {
			ctx.Warnf("%s: missing: no start and end times (declare metadata.start in the workload file)", UsageFile)
		} else {
			ctx.Warnf("%v", err)
		}
		return
	}
	var u struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
	}
	if err := parsers.JSON(UsageFile, data, &u); err != nil {
		ctx.Warnf("%v", err)
		return
	}
	r.Start, r.End = u.Start.UTC(), u.End.UTC()
}

// derivedUUID shapes a digest as a UUID v4 (version and variant bits set),
// so that a run without an id gets the same one at every parse and an
// upload stays idempotent.
func derivedUUID(digest []byte) string {
	var id uuid.UUID
	copy(id[:], digest)
	id[6] = (id[6] & 0x0f) | 0x40
	id[8] = (id[8] & 0x3f) | 0x80
	return id.String()
}

// canonicalSettings renders settings in a stable order.
func canonicalSettings(s models.Settings) string {
	var b strings.Builder
	for _, k := range sortedKeys(s) {
		fmt.Fprintf(&b, "%s=%s\x00", k, models.FormatValue(s[k]))
	}
	return b.String()
}

// KPIs implements workloads.KPIProvider.
func (w *Workload) KPIs() *kpi.Catalog { return w.catalog }

// PayloadResults implements workloads.KPIProvider: a zero value of the
// struct type built from the values.
func (w *Workload) PayloadResults() any { return reflect.New(w.resultsType).Interface() }

// FillPayload implements workloads.KPIProvider: the run's id and times, its
// labels (value first, else setting) and its values as typed results.
func (w *Workload) FillPayload(e *store.Entry, p *models.Payload) []string {
	r, _ := e.Results.(*Results)
	if r == nil {
		r = &Results{}
	}
	w.fillLabels(p.Metadata.Labels, e.Settings, r)
	if e.Results == nil {
		return nil // the parse failed; its warnings say why
	}
	p.Metadata.TestUUID = r.UUID
	p.Metadata.Start, p.Metadata.End = r.Start, r.End
	res := reflect.New(w.resultsType)
	for name, d := range r.Values {
		i, ok := w.fields[name]
		if !ok {
			continue // a cached value the file no longer declares
		}
		f := res.Elem().Field(i)
		switch {
		case d.Number != nil && f.Type() == reflect.TypeFor[*float64]():
			f.Set(reflect.ValueOf(d.Number))
		case d.Numbers != nil && f.Type() == reflect.TypeFor[[]float64]():
			f.Set(reflect.ValueOf(d.Numbers))
		case d.String != nil && f.Type() == reflect.TypeFor[*string]():
			f.Set(reflect.ValueOf(d.String))
		case d.Time != nil && f.Type() == reflect.TypeFor[*time.Time]():
			f.Set(reflect.ValueOf(d.Time))
		}
	}
	p.Results = res.Interface()
	return nil
}

// fillLabels sets the labels a run's values and settings tell.
func (w *Workload) fillLabels(labels map[string]string, settings models.Settings, r *Results) {
	for name, l := range w.spec.Labels {
		text := ""
		if l.Value != "" {
			text = r.Values[l.Value].Text()
		}
		if text == "" && l.Setting != "" {
			if v, ok := settings[l.Setting]; ok && v != nil {
				text = strings.TrimSpace(models.FormatValue(v))
			}
		}
		if text != "" {
			labels[name] = text
		}
	}
}

// Labels returns the labels of one parsed entry, as its payload has them.
func (w *Workload) Labels(e *store.Entry) map[string]string {
	labels := map[string]string{kpi.LabelWorkload: w.spec.Name, kpi.LabelSettingsVersion: w.spec.KPISettingsVersion}
	r, _ := e.Results.(*Results)
	if r == nil {
		r = &Results{}
	}
	w.fillLabels(labels, e.Settings, r)
	return labels
}

// extractor reads a KPI's value from a payload's results: the typed struct
// of a parse, or the generic JSON of a stored payload.
func (w *Workload) extractor(name string) kpi.Extractor {
	k := w.spec.KPIs[name]
	return func(p *models.Payload) (float64, error) {
		if p.Results == nil {
			return 0, errors.New("the payload has no results")
		}
		var d Datum
		switch res := p.Results.(type) {
		case map[string]any:
			switch x := res[k.Value].(type) {
			case float64:
				d.Number = &x
			case []any:
				for _, e := range x {
					if f, ok := e.(float64); ok {
						d.Numbers = append(d.Numbers, f)
					}
				}
			}
		default:
			rv := reflect.ValueOf(p.Results)
			if rv.Kind() != reflect.Pointer || rv.Elem().Type() != w.resultsType {
				return 0, fmt.Errorf("results are %T, not this workload's", p.Results)
			}
			f := rv.Elem().Field(w.fields[k.Value])
			switch x := f.Interface().(type) {
			case *float64:
				d.Number = x
			case []float64:
				d.Numbers = x
			}
		}
		return w.kpiValue(name, d)
	}
}

// kpiValue computes a KPI from its value: the number, or the numbers
// aggregated (median unless declared).
func (w *Workload) kpiValue(name string, d Datum) (float64, error) {
	k := w.spec.KPIs[name]
	switch {
	case d.Number != nil:
		return *d.Number, nil
	case d.Numbers != nil:
		how := k.Aggregate
		if how == "" {
			how = "median"
		}
		v, err := Aggregate(how, d.Numbers)
		if errors.Is(err, errNotFound) {
			return 0, fmt.Errorf("value %s is an empty list", k.Value)
		}
		return v, err
	}
	if !w.spec.Values[k.Value].Required {
		// An optional value the run does not have (a throughput only some
		// benchmarks report): the KPI does not apply to it.
		return 0, kpi.ErrNotApplicable
	}
	return 0, fmt.Errorf("no value %s", k.Value)
}

// KPIValue computes a KPI of one parsed entry, as its payload would have it.
func (w *Workload) KPIValue(e *store.Entry, name string) (float64, bool) {
	r, _ := e.Results.(*Results)
	if r == nil {
		return 0, false
	}
	k, ok := w.spec.KPIs[name]
	if !ok {
		return 0, false
	}
	v, err := w.kpiValue(name, r.Values[k.Value])
	return v, err == nil
}

// Plots implements workloads.PlotProvider.
func (w *Workload) Plots() *plotting.Registry { return w.plots }

// RegressionKeys implements workloads.RegressionDefaults.
func (w *Workload) RegressionKeys() regression.Keys {
	r := w.spec.Regression
	return regression.Keys{
		ComparisonKeys: slices.Clone(r.ComparisonKeys), IgnoredKeys: slices.Clone(r.IgnoredKeys),
		SortingKeys: slices.Clone(r.SortingKeys), IgnoredEntries: slices.Clone(r.IgnoredEntries),
	}
}

var (
	_ workloads.KPIProvider        = (*Workload)(nil)
	_ workloads.PlotProvider       = (*Workload)(nil)
	_ workloads.RegressionDefaults = (*Workload)(nil)
)
