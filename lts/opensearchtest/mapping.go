package opensearchtest

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A mapping decides how each _source value is indexed, and so what term,
// range and sort see. Modelling it is what lets the server tell a client that
// sorts on a dynamically mapped text field, or that term-queries one with a
// mixed-case value, the same thing a real cluster would.

// valueKind is how indexed values of a field compare.
type valueKind uint8

const (
	kindString valueKind = iota // keyword-like: exact terms, byte order
	kindText                    // analyzed: a set of lower-cased tokens
	kindInt                     // integral numbers
	kindFloat                   // floating-point numbers
	kindDate                    // epoch milliseconds
	kindBool                    // 0 or 1
	kindObject                  // not a leaf
)

// fieldDef is one mapped field, keyed in a mapping by its full dotted path.
type fieldDef struct {
	typ         string
	format      string // date formats joined by "||"
	ignoreAbove int    // keyword: longer values are not indexed; 0 = none
	dynamic     string // object: "true", "false", "strict"; "" inherits
	enabled     bool   // object: false keeps values out of the index
	multiOf     string // multi-field: path of the field it belongs to
	params      map[string]any
}

func (d *fieldDef) kind() valueKind {
	switch d.typ {
	case "keyword", "ip", "wildcard", "constant_keyword", "flat_object", "version":
		return kindString
	case "text", "match_only_text":
		return kindText
	case "long", "integer", "short", "byte", "unsigned_long":
		return kindInt
	case "double", "float", "half_float", "scaled_float":
		return kindFloat
	case "date", "date_nanos":
		return kindDate
	case "boolean":
		return kindBool
	default:
		return kindObject
	}
}

var knownFieldTypes = map[string]bool{
	"keyword": true, "ip": true, "wildcard": true, "constant_keyword": true, "flat_object": true, "version": true,
	"text": true, "match_only_text": true,
	"long": true, "integer": true, "short": true, "byte": true, "unsigned_long": true,
	"double": true, "float": true, "half_float": true, "scaled_float": true,
	"date": true, "date_nanos": true, "boolean": true, "object": true, "nested": true,
}

// knownFieldParams are the mapping parameters accepted (and otherwise
// ignored) on a field; anything else is rejected as OpenSearch does.
var knownFieldParams = map[string]bool{
	"type": true, "index": true, "doc_values": true, "store": true, "ignore_above": true, "null_value": true,
	"format": true, "fields": true, "copy_to": true, "boost": true, "coerce": true, "ignore_malformed": true,
	"normalizer": true, "analyzer": true, "search_analyzer": true, "search_quote_analyzer": true,
	"scaling_factor": true, "properties": true, "dynamic": true, "enabled": true, "norms": true,
	"similarity": true, "eager_global_ordinals": true, "fielddata": true, "meta": true, "locale": true,
	"position_increment_gap": true, "index_options": true, "term_vector": true, "split_queries_on_whitespace": true,
	"index_phrases": true, "index_prefixes": true, "value": true,
}

const defaultDateFormat = "strict_date_optional_time||epoch_millis"

// mapping is an index's mapping with its fields flattened to dotted paths.
type mapping struct {
	fields             map[string]*fieldDef
	dynamic            string
	dateDetection      bool
	numericDetection   bool
	dynamicDateFormats []string
	dynamicTemplates   []dynamicTemplate
	meta               *jv
	multiCache         map[string][]string // path -> its multi-fields; nil when stale
}

// setField adds or replaces one field definition.
func (m *mapping) setField(path string, d *fieldDef) {
	m.fields[path] = d
	m.multiCache = nil
}

type dynamicTemplate struct {
	name             string
	matchMappingType string
	match, unmatch   string
	pathMatch        string
	pathUnmatch      string
	regex            bool
	mapping          *jv
}

func newMapping() *mapping {
	return &mapping{
		fields:             map[string]*fieldDef{},
		dynamic:            "true",
		dateDetection:      true,
		dynamicDateFormats: []string{"strict_date_optional_time", "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z"},
	}
}

func errMapperParsing(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, "mapper_parsing_exception", format, args...)
}

// wrapMappingError renders a mapping definition problem the way index
// creation reports it.
func wrapMappingError(e *apiError) *apiError {
	return errMapperParsing("Failed to parse mapping [_doc]: %s", e.reason).because(e)
}

