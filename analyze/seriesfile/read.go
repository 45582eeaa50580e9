package seriesfile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/parsers"
)

// File is a set of series read from one file.
type File struct {
	Name string
	// Time labels each index; nil when the file has no time column. Cells
	// are kept as written (dates, run ids, numbers).
	Time   []string
	Series []Series // in file order
	// Warnings note what was read but is suspicious (a series with no
	// values at all).
	Warnings []string
}

// Series is one named series, missing values already filled.
type Series struct {
	Name   string
	Values []float64
}

// Lookup returns the series called name.
func (f *File) Lookup(name string) (Series, bool) {
	for _, s := range f.Series {
		if s.Name == name {
			return s, true
		}
	}
	return Series{}, false
}

// Names lists the series names in file order.
func (f *File) Names() []string {
	names := make([]string, len(f.Series))
	for i, s := range f.Series {
		names[i] = s.Name
	}
	return names
}

// ErrNoData is wrapped when a file holds nothing to analyse: empty, a
// header without rows, no series.
var ErrNoData = errors.New("no data")

// Read decodes data, named name in messages: JSON when the name ends in
// .json or the content starts with '{', else CSV.
func Read(name string, data []byte) (*File, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return ReadJSON(name, data)
	case ".csv":
		return ReadCSV(name, data)
	}
	if t := bytes.TrimLeft(stripBOM(data), " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return ReadJSON(name, data)
	}
	return ReadCSV(name, data)
}

var bom = []byte("\xef\xbb\xbf")

func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// checkText refuses binary content: a NUL byte or invalid UTF-8, naming the
// line where it starts; and an empty document.
func checkText(name string, data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &parsers.SyntaxError{File: name, Line: lineAt(data, i), Msg: "binary content (NUL byte): not a CSV or JSON text file"}
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return &parsers.SyntaxError{File: name, Line: lineAt(data, i), Msg: "not valid UTF-8 text"}
	}
	if len(bytes.TrimSpace(stripBOM(data))) == 0 {
		return fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	return nil
}

func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// fill forward-fills NaN (missing) values, back-filling leading ones. A
// series with no value at all becomes empty.
func fill(vals []float64) []float64 {
	first := -1
	for i, v := range vals {
		if !math.IsNaN(v) {
			first = i
			break
		}
	}
	if first < 0 {
		return []float64{}
	}
	prev := vals[first]
	for i := range vals {
		if math.IsNaN(vals[i]) {
			vals[i] = prev
		}
		prev = vals[i]
	}
	return vals
}

// parseValue reads one number; NaN and infinities are refused so that
// missing values stay distinguishable.
func parseValue(s string) (float64, string) {
	v, err := parseFloat(s)
	if err != nil {
		return 0, fmt.Sprintf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("%q is not a finite number", s)
	}
	return v, ""
}

func (f *File) finish() error {
	n := 0
	for i := range f.Series {
		f.Series[i].Values = fill(f.Series[i].Values)
		if len(f.Series[i].Values) == 0 {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s: series %q has no values", f.Name, f.Series[i].Name))
		}
		n += len(f.Series[i].Values)
	}
	if len(f.Series) == 0 {
		return fmt.Errorf("%s: no series: %w", f.Name, ErrNoData)
	}
	if n == 0 {
		return fmt.Errorf("%s: no values in any series: %w", f.Name, ErrNoData)
	}
	return nil
}
