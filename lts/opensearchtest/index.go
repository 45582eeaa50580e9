package opensearchtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// index is one index: its mapping, its documents, and the documents a
// search sees (those of the last refresh).
type index struct {
	mapping *mapping
	docs    map[string]*doc
	visible map[string]*doc
}

// doc is a stored document: its source as sent and the values its fields
// were indexed with (string for keyword fields and text tokens, float64
// for numbers and dates in epoch milliseconds, bool).
type doc struct {
	source []byte
	fields map[string][]any
}

// template is a composable index template.
type template struct {
	body     []byte
	patterns []string
	priority int
	mapping  *mapping
}

// mapping is an index's field types, by dotted path.
type mapping struct {
	types     map[string]string   // "object" for objects
	disabled  map[string]bool     // objects with "enabled": false, not indexed
	subfields map[string][]string // multi-fields of a field, by their full path
	dynamic   []dynamicTemplate
}

// fieldDef is a field of a mapping, as the store's templates declare them.
type fieldDef struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Enabled    *bool                      `json:"enabled"`
	Fields     map[string]fieldDef        `json:"fields"`
}

type dynamicTemplate struct {
	Match            string   `json:"match"`
	PathMatch        string   `json:"path_match"`
	MatchMappingType string   `json:"match_mapping_type"`
	Mapping          fieldDef `json:"mapping"`
}

var leafTypes = map[string]bool{"keyword": true, "text": true, "date": true, "boolean": true,
	"long": true, "integer": true, "short": true, "byte": true, "double": true, "float": true}

// strictDecode decodes JSON refusing unknown fields: a field the fake does
// not model is a 501 naming it, malformed JSON a 400.
func strictDecode(data []byte, v any, what string) *apiError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("data after the JSON value")
		}
	}
	switch {
	case err == nil:
		return nil
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return notSupported("%s: %v", what, err)
	}
	return badRequest("parse_exception", "%s: %v", what, err)
}

// templateExists answers HEAD _index_template/{name}.
func (ts *TestServer) templateExists(rq *request) (int, any, *apiError) {
	if ts.templates[rq.target] == nil {
		return http.StatusNotFound, nil, nil
	}
	return http.StatusOK, nil, nil
}

// putTemplate answers PUT _index_template/{name}. Settings are accepted
// and ignored; mappings are parsed now, so a template the fake cannot
// apply fails here.
func (ts *TestServer) putTemplate(rq *request) (int, any, *apiError) {
	var body struct {
		IndexPatterns json.RawMessage `json:"index_patterns"`
		Priority      int             `json:"priority"`
		Meta          json.RawMessage `json:"_meta"`
		Version       int             `json:"version"`
		Template      struct {
			Settings json.RawMessage `json:"settings"`
			Mappings json.RawMessage `json:"mappings"`
		} `json:"template"`
	}
	what := "index template [" + rq.target + "]"
	if err := strictDecode(rq.body, &body, what); err != nil {
		return 0, nil, err
	}
	t := &template{body: bytes.Clone(rq.body), priority: body.Priority, mapping: newMapping()}
	if json.Unmarshal(body.IndexPatterns, &t.patterns) != nil {
		var one string
		if json.Unmarshal(body.IndexPatterns, &one) != nil || one == "" {
			return 0, nil, badRequest("action_request_validation_exception", "Validation Failed: 1: index patterns are missing;")
		}
		t.patterns = []string{one}
	}
	if len(body.Template.Mappings) > 0 {
		if err := t.mapping.parse(body.Template.Mappings, what); err != nil {
			return 0, nil, err
		}
	}
	ts.templates[rq.target] = t
	return http.StatusOK, map[string]bool{"acknowledged": true}, nil
}

// newIndex creates an index with the mapping of the highest-priority
// template whose patterns match its name.
func (ts *TestServer) newIndex(name string) *index {
	var best *template
	for _, n := range slices.Sorted(maps.Keys(ts.templates)) {
		t := ts.templates[n]
		if slices.ContainsFunc(t.patterns, func(p string) bool { ok, _ := path.Match(p, name); return ok }) &&
			(best == nil || t.priority > best.priority) {
			best = t
		}
	}
	m := newMapping()
	if best != nil {
		m.types, m.disabled, m.dynamic = maps.Clone(best.mapping.types), maps.Clone(best.mapping.disabled), best.mapping.dynamic
		for k, v := range best.mapping.subfields {
			m.subfields[k] = slices.Clone(v)
		}
	}
	return &index{mapping: m, docs: map[string]*doc{}, visible: map[string]*doc{}}
}