// applyMappingJSON merges a mapping definition into m; later definitions win
// field by field, as an explicit create-index mapping wins over a template's.
func (m *mapping) apply(def *jv) *apiError {
	if def == nil || def.kind == jNull {
		return nil
	}
	if def.kind != jObject {
		return errMapperParsing("Expected map for property [mappings] on field [_doc] but got a class java.lang.String")
	}
	// A single "_doc" key wraps the mapping, as in 6.x-style requests.
	if len(def.obj) == 1 && def.obj[0].key == "_doc" && def.obj[0].val.kind == jObject {
		def = def.obj[0].val
	}
	var unsupported []string
	for _, mem := range def.obj {
		v := mem.val
		switch mem.key {
		case "properties":
			if v.kind != jObject {
				return errMapperParsing("Expected map for property [properties] on field [_doc] but got a %s", javaClass(v))
			}
			if err := m.addProperties("", v); err != nil {
				return err
			}
		case "dynamic":
			d, err := dynamicSetting(v)
			if err != nil {
				return err
			}
			m.dynamic = d
		case "date_detection":
			m.dateDetection = truthy(v)
		case "numeric_detection":
			m.numericDetection = truthy(v)
		case "dynamic_date_formats":
			m.dynamicDateFormats = nil
			for _, f := range listOf(v) {
				if err := checkDateFormat(f.text()); err != nil {
					return err
				}
				m.dynamicDateFormats = append(m.dynamicDateFormats, f.text())
			}
		case "dynamic_templates":
			if err := m.addDynamicTemplates(v); err != nil {
				return err
			}
		case "_meta":
			m.meta = v
		case "_source", "_routing", "_field_names", "runtime", "_all":
			// accepted; nothing here depends on them
		default:
			unsupported = append(unsupported, mem.key+" : "+v.text())
		}
	}
	if len(unsupported) > 0 {
		return errMapperParsing("Root mapping definition has unsupported parameters:  [%s]", strings.Join(unsupported, "] ["))
	}
	return nil
}

func javaClass(v *jv) string {
	switch v.kind {
	case jString:
		return "class java.lang.String"
	case jNumber:
		return "class java.lang.Integer"
	case jBool:
		return "class java.lang.Boolean"
	case jArray:
		return "class java.util.ArrayList"
	}
	return "null"
}

func truthy(v *jv) bool {
	return (v.kind == jBool && v.b) || (v.kind == jString && v.s == "true")
}

func listOf(v *jv) []*jv {
	if v.kind == jArray {
		return v.arr
	}
	return []*jv{v}
}

func dynamicSetting(v *jv) (string, *apiError) {
	switch s := v.text(); s {
	case "true", "false", "strict", "strict_allow_templates", "false_allow_templates":
		return s, nil
	default:
		return "", errMapperParsing("Could not convert [dynamic] to boolean")
	}
}

