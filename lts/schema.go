package lts

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"reflect"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/seshat-bench/seshat/models"
)

// SchemaID names the payload schema of this LTS schema version.
const SchemaID = "urn:seshat:lts-payload:" + models.LTSSchemaVersion

// Patterns of the validator tags that have no JSON Schema keyword of their
// own. They match go-playground/validator's (the tests hold them together).
const (
	// uuid4Pattern is validator's uuid4: lowercase, version 4, RFC 4122 variant.
	uuid4Pattern = `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`
	// semverPattern is the regular expression published by semver.org.
	semverPattern = `^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`
	// zeroTime is how encoding/json writes a zero time.Time: `required` on a
	// time refuses it.
	zeroTime = "0001-01-01T00:00:00Z"
)

// Schema returns the JSON Schema (draft 2020-12) of the LTS payload: the
// generic payload reflected from models.Payload, and for each workload,
// conditioned on metadata.workload, its typed results, its labels model and
// its KPI names. Constraints come from the `validate` tags the strict
// validation uses; a tag this function cannot translate is an error, so the
// schema never silently falls behind the validation.
func Schema(ws []Workload) (*jsonschema.Schema, error) {
	r := &jsonschema.Reflector{
		ExpandedStruct: true,
		// Named lists are plain arrays in JSON (their types only exist for a
		// compact CBOR form in the parse cache): inline them. Raw JSON is
		// an object wherever the payload holds one (pi's config).
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch t {
			case reflect.TypeFor[json.RawMessage]():
				return &jsonschema.Schema{Type: "object"}
			case reflect.TypeFor[models.Samples]():
				return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "number"}}
			case reflect.TypeFor[models.Flags]():
				return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
			}
			return nil
		},
		// Package-qualified names: two workloads may both name a type Results.
		Namer: func(t reflect.Type) string {
			if t.Name() == "" {
				return "" // anonymous types are inlined
			}
			return path.Base(t.PkgPath()) + "." + t.Name()
		},
	}
	root := r.Reflect(&models.Payload{})
	root.ID = SchemaID
	root.Title = "Seshat LTS payload " + models.LTSSchemaVersion
	root.Description = "One run: metadata (identity, time, settings, KPI labels), the workload's typed results, and its KPIs."
	if root.Definitions == nil {
		root.Definitions = jsonschema.Definitions{}
	}
	a := &annotator{r: r, defs: root.Definitions, done: map[string]bool{}}
	if err := a.object(reflect.TypeFor[models.Payload](), root); err != nil {
		return nil, err
	}
	r.ExpandedStruct = false
	for _, w := range ws {
		results := reflect.TypeOf(w.PayloadResults())
		rs := r.ReflectFromType(results)
		for name, def := range rs.Definitions {
			if _, dup := root.Definitions[name]; !dup {
				root.Definitions[name] = def
			}
		}
		rs.Definitions, rs.Version, rs.ID = nil, "", ""
		if err := a.value(results, rs, nil); err != nil {
			return nil, fmt.Errorf("workload %s results: %w", w.Name(), err)
		}
		root.AllOf = append(root.AllOf, workloadSchema(w, rs))
	}
	return root, nil
}

// workloadSchema constrains the payloads of one workload: results of its
// type, the labels of its model (required ones required, no others, the
// generic ones fixed), and only its KPIs.
func workloadSchema(w Workload, results *jsonschema.Schema) *jsonschema.Schema {
	cat := w.KPIs()
	labels := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	one := uint64(1)
	for _, l := range cat.Labels() {
		s := &jsonschema.Schema{Type: "string", MinLength: &one, Description: l.Help}
		switch l.Name {
		case "workload":
			s.Const = w.Name()
		case "kpi_settings_version":
			s.Const = cat.SettingsVersion()
		}
		labels.Properties.Set(l.Name, s)
		if l.Required {
			labels.Required = append(labels.Required, l.Name)
		}
	}
	var names []any
	for _, d := range cat.Definitions() {
		names = append(names, d.Name)
	}
	kpis := &jsonschema.Schema{Type: "object", PropertyNames: &jsonschema.Schema{Enum: names}}
	if len(names) == 0 {
		kpis.MaxProperties = new(uint64)
	}
	metadata := &jsonschema.Schema{Properties: jsonschema.NewProperties()}
	metadata.Properties.Set("labels", labels)
	then := &jsonschema.Schema{Properties: jsonschema.NewProperties()}
	then.Properties.Set("metadata", metadata)
	then.Properties.Set("results", results)
	then.Properties.Set("kpis", kpis)
	ifWorkload := &jsonschema.Schema{Properties: jsonschema.NewProperties(), Required: []string{"metadata"}}
	wl := &jsonschema.Schema{Properties: jsonschema.NewProperties(), Required: []string{"workload"}}
	wl.Properties.Set("workload", &jsonschema.Schema{Const: w.Name()})
	ifWorkload.Properties.Set("metadata", wl)
	return &jsonschema.Schema{If: ifWorkload, Then: then}
}