func newMapping() *mapping {
	return &mapping{types: map[string]string{}, disabled: map[string]bool{}, subfields: map[string][]string{}}
}

// parse reads the "mappings" of a template: properties and dynamic
// templates.
func (m *mapping) parse(raw []byte, what string) *apiError {
	var def struct {
		Properties       map[string]json.RawMessage   `json:"properties"`
		DynamicTemplates []map[string]json.RawMessage `json:"dynamic_templates"`
	}
	if err := strictDecode(raw, &def, what+" mappings"); err != nil {
		return err
	}
	for _, entry := range def.DynamicTemplates {
		for name, raw := range entry {
			var dt dynamicTemplate
			if err := strictDecode(raw, &dt, what+" dynamic template ["+name+"]"); err != nil {
				return err
			}
			if !leafTypes[dt.Mapping.Type] {
				return notSupported("%s dynamic template [%s]: mapping type [%s] is not modelled", what, name, dt.Mapping.Type)
			}
			m.dynamic = append(m.dynamic, dt)
		}
	}
	return m.addProperties("", def.Properties, what)
}

func (m *mapping) addProperties(prefix string, props map[string]json.RawMessage, what string) *apiError {
	for name, raw := range props {
		p := joinPath(prefix, name)
		var def fieldDef
		if err := strictDecode(raw, &def, what+" field ["+p+"]"); err != nil {
			return err
		}
		if def.Type == "" && (def.Properties != nil || def.Enabled != nil) {
			def.Type = "object"
		}
		switch {
		case def.Type == "object":
			m.types[p] = "object"
			if def.Enabled != nil && !*def.Enabled {
				m.disabled[p] = true
			}
			if err := m.addProperties(p, def.Properties, what); err != nil {
				return err
			}
		case leafTypes[def.Type]:
			if err := m.addLeaf(p, def); err != nil {
				return err
			}
		default:
			return notSupported("%s field [%s]: type [%s] is not modelled", what, p, def.Type)
		}
	}
	return nil
}

// addLeaf maps a leaf field and its multi-fields.
func (m *mapping) addLeaf(p string, def fieldDef) *apiError {
	m.types[p] = def.Type
	for _, sub := range slices.Sorted(maps.Keys(def.Fields)) {
		if t := def.Fields[sub].Type; !leafTypes[t] {
			return notSupported("multi-field [%s.%s]: type [%s] is not modelled", p, sub, t)
		}
		m.types[p+"."+sub] = def.Fields[sub].Type
		m.subfields[p] = append(m.subfields[p], p+"."+sub)
	}
	return nil
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// dynamicDef is how a new leaf field is mapped: by the first dynamic
// template that matches, else as OpenSearch maps JSON types by default
// (strings that parse as dates are dates; other strings are text with a
// keyword sub-field).
func (m *mapping) dynamicDef(p string, v any) fieldDef {
	var jsonType string
	switch v := v.(type) {
	case bool:
		jsonType = "boolean"
	case json.Number:
		jsonType = "double"
		if _, err := v.Int64(); err == nil {
			jsonType = "long"
		}
	case string:
		jsonType = "string"
		if _, ok := parseDate(v); ok {
			jsonType = "date"
		}
	}
	name := p[strings.LastIndexByte(p, '.')+1:]
	for _, dt := range m.dynamic {
		if (dt.MatchMappingType == "" || dt.MatchMappingType == "*" || dt.MatchMappingType == jsonType) &&
			(dt.Match == "" || wildcard(dt.Match, name)) && (dt.PathMatch == "" || wildcard(dt.PathMatch, p)) {
			return dt.Mapping
		}
	}
	switch jsonType {
	case "string":
		return fieldDef{Type: "text", Fields: map[string]fieldDef{"keyword": {Type: "keyword"}}}
	case "double":
		return fieldDef{Type: "float"}
	}
	return fieldDef{Type: jsonType}
}

func wildcard(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok
}

// dateLayouts are the forms of strict_date_optional_time the fake reads.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"}

// parseDate reads a date as epoch milliseconds, OpenSearch's resolution.
func parseDate(s string) (float64, bool) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return float64(t.UnixMilli()), true
		}
	}
	return 0, false
}