func (m *mapping) addProperties(prefix string, props *jv) *apiError {
	for _, mem := range props.obj {
		if mem.key == "" || strings.HasPrefix(mem.key, ".") || strings.HasSuffix(mem.key, ".") {
			return errIllegalArgument("field name cannot be an empty string")
		}
		path := joinPath(prefix, mem.key)
		// A dotted name stands for nested objects.
		segs := strings.Split(mem.key, ".")
		p := prefix
		for _, s := range segs[:len(segs)-1] {
			p = joinPath(p, s)
			if _, ok := m.fields[p]; !ok {
				m.setField(p, &fieldDef{typ: "object", enabled: true})
			}
		}
		if mem.val.kind != jObject {
			return errMapperParsing("Expected map for property [fields] on field [%s] but got a %s", mem.key, javaClass(mem.val))
		}
		if err := m.addField(path, mem.key, mem.val); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapping) addField(path, name string, def *jv) *apiError {
	typ := "object"
	if t := def.get("type"); t != nil {
		typ = t.text()
	}
	if !knownFieldTypes[typ] {
		return errMapperParsing("No handler for type [%s] declared on field [%s]", typ, name)
	}
	fd := &fieldDef{typ: typ, enabled: true, params: map[string]any{}}
	if fd.kind() == kindDate {
		fd.format = defaultDateFormat
	}
	for _, mem := range def.obj {
		v := mem.val
		if !knownFieldParams[mem.key] {
			return errMapperParsing("unknown parameter [%s] on mapper [%s] of type [%s]", mem.key, name, typ)
		}
		switch mem.key {
		case "type", "properties", "fields":
		case "format":
			if err := checkDateFormat(v.text()); err != nil {
				return err
			}
			fd.format = v.text()
		case "ignore_above":
			n, err := strconv.Atoi(v.text())
			if err != nil {
				return errMapperParsing("Failed to parse value [%s] for parameter [ignore_above] on field [%s]", v.text(), name)
			}
			fd.ignoreAbove = n
		case "dynamic":
			d, err := dynamicSetting(v)
			if err != nil {
				return err
			}
			fd.dynamic = d
		case "enabled":
			fd.enabled = truthy(v)
		default:
			fd.params[mem.key] = v.goValue()
		}
	}
	if old, ok := m.fields[path]; ok && old.typ != typ && !(old.kind() == kindObject && fd.kind() == kindObject) {
		// Later definitions (an explicit create over a template) replace earlier ones.
		m.removeUnder(path)
	}
	m.setField(path, fd)
	if props := def.get("properties"); props != nil {
		if fd.kind() != kindObject {
			return errMapperParsing("unknown parameter [properties] on mapper [%s] of type [%s]", name, typ)
		}
		if err := m.addProperties(path, props); err != nil {
			return err
		}
	}
	if fields := def.get("fields"); fields != nil {
		for _, sub := range fields.obj {
			subType := "object"
			if t := sub.val.get("type"); t != nil {
				subType = t.text()
			}
			if !knownFieldTypes[subType] || subType == "object" || subType == "nested" {
				return errMapperParsing("No handler for type [%s] declared on field [%s]", subType, sub.key)
			}
			if err := m.addField(path+"."+sub.key, sub.key, sub.val); err != nil {
				return err
			}
			m.fields[path+"."+sub.key].multiOf = path
			m.multiCache = nil
		}
	}
	return nil
}

func (m *mapping) removeUnder(path string) {
	m.multiCache = nil
	for p := range m.fields {
		if p == path || strings.HasPrefix(p, path+".") {
			delete(m.fields, p)
		}
	}
}

func (m *mapping) addDynamicTemplates(v *jv) *apiError {
	if v.kind != jArray {
		return errMapperParsing("Dynamic template syntax error. An array of named objects is expected.")
	}
	for _, e := range v.arr {
		if e.kind != jObject || len(e.obj) != 1 || e.obj[0].val.kind != jObject {
			return errMapperParsing("Dynamic template syntax error. An array of named objects is expected.")
		}
		body := e.obj[0].val
		dt := dynamicTemplate{name: e.obj[0].key}
		for _, mem := range body.obj {
			switch mem.key {
			case "match_mapping_type":
				dt.matchMappingType = mem.val.text()
			case "match":
				dt.match = mem.val.text()
			case "unmatch":
				dt.unmatch = mem.val.text()
			case "path_match":
				dt.pathMatch = mem.val.text()
			case "path_unmatch":
				dt.pathUnmatch = mem.val.text()
			case "match_pattern":
				dt.regex = mem.val.text() == "regex"
			case "mapping":
				dt.mapping = mem.val
			default:
				return errMapperParsing("Illegal dynamic template parameter: [%s]", mem.key)
			}
		}
		if dt.mapping == nil {
			return errMapperParsing("template must have a mapping set")
		}
		switch dt.matchMappingType {
		case "", "*", "string", "long", "double", "boolean", "date", "object":
		default:
			return errMapperParsing("No field type matched on [%s], possible values are [object, string, long, double, boolean, date, binary]", dt.matchMappingType)
		}
		m.dynamicTemplates = append(m.dynamicTemplates, dt)
	}
	return nil
}

func (dt dynamicTemplate) matches(path, name, mappingType string) bool {
	if dt.matchMappingType != "" && dt.matchMappingType != "*" && dt.matchMappingType != mappingType {
		return false
	}
	match := func(pattern, s string) bool {
		if dt.regex {
			re, err := regexp.Compile("^(?:" + pattern + ")$")
			return err == nil && re.MatchString(s)
		}
		return simpleMatch(pattern, s)
	}
	if dt.match != "" && !match(dt.match, name) {
		return false
	}
	if dt.unmatch != "" && match(dt.unmatch, name) {
		return false
	}
	if dt.pathMatch != "" && !match(dt.pathMatch, path) {
		return false
	}
	if dt.pathUnmatch != "" && match(dt.pathUnmatch, path) {
		return false
	}
	return true
}

// simpleMatch is OpenSearch's Regex.simpleMatch: '*' matches any run of
// characters, nothing else is special.
func simpleMatch(pattern, s string) bool {
	if pattern == "*" {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, part := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(s, part)
		}
		j := strings.Index(s, part)
		if j < 0 {
			return false
		}
		s = s[j+len(part):]
	}
	return true
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// effectiveDynamic is the dynamic setting governing new fields under parent.
func (m *mapping) effectiveDynamic(parent string) string {
	for p := parent; p != ""; {
		if d := m.fields[p]; d != nil && d.dynamic != "" {
			return d.dynamic
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return m.dynamic
}

// multiFields lists the multi-fields of path.
func (m *mapping) multiFields(path string) []string {
	if m.multiCache == nil {
		m.multiCache = map[string][]string{}
		for p, d := range m.fields {
			if d.multiOf != "" {
				m.multiCache[d.multiOf] = append(m.multiCache[d.multiOf], p)
			}
		}
		for _, l := range m.multiCache {
			slices.Sort(l)
		}
	}
	return m.multiCache[path]
}

// flatFields returns the mapping as path -> type, for introspection.
func (m *mapping) flatFields() map[string]string {
	out := make(map[string]string, len(m.fields))
	for p, d := range m.fields {
		out[p] = d.typ
	}
	return out
}

// render rebuilds the nested mapping JSON that GET _mapping shows.
func (m *mapping) render() map[string]any {
	root := map[string]any{}
	if m.dynamic != "true" {
		root["dynamic"] = m.dynamic
	}
	paths := make([]string, 0, len(m.fields))
	for p := range m.fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	nodes := map[string]map[string]any{}
	for _, p := range paths {
		d := m.fields[p]
		node := map[string]any{}
		for k, v := range d.params {
			node[k] = v
		}
		if d.typ != "object" {
			node["type"] = d.typ
		}
		if d.format != "" && d.format != defaultDateFormat {
			node["format"] = d.format
		}
		if d.ignoreAbove > 0 {
			node["ignore_above"] = d.ignoreAbove
		}
		if d.dynamic != "" {
			node["dynamic"] = d.dynamic
		}
		if !d.enabled {
			node["enabled"] = false
		}
		nodes[p] = node
		parent, name := root, p
		if i := strings.LastIndexByte(p, '.'); i >= 0 {
			pp := p[:i]
			name = p[i+1:]
			if pn, ok := nodes[pp]; ok {
				parent = pn
			}
		}
		key := "properties"
		if d.multiOf != "" {
			key = "fields"
		}
		sub, _ := parent[key].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
			parent[key] = sub
		}
		sub[name] = node
	}
	if m.meta != nil {
		root["_meta"] = m.meta.goValue()
	}
	return root
}

// ival is one indexed value of a field.
type ival struct {
	s    string // kindString term; kindText original text
	toks []string
	i    int64   // kindInt, kindDate (epoch ms), kindBool
	f    float64 // kindFloat
}

// docIndexer turns one _source into indexed field values, adding fields to
// the mapping as dynamic mapping would, but only once the whole document has
// been accepted.
type docIndexer struct {
	m       *mapping
	id      string
	added   map[string]*fieldDef
	fields  map[string][]ival
	present map[string]bool // every path holding a non-null value, objects included
}

func (m *mapping) index(id string, src *jv) (map[string][]ival, map[string]bool, map[string]*fieldDef, *apiError) {
	x := &docIndexer{m: m, id: id, added: map[string]*fieldDef{}, fields: map[string][]ival{}, present: map[string]bool{}}
	if err := x.object("", src); err != nil {
		return nil, nil, nil, err
	}
	return x.fields, x.present, x.added, nil
}

func (x *docIndexer) lookup(path string) *fieldDef {
	if d, ok := x.added[path]; ok {
		return d
	}
	return x.m.fields[path]
}

func (x *docIndexer) object(prefix string, obj *jv) *apiError {
	for _, mem := range obj.obj {
		key := mem.key
		if key == "" || strings.Trim(key, ".") == "" {
			return errMapperParsing("field name cannot be an empty string")
		}
		if strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
			return errIllegalArgument("object field starting or ending with a [.] makes object resolution ambiguous: [%s]", key)
		}
		if prefix == "" && strings.HasPrefix(key, "_") && isMetadataField(key) {
			return errMapperParsing("Field [%s] is a metadata field and cannot be added inside a document. Use the index API request parameters.", key)
		}
		// "a.b": 1 is the same as "a": {"b": 1}.
		segs := strings.Split(key, ".")
		p := prefix
		for _, s := range segs[:len(segs)-1] {
			p = joinPath(p, s)
			d, err := x.ensureObject(p, s)
			if err != nil {
				return err
			}
			if d == nil || !d.enabled {
				p = ""
				break
			}
		}
		if p == "" && len(segs) > 1 {
			continue
		}
		if err := x.value(joinPath(p, segs[len(segs)-1]), segs[len(segs)-1], mem.val); err != nil {
			return err
		}
	}
	return nil
}

func isMetadataField(k string) bool {
	switch k {
	case "_id", "_index", "_source", "_routing", "_version", "_seq_no", "_primary_term", "_field_names", "_ignored", "_type", "_doc_count", "_data_stream_timestamp":
		return true
	}
	return false
}

// ensureObject returns the object mapper at path, creating it dynamically;
// nil means the value is to be ignored (dynamic: false).
func (x *docIndexer) ensureObject(path, name string) (*fieldDef, *apiError) {
	d := x.lookup(path)
	if d != nil {
		if d.kind() != kindObject && d.typ != "flat_object" {
			return nil, errMapperParsing("Could not dynamically add mapping for field [%s]. Existing mapping for [%s] must be of type object but found [%s].", path, path, d.typ)
		}
		return d, nil
	}
	nd, err := x.dynamicField(path, name, "object", nil)
	if err != nil || nd == nil {
		return nil, err
	}
	return nd, nil
}

// dynamicField maps a new field, honouring dynamic settings and templates.
func (x *docIndexer) dynamicField(path, name, mappingType string, v *jv) (*fieldDef, *apiError) {
	parent := ""
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent = path[:i]
	}
	switch x.m.effectiveDynamic(parent) {
	case "false", "false_allow_templates":
		return nil, nil
	case "strict", "strict_allow_templates":
		within := parent
		if within == "" {
			within = "_doc"
		}
		return nil, newError(http.StatusBadRequest, "strict_dynamic_mapping_exception",
			"mapping set to strict, dynamic introduction of [%s] within [%s] is not allowed", name, within)
	}
	defaultType := map[string]string{"string": "text", "long": "long", "double": "float", "boolean": "boolean", "date": "date", "object": "object"}[mappingType]
	for _, dt := range x.m.dynamicTemplates {
		if !dt.matches(path, name, mappingType) {
			continue
		}
		tmp := newMapping()
		def := substituteDynamicType(dt.mapping, defaultType)
		if def.get("type") == nil {
			def.obj = append(def.obj, jmember{key: "type", val: &jv{kind: jString, s: defaultType}})
		}
		if err := tmp.addField(path, name, def); err != nil {
			return nil, err
		}
		for p, d := range tmp.fields {
			x.added[p] = d
		}
		return x.added[path], nil
	}
	d := &fieldDef{typ: defaultType, enabled: true, params: map[string]any{}}
	if defaultType == "date" {
		d.format = strings.Join(x.m.dynamicDateFormats, "||")
	}
	x.added[path] = d
	if defaultType == "text" {
		x.added[path+".keyword"] = &fieldDef{typ: "keyword", ignoreAbove: 256, multiOf: path, enabled: true, params: map[string]any{}}
	}
	return d, nil
}