// WriteSchema writes Schema(ws) as indented JSON.
func WriteSchema(w io.Writer, ws []Workload) error {
	s, err := Schema(ws)
	if err != nil {
		return err
	}
	return writeIndented(w, s)
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// annotator adds to reflected schemas what the `validate` tags say.
type annotator struct {
	r    *jsonschema.Reflector
	defs jsonschema.Definitions
	done map[string]bool
}

var timeType = reflect.TypeFor[time.Time]()

// object annotates the properties of the object schema s of struct type t.
func (a *annotator) object(t reflect.Type, s *jsonschema.Schema) error {
	if s.Properties == nil {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := a.object(ft, s); err != nil {
					return err
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		prop, ok := s.Properties.Get(name)
		if !ok {
			continue
		}
		rules := splitRules(f.Tag.Get("validate"))
		required := len(rules) > 0 && rules[0] == "required"
		if err := a.value(f.Type, prop, rules); err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		// A nil pointer, map, slice or interface is written as null unless
		// omitted or required.
		omitempty := strings.Contains(","+opts+",", ",omitempty,")
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			if !required && !omitempty {
				s.Properties.Set(name, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{prop, {Type: "null"}}})
			}
		}
	}
	return nil
}

// value annotates the schema s of a value of type t with its rules, and
// descends into struct definitions, slice items and map values.
func (a *annotator) value(t reflect.Type, s *jsonschema.Schema, rules []string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	own, keys, elem, err := partitionRules(rules)
	if err != nil {
		return err
	}
	if err := applyRules(t, s, own); err != nil {
		return err
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == timeType {
			return nil
		}
		name := a.r.Namer(t)
		def, ok := a.defs[name]
		if !ok || name == "" {
			return a.object(t, s) // inlined
		}
		if a.done[name] {
			return nil
		}
		a.done[name] = true
		return a.object(t, def)
	case reflect.Slice, reflect.Array:
		if s.Items == nil {
			if len(elem) > 0 {
				return fmt.Errorf("dive rules %v on a slice without items schema", elem)
			}
			return nil
		}
		return a.value(t.Elem(), s.Items, elem)
	case reflect.Map:
		if len(keys) > 0 {
			s.PropertyNames = &jsonschema.Schema{}
			if err := applyRules(t.Key(), s.PropertyNames, keys); err != nil {
				return err
			}
		}
		if s.AdditionalProperties == nil {
			if len(elem) == 0 {
				return nil
			}
			s.AdditionalProperties = &jsonschema.Schema{}
		}
		return a.value(t.Elem(), s.AdditionalProperties, elem)
	case reflect.Interface:
		for _, r := range own {
			if r == "required" {
				s.Not = &jsonschema.Schema{Type: "null"}
			}
		}
	}
	return nil
}

func splitRules(tag string) []string {
	if tag == "" {
		return nil
	}
	return strings.Split(tag, ",")
}

// partitionRules splits validator rules at `dive`: the field's own rules,
// the map key rules (keys,...,endkeys) and the element rules.
func partitionRules(rules []string) (own, keys, elem []string, err error) {
	for i, r := range rules {
		if r != "dive" {
			continue
		}
		own, rest := rules[:i], rules[i+1:]
		if len(rest) > 0 && rest[0] == "keys" {
			end := -1
			for j, k := range rest {
				if k == "endkeys" {
					end = j
					break
				}
			}
			if end < 0 {
				return nil, nil, nil, fmt.Errorf("validate: keys without endkeys in %v", rules)
			}
			keys, rest = rest[1:end], rest[end+1:]
		}
		return own, keys, rest, nil
	}
	return rules, nil, nil, nil
}

// applyRules translates validator rules into keywords of s. Rules that JSON
// Schema cannot express are listed here explicitly; any other is an error.
func applyRules(t reflect.Type, s *jsonschema.Schema, rules []string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	one := uint64(1)
	for _, rule := range rules {
		name, param, _ := strings.Cut(rule, "=")
		switch name {
		case "required":
			switch {
			case t == timeType:
				s.Not = &jsonschema.Schema{Const: zeroTime}
			case t.Kind() == reflect.String:
				s.MinLength = &one
			}
		case "uuid4":
			s.Pattern = uuid4Pattern
		case "semver":
			s.Pattern = semverPattern
		case "kpi_name", "label_name", "snake_case":
			s.Pattern = models.SnakeCasePattern
		case "url":
			s.Format = "uri"
		case "oneof":
			for _, v := range strings.Fields(param) {
				switch t.Kind() {
				case reflect.String:
					s.Enum = append(s.Enum, v)
				default:
					s.Enum = append(s.Enum, json.Number(v))
				}
			}
		case "gte", "min", "lte", "max":
			if err := applyBound(t, s, name, param); err != nil {
				return err
			}
		case "omitempty", "finite", "gtefield":
			// omitempty: only constrains present values, as JSON Schema does.
			// finite: JSON cannot hold NaN or infinities.
			// gtefield: comparing two fields has no JSON Schema keyword.
		default:
			return fmt.Errorf("validate rule %q has no JSON Schema translation", rule)
		}
	}
	return nil
}

func applyBound(t reflect.Type, s *jsonschema.Schema, name, param string) error {
	lower := name == "gte" || name == "min"
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		var n uint64
		if _, err := fmt.Sscan(param, &n); err != nil {
			return fmt.Errorf("validate rule %s=%s: %w", name, param, err)
		}
		switch {
		case t.Kind() == reflect.String && lower:
			s.MinLength = &n
		case t.Kind() == reflect.String:
			s.MaxLength = &n
		case t.Kind() == reflect.Slice && lower:
			s.MinItems = &n
		case t.Kind() == reflect.Slice:
			s.MaxItems = &n
		case lower:
			s.MinProperties = &n
		default:
			s.MaxProperties = &n
		}
	default:
		if lower {
			s.Minimum = json.Number(param)
		} else {
			s.Maximum = json.Number(param)
		}
	}
	return nil
}
