package parsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// JSON decodes one JSON document into v. Unknown fields are allowed (artifact
// files are supersets of what a reader needs); syntax errors name the line,
// type errors the line and the field path.
func JSON(name string, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &SyntaxError{File: name, Line: 1, Msg: "empty document"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonError(name, data, err)
	}
	// Trailing garbage after the document is an error too (truncated rewrites).
	if _, err := dec.Token(); err != io.EOF {
		return &SyntaxError{File: name, Line: lineOf(data, dec.InputOffset()), Msg: "unexpected content after the JSON document"}
	}
	return nil
}

func jsonError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &SyntaxError{File: name, Line: lineOf(data, se.Offset), Msg: se.Error()}
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
		return &SyntaxError{File: name, Msg: err.Error()}
	}
}

var yamlLine = regexp.MustCompile(`^yaml: (?:unmarshal errors:\n\s*)?line (\d+): (.*)`)

// YAML decodes one YAML document into v, naming the line of the first error.
func YAML(name string, data []byte, v any) error {
	if err := yaml.Unmarshal(data, v); err != nil {
		return yamlError(name, err)
	}
	return nil
}

func yamlError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &SyntaxError{File: name, Line: line, Msg: m[2]}
	}
	return &SyntaxError{File: name, Msg: msg}
}

// Settings decodes a settings.yaml file: a YAML mapping from setting names to
// values. An empty file is an empty mapping. Values keep their YAML types
// (512 is an int, "512" a string) so filters can compare them after decoding.
func Settings(name string, data []byte) (map[string]any, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(name, err)
	}
	if root.Kind == 0 { // empty document
		return map[string]any{}, nil
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return map[string]any{}, nil
	}
	if doc.Kind != yaml.MappingNode {
		return nil, &SyntaxError{File: name, Line: doc.Line, Msg: "settings must be a mapping of names to values, found " + kindName(doc)}
	}
	out := make(map[string]any, len(doc.Content)/2)
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, &SyntaxError{File: name, Line: k.Line, Msg: "setting names must be non-empty strings"}
		}
		var val any
		if err := v.Decode(&val); err != nil {
			return nil, &SyntaxError{File: name, Line: v.Line, Field: k.Value, Msg: err.Error()}
		}
		out[k.Value] = val
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	default:
		return "something else"
	}
}