// substituteDynamicType copies a template mapping with {dynamic_type}
// replaced.
func substituteDynamicType(v *jv, dynType string) *jv {
	c := *v
	switch v.kind {
	case jString:
		c.s = strings.ReplaceAll(v.s, "{dynamic_type}", dynType)
	case jObject:
		c.obj = make([]jmember, len(v.obj))
		for i, m := range v.obj {
			c.obj[i] = jmember{key: m.key, line: m.line, col: m.col, val: substituteDynamicType(m.val, dynType)}
		}
	case jArray:
		c.arr = make([]*jv, len(v.arr))
		for i, e := range v.arr {
			c.arr[i] = substituteDynamicType(e, dynType)
		}
	}
	return &c
}

func (x *docIndexer) value(path, name string, v *jv) *apiError {
	switch v.kind {
	case jNull:
		return nil
	case jArray:
		for _, e := range v.arr {
			if err := x.value(path, name, e); err != nil {
				return err
			}
		}
		return nil
	case jObject:
		d := x.lookup(path)
		if d != nil && d.typ == "flat_object" {
			return x.flatObject(path, path, v)
		}
		d, err := x.ensureObject(path, name)
		if err != nil || d == nil {
			return err
		}
		if !d.enabled {
			return nil
		}
		return x.object(path, v)
	}
	d := x.lookup(path)
	if d == nil {
		var err *apiError
		if d, err = x.dynamicField(path, name, x.detect(v), v); err != nil || d == nil {
			return err
		}
	}
	if d.kind() == kindObject {
		return errMapperParsing("object mapping for [%s] tried to parse field [%s] as object, but found a concrete value", path, name)
	}
	iv, skip, err := convertValue(d, v)
	if err != nil {
		return errMapperParsing("failed to parse field [%s] of type [%s] in document with id '%s'. Preview of field's value: '%s'", path, d.typ, x.id, v.text()).because(err)
	}
	x.markPresent(path)
	if !skip {
		x.fields[path] = append(x.fields[path], iv)
	}
	for _, mf := range x.m.multiFields(path) {
		x.multiValue(mf, x.m.fields[mf], v)
	}
	for p, md := range x.added {
		if md.multiOf == path {
			x.multiValue(p, md, v)
		}
	}
	return nil
}

