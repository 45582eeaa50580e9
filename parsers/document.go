package parsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"gopkg.in/yaml.v3"
)

// JSON decodes one JSON document into v. Unknown fields are allowed (artifact
// files are supersets of what a reader needs); syntax errors name the line,
// type errors the line and the field path.
func JSON(name string, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &SyntaxError{File: name, Line: 1, Msg: "empty document"}
	}
	// The common case, a valid document, goes through the JSON v2 decoder
	// with encoding/json's semantics (case-insensitive names, duplicate
	// names and invalid UTF-8 allowed...), which decodes an artifact in
	// about 60% of the time. Anything it refuses is decoded again by
	// encoding/json itself, from scratch: the result (it keeps what it can
	// around a field of the wrong type) and the messages stay exactly
	// encoding/json's. FuzzJSONMatchesEncodingJSON holds the two together.
	if jsonv2.Unmarshal(data, v, jsonv1Semantics) == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	// Unmarshal, not a Decoder: a Decoder copies the document into buffers
	// it grows as it goes.
	if err := json.Unmarshal(data, v); err != nil {
		return jsonError(name, data, err)
	}
	return nil
}

// jsonv1Semantics makes the v2 decoder behave as encoding/json does.
var jsonv1Semantics = jsonv1.DefaultOptionsV1()

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func jsonError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && strings.HasSuffix(se.Error(), "after top-level value"):
		// Trailing content after the document: two documents concatenated,
		// or an old longer file rewritten in place. Offset is just past the
		// first byte of it.
		return &SyntaxError{File: name, Line: lineOf(data, se.Offset-1), Msg: "unexpected content after the JSON document"}
	case errors.As(err, &se) && se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "unexpected end of JSON input"):
		return &SyntaxError{File: name, Line: lineOf(data, int64(len(data))), Msg: "truncated JSON document"}
	case errors.As(err, &se):
		return &SyntaxError{File: name, Line: lineOf(data, se.Offset), Msg: strings.TrimPrefix(se.Error(), "json: ")}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(document)"
		}
		return &SyntaxError{File: name, Line: lineOf(data, te.Offset), Field: field,
			Msg: fmt.Sprintf("cannot use JSON %s as %s", te.Value, te.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &SyntaxError{File: name, Line: lineOf(data, int64(len(data))), Msg: "truncated JSON document"}
	default:
		// Errors of UnmarshalJSON methods (time.Time...) carry no position.
		return &SyntaxError{File: name, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
}

// yamlLine matches the yaml.v3 messages that carry a line: "yaml: line 3:
// msg" and "yaml: unmarshal errors:\n  line 3: msg" (first one kept).
var yamlLine = regexp.MustCompile(`^(?:yaml: )?(?:unmarshal errors:\n\s*)?line (\d+): ([^\n]*)`)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner). For those yaml.v3 reports a 0-based line, and none at all
// on the first line: YAMLError corrects it.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// YAML decodes one YAML document into v, naming the line of the first error.
func YAML(name string, data []byte, v any) error {
	if err := yaml.Unmarshal(data, v); err != nil {
		return YAMLError(name, data, err)
	}
	return nil
}

// YAMLError turns an error of yaml.v3 about data into a *SyntaxError with
// a 1-based line where one can be told.
func YAMLError(name string, data []byte, err error) *SyntaxError {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			line++
		}
		// At the end of the stream the line is the one after the final
		// newline: name the last line a user can see instead.
		last := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			last++
		}
		return &SyntaxError{File: name, Line: max(min(line, last), 1), Msg: m[2]}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if yamlParserProblems[msg] {
		return &SyntaxError{File: name, Line: 1, Msg: msg}
	}
	// The scanner reports bad bytes without a position: find them.
	line := 0
	if off, what := firstBadRune(data); off >= 0 {
		line, msg = lineOf(data, int64(off)), what
	}
	return &SyntaxError{File: name, Line: line, Msg: msg}
}

// firstBadRune returns the offset of the first byte YAML refuses (invalid
// UTF-8, or a control character YAML does not allow) and why, or -1.
func firstBadRune(data []byte) (int, string) {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return i, "not valid UTF-8 text"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f,
			r >= 0x80 && r < 0xa0 && r != 0x85, r == 0xfffe, r == 0xffff,
			r >= 0xd800 && r <= 0xdfff:
			return i, fmt.Sprintf("control character %U is not allowed in YAML", r)
		}
		i += size
	}
	return -1, ""
}

// SettingsLimit is the largest settings file Settings decodes (1 MiB). A
// settings file is a flat map of a few dozen values; anything bigger is not one.
const SettingsLimit = 1 << 20

