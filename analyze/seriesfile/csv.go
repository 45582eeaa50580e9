package seriesfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/parsers"
)

// TimeColumn is the header (any case) of the optional CSV column holding
// each row's time or label.
const TimeColumn = "time"

// ReadCSV decodes a CSV file with a header row: one column per series, and
// optionally a `time` column. Empty cells are missing values.
func ReadCSV(name string, data []byte) (*File, error) {
	if err := checkText(name, data); err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(stripBOM(data)))
	r.FieldsPerRecord = -1 // ragged rows get our own message
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, csvError(name, data, err)
	}
	f := &File{Name: name}
	timeCol := -1
	cols := make([]int, 0, len(header)) // header index of each series
	seen := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, &parsers.SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("column %d of the header has no name", i+1)}
		}
		if j, dup := seen[strings.ToLower(h)]; dup {
			return nil, &parsers.SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("columns %d and %d are both named %q", j+1, i+1, h)}
		}
		seen[strings.ToLower(h)] = i
		if strings.EqualFold(h, TimeColumn) {
			timeCol = i
			continue
		}
		cols = append(cols, i)
		f.Series = append(f.Series, Series{Name: h})
	}
	if timeCol >= 0 {
		f.Time = []string{}
	}
	row := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, data, err)
		}
		row++
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &parsers.SyntaxError{File: name, Line: line,
				Msg: fmt.Sprintf("row %d has %d fields, the header has %d", row, len(rec), len(header))}
		}
		if timeCol >= 0 {
			f.Time = append(f.Time, strings.TrimSpace(rec[timeCol]))
		}
		for s, i := range cols {
			cell := strings.TrimSpace(rec[i])
			v := math.NaN()
			if cell != "" {
				var msg string
				if v, msg = parseValue(cell); msg != "" {
					l, _ := r.FieldPos(i)
					return nil, &parsers.SyntaxError{File: name, Line: l,
						Msg: fmt.Sprintf("row %d, column %q: %s", row, f.Series[s].Name, msg)}
				}
			}
			f.Series[s].Values = append(f.Series[s].Values, v)
		}
	}
	if row == 0 {
		return nil, fmt.Errorf("%s: a header but no rows: %w", name, ErrNoData)
	}
	if err := f.finish(); err != nil {
		return nil, err
	}
	return f, nil
}

func csvError(name string, data []byte, err error) error {
	if err == io.EOF {
		return fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &parsers.SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &parsers.SyntaxError{File: name, Msg: err.Error()}
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