// multiValue indexes v into a multi-field; a value the multi-field cannot
// take is skipped there, as ignore_malformed would.
func (x *docIndexer) multiValue(path string, d *fieldDef, v *jv) {
	if iv, skip, err := convertValue(d, v); err == nil && !skip {
		x.fields[path] = append(x.fields[path], iv)
		x.present[path] = true
	}
}

// markPresent records that path, and every object above it, holds a value;
// exists queries on objects look at this.
func (x *docIndexer) markPresent(path string) {
	for {
		if x.present[path] {
			return
		}
		x.present[path] = true
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return
		}
		path = path[:i]
	}
}

// flatObject indexes every leaf of a flat_object field as a keyword, both at
// its own dotted path and at the field itself.
func (x *docIndexer) flatObject(root, path string, v *jv) *apiError {
	switch v.kind {
	case jObject:
		for _, m := range v.obj {
			if err := x.flatObject(root, path+"."+m.key, m.val); err != nil {
				return err
			}
		}
	case jArray:
		for _, e := range v.arr {
			if err := x.flatObject(root, path, e); err != nil {
				return err
			}
		}
	case jNull:
	default:
		iv := ival{s: v.text()}
		x.fields[root] = append(x.fields[root], iv)
		x.markPresent(path)
		if path != root {
			x.fields[path] = append(x.fields[path], iv)
		}
	}
	return nil
}