// Settings decodes a settings.yaml file: a YAML mapping from setting names to
// values. An empty file is an empty mapping. Values keep their YAML types
// (512 is an int, "512" a string) so filters can compare them after decoding.
// Duplicate names, several documents, names that are not scalars and
// non-finite numbers (which JSON output could not hold) are errors naming the
// line.
func Settings(name string, data []byte) (map[string]any, error) {
	if len(data) > SettingsLimit {
		return nil, &SyntaxError{File: name, Msg: fmt.Sprintf("%d bytes, more than the %d a settings file may hold", len(data), SettingsLimit)}
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, YAMLError(name, data, err)
	}
	// Unmarshal reads the first document only: look for a second one when
	// a document marker may be there (rare, so the common case stays fast).
	if bytes.Contains(data, []byte("---")) || bytes.Contains(data, []byte("...")) {
		line, err := secondDocument(data)
		if err != nil {
			return nil, YAMLError(name, data, err)
		}
		if line > 0 {
			return nil, &SyntaxError{File: name, Line: line, Msg: "more than one YAML document; settings are one mapping"}
		}
	}
	if hasTime(v) {
		// yaml.v3 turns unquoted dates into time.Time: keep the text as
		// written (a date setting is a label, and JSON would reformat it).
		var err error
		if v, err = decodeTimesAsText(data); err != nil {
			return nil, YAMLError(name, data, err)
		}
	}
	var out map[string]any
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		out = m
	case map[any]any: // some names are numbers or booleans: use their text
		out = make(map[string]any, len(m))
		for k, val := range m {
			ks := fmt.Sprint(k)
			if _, dup := out[ks]; dup {
				return nil, &SyntaxError{File: name, Line: keyLine(data, ks), Field: ks, Msg: "setting defined twice"}
			}
			out[ks] = val
		}
	default:
		return nil, &SyntaxError{File: name, Line: firstContentLine(data),
			Msg: "settings must be a mapping of names to values, found " + kindOf(v)}
	}
	for k, val := range out {
		if k == "" {
			return nil, &SyntaxError{File: name, Line: keyLine(data, k), Msg: "setting names must be non-empty"}
		}
		norm, err := normalize(val)
		if err != nil {
			return nil, &SyntaxError{File: name, Line: keyLine(data, k), Field: k, Msg: err.Error()}
		}
		out[k] = norm
	}
	return out, nil
}

// normalize makes a decoded value JSON-encodable: nested mappings with
// non-string keys get string keys, non-finite numbers are refused.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v is not a usable value (not a finite number)", x)
		}
	case []any:
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = n
		}
		return m, nil
	}
	return v, nil
}

func hasTime(v any) bool {
	switch x := v.(type) {
	case time.Time:
		return true
	case []any:
		for _, e := range x {
			if hasTime(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasTime(e) {
				return true
			}
		}
	case map[any]any:
		for _, e := range x {
			if hasTime(e) {
				return true
			}
		}
	}
	return false
}

// decodeTimesAsText decodes the first document with every timestamp scalar
// read as a string.
func decodeTimesAsText(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, err
	}
	retagTimestamps(&doc)
	var v any
	err := doc.Decode(&v)
	return v, err
}

func retagTimestamps(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		retagTimestamps(c)
	}
}

// ScalarValue decodes a value given on the command line (a filter) the way
// a settings file value is decoded, so that both compare equal: "512" is the
// integer 512, "2024-05-01" stays text. Anything that is not a YAML scalar
// (lists, mappings, comments, anchors) is kept as the text itself.
func ScalarValue(s string) any {
	var n yaml.Node
	if yaml.Unmarshal([]byte(s), &n) != nil || len(n.Content) != 1 {
		return s
	}
	sc := n.Content[0]
	if sc.Kind != yaml.ScalarNode || sc.Style&yaml.TaggedStyle != 0 {
		return s
	}
	if sc.ShortTag() == "!!timestamp" {
		return s
	}
	var v any
	if sc.Decode(&v) != nil {
		return s
	}
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return s // never a setting value (Settings refuses them)
	}
	return v
}

// secondDocument returns the line of a non-empty document after the first,
// or 0, or the error that stops the YAML decoder there.
func secondDocument(data []byte) (int, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if dec.Decode(&first) != nil {
		return 0, nil // Unmarshal reported it
	}
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case err == io.EOF:
			return 0, nil
		case err != nil:
			return 0, err
		case !emptyDocument(&next):
			return next.Line, nil
		}
	}
}

func emptyDocument(n *yaml.Node) bool {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	default:
		return fmt.Sprintf("a single value (%T)", v)
	}
}

// firstContentLine is the line of the first byte that is neither blank nor a
// comment nor a document marker: where a non-mapping document starts.
func firstContentLine(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			return i + 1
		}
	}
	return 1
}

// keyLine finds the line of a top-level key, for errors found after decoding.
// It parses again, which is fine on an error path.
func keyLine(data []byte, key string) int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}
