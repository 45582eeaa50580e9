package seriesfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/seshat-bench/seshat/parsers"
)

// ReadJSON decodes {"series": {"name": [numbers|null], ...}, "time": [...]}.
// Series keep their order in the file; all series and the time array
// (strings or numbers) have the same length.
func ReadJSON(name string, data []byte) (*File, error) {
	if err := checkText(name, data); err != nil {
		return nil, err
	}
	data = stripBOM(data)
	d := &jsonReader{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	f := &File{Name: name}
	if err := d.document(f); err != nil {
		return nil, err
	}
	if err := checkLengths(f, d); err != nil {
		return nil, err
	}
	if err := f.finish(); err != nil {
		return nil, err
	}
	return f, nil
}

type jsonReader struct {
	name string
	data []byte
	dec  *json.Decoder
}

func (d *jsonReader) errorf(format string, args ...any) error {
	return &parsers.SyntaxError{File: d.name, Line: lineAt(d.data, int(d.dec.InputOffset())), Msg: fmt.Sprintf(format, args...)}
}

// token reads the next token, turning decoder errors into SyntaxErrors.
func (d *jsonReader) token() (json.Token, error) {
	tok, err := d.dec.Token()
	if err == nil {
		return tok, nil
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, &parsers.SyntaxError{File: d.name, Line: lineAt(d.data, int(se.Offset)), Msg: se.Error()}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &parsers.SyntaxError{File: d.name, Line: lineAt(d.data, len(d.data)), Msg: "truncated JSON document"}
	default:
		return nil, d.errorf("%v", err)
	}
}

func (d *jsonReader) delim(want json.Delim, what string) error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return d.errorf("%s: expected '%s', found %s", what, want, describe(tok))
	}
	return nil
}

func (d *jsonReader) document(f *File) error {
	if err := d.delim('{', "document"); err != nil {
		return err
	}
	haveSeries := false
	for d.dec.More() {
		key, err := d.key()
		if err != nil {
			return err
		}
		switch key {
		case "series":
			if haveSeries {
				return d.errorf(`"series" appears twice`)
			}
			haveSeries = true
			if err := d.series(f); err != nil {
				return err
			}
		case "time":
			if f.Time != nil {
				return d.errorf(`"time" appears twice`)
			}
			t, err := d.times()
			if err != nil {
				return err
			}
			f.Time = t
		default:
			return d.errorf("unknown key %q (expected \"series\" and optionally \"time\")", key)
		}
	}
	if err := d.delim('}', "document"); err != nil {
		return err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return d.errorf("unexpected content after the JSON document")
	}
	if !haveSeries {
		return &parsers.SyntaxError{File: d.name, Line: 1, Msg: `no "series" object`}
	}
	return nil
}

func (d *jsonReader) key() (string, error) {
	tok, err := d.token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", d.errorf("expected a key, found %s", describe(tok))
	}
	return s, nil
}

func (d *jsonReader) series(f *File) error {
	if err := d.delim('{', `"series"`); err != nil {
		return err
	}
	seen := map[string]bool{}
	for d.dec.More() {
		name, err := d.key()
		if err != nil {
			return err
		}
		if seen[name] {
			return d.errorf("series %q appears twice", name)
		}
		seen[name] = true
		if name == "" {
			return d.errorf("a series has an empty name")
		}
		if err := d.delim('[', fmt.Sprintf("series %q", name)); err != nil {
			return err
		}
		s := Series{Name: name, Values: []float64{}}
		for d.dec.More() {
			tok, err := d.token()
			if err != nil {
				return err
			}
			switch v := tok.(type) {
			case nil:
				s.Values = append(s.Values, math.NaN())
			case json.Number:
				x, msg := parseValue(v.String())
				if msg != "" {
					return d.errorf("series %q, index %d: %s", name, len(s.Values), msg)
				}
				s.Values = append(s.Values, x)
			default:
				return d.errorf("series %q, index %d: expected a number or null, found %s", name, len(s.Values), describe(tok))
			}
		}
		if err := d.delim(']', fmt.Sprintf("series %q", name)); err != nil {
			return err
		}
		f.Series = append(f.Series, s)
	}
	return d.delim('}', `"series"`)
}

func (d *jsonReader) times() ([]string, error) {
	if err := d.delim('[', `"time"`); err != nil {
		return nil, err
	}
	t := []string{}
	for d.dec.More() {
		tok, err := d.token()
		if err != nil {
			return nil, err
		}
		switch v := tok.(type) {
		case string:
			t = append(t, v)
		case json.Number:
			t = append(t, v.String())
		case nil:
			t = append(t, "")
		default:
			return nil, d.errorf(`"time", index %d: expected a string, number or null, found %s`, len(t), describe(tok))
		}
	}
	return t, d.delim(']', `"time"`)
}

func checkLengths(f *File, d *jsonReader) error {
	if len(f.Series) == 0 {
		return nil
	}
	first := f.Series[0]
	for _, s := range f.Series[1:] {
		if len(s.Values) != len(first.Values) {
			return &parsers.SyntaxError{File: d.name, Msg: fmt.Sprintf("series %q has %d values, series %q has %d: all series must have the same length",
				s.Name, len(s.Values), first.Name, len(first.Values))}
		}
	}
	if f.Time != nil && len(f.Time) != len(first.Values) {
		return &parsers.SyntaxError{File: d.name, Msg: fmt.Sprintf(`"time" has %d entries, the series have %d values`, len(f.Time), len(first.Values))}
	}
	return nil
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{', '}':
			return "an object"
		default:
			return "an array"
		}
	case string:
		return fmt.Sprintf("the string %q", truncate(v))
	case bool:
		return fmt.Sprintf("%v", v)
	case nil:
		return "null"
	case json.Number:
		return "the number " + v.String()
	default:
		return fmt.Sprintf("%v", v)
	}
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