// detect is the dynamic-mapping type of a new value.
func (x *docIndexer) detect(v *jv) string {
	switch v.kind {
	case jBool:
		return "boolean"
	case jNumber:
		if v.isFloat() {
			return "double"
		}
		return "long"
	case jString:
		if x.m.dateDetection {
			for _, f := range x.m.dynamicDateFormats {
				if _, err := parseDate(v.s, f); err == nil {
					return "date"
				}
			}
		}
		if x.m.numericDetection {
			if _, err := strconv.ParseInt(v.s, 10, 64); err == nil {
				return "long"
			}
			if _, err := strconv.ParseFloat(v.s, 64); err == nil {
				return "double"
			}
		}
		return "string"
	}
	return "object"
}

// convertValue indexes one scalar as field d does; skip means the value is
// valid but not indexed (ignore_above).
func convertValue(d *fieldDef, v *jv) (ival, bool, *apiError) {
	if v.kind == jObject || v.kind == jArray {
		return ival{}, false, errIllegalArgument("Can't parse [%s] as a value of type [%s]", v.text(), d.typ)
	}
	switch d.kind() {
	case kindString:
		s := v.text()
		if d.ignoreAbove > 0 && len([]rune(s)) > d.ignoreAbove {
			return ival{}, true, nil
		}
		return ival{s: s}, false, nil
	case kindText:
		return ival{s: v.text(), toks: analyze(v.text())}, false, nil
	case kindInt:
		n, err := parseIntValue(d.typ, v)
		return ival{i: n}, false, err
	case kindFloat:
		f, err := parseFloatValue(d.typ, v)
		return ival{f: f}, false, err
	case kindDate:
		ms, err := parseDateValue(d, v)
		return ival{i: ms}, false, err
	case kindBool:
		b, err := parseBoolValue(v)
		return ival{i: b}, false, err
	}
	return ival{}, false, errIllegalArgument("cannot index a value into [%s]", d.typ)
}