// convert turns a JSON leaf value into what a field of type typ indexes,
// as OpenSearch coerces it (numeric strings into numbers, numbers into
// keywords); ok is false when OpenSearch would refuse it.
func convert(typ string, v any) (out []any, ok bool) {
	str, isStr := v.(string)
	num, isNum := v.(json.Number)
	b, isBool := v.(bool)
	switch typ {
	case "keyword", "text":
		s := str
		switch {
		case isNum:
			s = num.String()
		case isBool:
			s = strconv.FormatBool(b)
		}
		if typ == "keyword" {
			return []any{s}, true
		}
		for _, tok := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			out = append(out, tok)
		}
		return out, true
	case "date":
		if isNum {
			f, err := num.Float64()
			return []any{f}, err == nil
		}
		f, ok := parseDate(str)
		return []any{f}, isStr && ok
	case "boolean":
		if isStr && (str == "true" || str == "false") {
			return []any{str == "true"}, true
		}
		return []any{b}, isBool
	}
	if isNum {
		str, isStr = num.String(), true
	}
	f, err := strconv.ParseFloat(str, 64)
	return []any{f}, isStr && err == nil
}

// index parses a document's source and indexes its fields, mapping new
// ones as dynamic mapping does; the mapping changes only when the whole
// document is accepted.
func (m *mapping) index(id string, source []byte) (*doc, *apiError) {
	dec := json.NewDecoder(bytes.NewReader(source))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("data after the document")
		}
	}
	obj, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, badRequest("mapper_parsing_exception", "failed to parse document with id '%s': not one JSON object", id)
	}
	w := &walker{m: m, id: id, fields: map[string][]any{}}
	if err := w.walk("", obj); err != nil {
		for _, p := range w.added {
			delete(m.types, p)
			delete(m.subfields, p)
		}
		return nil, err
	}
	return &doc{source: bytes.Clone(source), fields: w.fields}, nil
}

// walker indexes one document.
type walker struct {
	m      *mapping
	id     string
	fields map[string][]any
	added  []string // fields mapped by this document
}

func (w *walker) mapType(p, typ string) {
	w.m.types[p] = typ
	w.added = append(w.added, p)
}

func (w *walker) walk(p string, v any) *apiError {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		for _, e := range v {
			if err := w.walk(p, e); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if p != "" {
			switch w.m.types[p] {
			case "":
				w.mapType(p, "object")
			case "object":
			default:
				return badRequest("mapper_parsing_exception", "failed to parse field [%s] of type [%s] in document with id '%s': found an object", p, w.m.types[p], w.id)
			}
			if w.m.disabled[p] {
				return nil
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := w.walk(joinPath(p, k), v[k]); err != nil {
				return err
			}
		}
		return nil
	}
	typ := w.m.types[p]
	switch typ {
	case "object":
		return badRequest("mapper_parsing_exception", "object mapping for [%s] tried to parse field [%s] as object, but found a concrete value", p, p)
	case "":
		def := w.m.dynamicDef(p, v)
		typ = def.Type
		_ = w.m.addLeaf(p, def) // dynamicDef gives leaf types only
		w.added = append(w.added, p)
		for _, sub := range w.m.subfields[p] {
			w.added = append(w.added, sub)
		}
	}
	vals, ok := convert(typ, v)
	if !ok {
		return badRequest("mapper_parsing_exception", "failed to parse field [%s] of type [%s] in document with id '%s'", p, typ, w.id)
	}
	w.fields[p] = append(w.fields[p], vals...)
	for _, sub := range w.m.subfields[p] {
		vals, ok := convert(w.m.types[sub], v)
		if !ok {
			return badRequest("mapper_parsing_exception", "failed to parse field [%s] of type [%s] in document with id '%s'", sub, w.m.types[sub], w.id)
		}
		w.fields[sub] = append(w.fields[sub], vals...)
	}
	return nil
}
