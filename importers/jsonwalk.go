package importers

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/seshat-bench/seshat/parsers"
)

// jsonMember is one element of a JSON array, or one member of a JSON
// object (Name set), with the line of the file it starts on: the importers
// of JSON formats decode the rows of a document one by one, so that a
// malformed row is a warning naming its line and field, and the other
// rows are imported.
type jsonMember struct {
	Name string
	Raw  []byte
	Line int
}

// decode decodes the member into v; an error names the file, the line in
// the file (not in the member) and the field.
func (m jsonMember) decode(file string, v any) error {
	err := parsers.JSON(file, m.Raw, v)
	var se *parsers.SyntaxError
	if errors.As(err, &se) && se.Line > 0 {
		se.Line += m.Line - 1
	}
	return err
}

// jsonMembers returns the members of the array or object reached from the
// top of a JSON document by the object keys in path (none: the document
// itself); nil when the path leads nowhere. The document must already have
// decoded (parsers.JSON): errors here are of the walk itself.
func jsonMembers(file string, data []byte, path ...string) ([]jsonMember, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	// Lines are counted from the last offset asked for: offsets only grow.
	lastOff, lastLine := int64(0), 1
	line := func(off int64) int {
		off = max(min(off, int64(len(data))), lastOff)
		lastLine += bytes.Count(data[lastOff:off], []byte("\n"))
		lastOff = off
		return lastLine
	}
	fail := func(err error) error {
		return &parsers.SyntaxError{File: file, Line: line(dec.InputOffset()), Msg: err.Error()}
	}
	for _, key := range path {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, fail(err)
		}
		if tok.Kind() != '{' {
			return nil, nil
		}
		found := false
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, fail(err)
			}
			if name.String() == key {
				found = true
				break
			}
			if err := dec.SkipValue(); err != nil {
				return nil, fail(err)
			}
		}
		if !found {
			return nil, nil
		}
	}
	open, err := dec.ReadToken()
	if err != nil {
		return nil, fail(err)
	}
	kind := open.Kind()
	if kind != '[' && kind != '{' {
		return nil, nil
	}
	var out []jsonMember
	for dec.PeekKind() != ']' && dec.PeekKind() != '}' {
		var m jsonMember
		if kind == '{' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, fail(err)
			}
			m.Name = name.String()
		}
		// The value starts after the separator (and any white space) the
		// offset still points before.
		off := dec.InputOffset()
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, fail(err)
		}
		m.Raw = bytes.Clone(raw)
		if i := bytes.Index(data[off:], raw[:min(len(raw), 1)]); i >= 0 {
			off += int64(i)
		}
		m.Line = line(off)
		out = append(out, m)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, fail(err)
	}
	return out, nil
}

// memberName names a member in messages: benchmarks[3], or results["x"].
func memberName(of string, i int, m jsonMember) string {
	if m.Name != "" {
		return fmt.Sprintf("%s[%q]", of, m.Name)
	}
	return fmt.Sprintf("%s[%d]", of, i)
}