var intRanges = map[string][2]float64{
	"long":          {math.MinInt64, math.MaxInt64},
	"integer":       {math.MinInt32, math.MaxInt32},
	"short":         {math.MinInt16, math.MaxInt16},
	"byte":          {math.MinInt8, math.MaxInt8},
	"unsigned_long": {0, math.MaxInt64},
}

func parseIntValue(typ string, v *jv) (int64, *apiError) {
	var s string
	switch v.kind {
	case jNumber, jString:
		s = strings.TrimSpace(v.s)
	default:
		return 0, errIllegalArgument("Current token (%s) not numeric, can not use numeric value accessors", v.token())
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		r := intRanges[typ]
		if float64(n) < r[0] || float64(n) > r[1] {
			return 0, errIllegalArgument("Value [%s] is out of range for %s", s, javaTypeName(typ))
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", s)
	}
	r := intRanges[typ]
	if f < r[0] || f > r[1] {
		return 0, errIllegalArgument("Value [%s] is out of range for %s", s, javaTypeName(typ))
	}
	return int64(f), nil // coerce truncates, as OpenSearch does by default
}

func javaTypeName(typ string) string {
	switch typ {
	case "integer":
		return "an integer"
	case "short":
		return "a short"
	case "byte":
		return "a byte"
	case "unsigned_long":
		return "an unsigned long"
	}
	return "a long"
}

func parseFloatValue(typ string, v *jv) (float64, *apiError) {
	if v.kind != jNumber && v.kind != jString {
		return 0, errIllegalArgument("Current token (%s) not numeric, can not use numeric value accessors", v.token())
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
	if err != nil {
		return 0, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", v.s)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errIllegalArgument("[%s] supports only finite values, but got [%s]", typ, v.s)
	}
	return roundFloat(typ, f), nil
}

// roundFloat stores a value at the precision of its field type, which is
// what range, sort and sort values then see.
func roundFloat(typ string, f float64) float64 {
	if typ == "float" || typ == "half_float" {
		return float64(float32(f))
	}
	return f
}

func parseBoolValue(v *jv) (int64, *apiError) {
	switch {
	case v.kind == jBool && v.b, v.kind == jString && v.s == "true":
		return 1, nil
	case v.kind == jBool, v.kind == jString && (v.s == "false" || v.s == ""):
		return 0, nil
	}
	return 0, errIllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", v.text())
}

func parseDateValue(d *fieldDef, v *jv) (int64, *apiError) {
	format := d.format
	if format == "" {
		format = defaultDateFormat
	}
	if v.kind == jNumber {
		// Numbers are epoch milliseconds whatever the format says.
		f, err := strconv.ParseFloat(v.s, 64)
		if err == nil {
			return int64(f), nil
		}
	}
	if v.kind != jString && v.kind != jNumber {
		return 0, errIllegalArgument("failed to parse date field [%s] with format [%s]", v.text(), format)
	}
	t, err := parseDate(v.s, format)
	if err != nil {
		return 0, errIllegalArgument("failed to parse date field [%s] with format [%s]", v.s, format).
			because(newError(http.StatusBadRequest, "date_time_parse_exception", "Failed to parse with all enclosed parsers"))
	}
	return t, nil
}

var isoDateRE = regexp.MustCompile(`^([+-]?\d{4,9})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$`)

// parseDate parses s with an OpenSearch date format list ("a||b"), giving
// epoch milliseconds.
func parseDate(s, formats string) (int64, error) {
	for _, f := range strings.Split(formats, "||") {
		if ms, ok := parseDateWith(s, strings.TrimSpace(f)); ok {
			return ms, nil
		}
	}
	return 0, fmt.Errorf("failed to parse date field [%s] with format [%s]", s, formats)
}

func parseDateWith(s, format string) (int64, bool) {
	switch format {
	case "strict_date_optional_time", "date_optional_time", "strict_date_optional_time_nanos":
		return parseISODate(s, false)
	case "strict_date_time", "date_time":
		return parseISODate(s, true)
	case "strict_date_time_no_millis", "date_time_no_millis":
		if strings.ContainsAny(s, ".,") {
			return 0, false
		}
		return parseISODate(s, true)
	case "strict_date", "date", "yyyy-MM-dd":
		if len(s) != 10 {
			return 0, false
		}
		return parseISODate(s, false)
	case "epoch_millis":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "eE") {
			return 0, false
		}
		return int64(f), true
	case "epoch_second":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "eE") {
			return 0, false
		}
		return int64(f * 1000), true
	}
	layout, ok := javaPatternLayout(format)
	if !ok {
		return 0, false
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

func parseISODate(s string, full bool) (int64, bool) {
	m := isoDateRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	if full && (m[4] == "" || m[5] == "" || m[6] == "" || m[8] == "") {
		return 0, false
	}
	atoi := func(x string, def int) int {
		if x == "" {
			return def
		}
		n, _ := strconv.Atoi(x)
		return n
	}
	year := atoi(m[1], 0)
	month, day := atoi(m[2], 1), atoi(m[3], 1)
	hour, minute, sec := atoi(m[4], 0), atoi(m[5], 0), atoi(m[6], 0)
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	nanos := 0
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		nanos = atoi(frac, 0)
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		h := atoi(digits[:2], 0)
		mm := 0
		if len(digits) >= 4 {
			mm = atoi(digits[2:4], 0)
		}
		loc = time.FixedZone("", sign*(h*3600+mm*60))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc)
	if t.Day() != day { // e.g. February 30th
		return 0, false
	}
	return t.UnixMilli(), true
}

// javaPatternLayout converts the few java.time patterns a mapping is likely to
// use into a Go layout.
func javaPatternLayout(p string) (string, bool) {
	repl := []struct{ java, goLayout string }{
		{"yyyy", "2006"}, {"uuuu", "2006"}, {"MM", "01"}, {"dd", "02"}, {"HH", "15"}, {"mm", "04"},
		{"ss", "05"}, {"SSS", "000"}, {"XXX", "Z07:00"}, {"ZZ", "-07:00"}, {"Z", "-0700"}, {"'T'", "T"},
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		matched := false
		for _, r := range repl {
			if strings.HasPrefix(p[i:], r.java) {
				b.WriteString(r.goLayout)
				i += len(r.java)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		c := p[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			return "", false
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), true
}

func checkDateFormat(formats string) *apiError {
	for _, f := range strings.Split(formats, "||") {
		f = strings.TrimSpace(f)
		switch f {
		case "strict_date_optional_time", "date_optional_time", "strict_date_optional_time_nanos", "strict_date_time",
			"date_time", "strict_date_time_no_millis", "date_time_no_millis", "strict_date", "date", "epoch_millis", "epoch_second":
			continue
		}
		if _, ok := javaPatternLayout(f); !ok {
			return errNotImplemented("opensearchtest: date format [%s] is not modelled", f)
		}
	}
	return nil
}

// analyze approximates the standard analyzer: Unicode letters, digits and
// underscores form tokens, everything else separates them, all lower-cased.
func analyze(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}
