package declared

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Results is what parsing one run directory produces, and what the parse
// cache keeps: the values found, the run's identity and times.
type Results struct {
	UUID   string           `json:"uuid,omitempty"`
	Start  time.Time        `json:"start,omitzero"`
	End    time.Time        `json:"end,omitzero"`
	Values map[string]Datum `json:"values,omitempty"`
}

// Datum is one extracted value; exactly one field is set.
type Datum struct {
	Number  *float64   `json:"number,omitempty"`
	Numbers []float64  `json:"numbers,omitempty"`
	String  *string    `json:"string,omitempty"`
	Time    *time.Time `json:"time,omitempty"`
}

// Any returns the value itself, for people and JSON: a number, a list, a
// string or a time.
func (d Datum) Any() any {
	switch {
	case d.Number != nil:
		return *d.Number
	case d.Numbers != nil:
		return d.Numbers
	case d.String != nil:
		return *d.String
	case d.Time != nil:
		return *d.Time
	}
	return nil
}

// Text renders a datum as a label: numbers as models.FormatValue writes
// them (as settings are), times in RFC 3339.
func (d Datum) Text() string {
	switch {
	case d.Number != nil:
		return models.FormatValue(*d.Number)
	case d.String != nil:
		return strings.TrimSpace(*d.String)
	case d.Time != nil:
		return d.Time.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

// document is one declared file as read and decoded for a run.
type document struct {
	err  error // why the file could not be read or decoded
	tree any   // json, yaml
	csv  *table
	text []byte
}

// table is a CSV file: its header and rows, with the line of each row.
type table struct {
	header []string
	rows   [][]string
	lines  []int
}

// decodeDocument decodes a file's bytes as its format says.
func decodeDocument(name, format string, data []byte) *document {
	d := &document{}
	switch format {
	case FormatJSON:
		d.err = parsers.JSON(name, data, &d.tree)
	case FormatYAML:
		var v any
		if d.err = parsers.YAML(name, data, &v); d.err == nil {
			d.tree, d.err = jsonLike(v)
			if d.err != nil {
				d.err = &parsers.SyntaxError{File: name, Msg: d.err.Error()}
			}
		}
	case FormatCSV:
		d.csv, d.err = readCSV(name, data)
	default:
		d.text = data
	}
	return d
}

// jsonLike turns a decoded YAML tree into JSON's types (string-keyed maps,
// float64 numbers) so JSONPath queries and comparisons behave as on JSON.
func jsonLike(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n, err := jsonLike(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := jsonLike(e)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = n
		}
		return out, nil
	case []any:
		for i, e := range x {
			n, err := jsonLike(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), nil
	}
	return v, nil
}

// readCSV reads a CSV file with a header row. Rows may have fewer fields
// than the header (their missing cells are empty); a quoting error names
// its line.
func readCSV(name string, data []byte) (*table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	t := &table{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return t, &parsers.SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
			}
			return t, &parsers.SyntaxError{File: name, Msg: err.Error()}
		}
		line, _ := r.FieldPos(0)
		if t.header == nil {
			for i, h := range rec {
				rec[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
			}
			t.header = rec
			continue
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	if t.header == nil {
		return t, &parsers.SyntaxError{File: name, Line: 1, Msg: "empty CSV file: want a header row"}
	}
	return t, nil
}

// match is one thing a query found, with where it was found for messages.
type match struct {
	value any // float64, string, bool, nil, or a JSON container
	where string
}

// query runs a value's query against its file; no match is not an error.
func (w *Workload) query(name string, v *Value, d *document) ([]match, error) {
	switch {
	case v.Path != "":
		var out []match
		for _, n := range w.comp.paths[name].Select(d.tree) {
			out = append(out, match{value: n, where: v.Path})
		}
		return out, nil
	case v.Column != "":
		col := slices.Index(d.csv.header, v.Column)
		if col < 0 {
			return nil, fmt.Errorf("no column %q (columns: %s)", v.Column, strings.Join(d.csv.header, ", "))
		}
		var out []match
		for i, row := range d.csv.rows {
			if col >= len(row) || strings.TrimSpace(row[col]) == "" {
				continue
			}
			out = append(out, match{value: row[col], where: fmt.Sprintf("line %d, column %s", d.csv.lines[i], v.Column)})
		}
		return out, nil
	default:
		re, group := w.comp.regexes[name], w.comp.groups[name]
		var out []match
		for _, m := range re.FindAllSubmatchIndex(d.text, -1) {
			if m[2*group] < 0 {
				continue
			}
			line := 1 + bytes.Count(d.text[:m[0]], []byte("\n"))
			out = append(out, match{value: string(d.text[m[2*group]:m[2*group+1]]), where: fmt.Sprintf("line %d", line)})
		}
		return out, nil
	}
}

// convert turns a value's matches into a Datum of its type.
func convert(v *Value, ms []match) (Datum, error) {
	switch v.typ() {
	case TypeNumbers:
		var nums []float64
		for _, m := range ms {
			// A path selecting a list yields the list itself: flatten it.
			if list, ok := m.value.([]any); ok {
				for i, e := range list {
					f, err := number(e)
					if err != nil {
						return Datum{}, fmt.Errorf("%s[%d]: %w", m.where, i, err)
					}
					nums = append(nums, f*scale(v))
				}
				continue
			}
			f, err := number(m.value)
			if err != nil {
				return Datum{}, fmt.Errorf("%s: %w", m.where, err)
			}
			nums = append(nums, f*scale(v))
		}
		if nums == nil {
			nums = []float64{}
		}
		return Datum{Numbers: nums}, nil
	case TypeString:
		m, err := one(v, ms)
		if err != nil {
			return Datum{}, err
		}
		var s string
		switch x := m.value.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(x)
		default:
			return Datum{}, fmt.Errorf("%s: want a string, found %s", m.where, kind(m.value))
		}
		return Datum{String: &s}, nil
	case TypeTime:
		m, err := one(v, ms)
		if err != nil {
			return Datum{}, err
		}
		t, err := timeOf(m.value)
		if err != nil {
			return Datum{}, fmt.Errorf("%s: %w", m.where, err)
		}
		return Datum{Time: &t}, nil
	}
	// One number, aggregated when several were found.
	agg := v.Aggregate
	if agg == "" {
		if len(ms) > 1 && v.Regex == "" {
			ms = ms[:1]
		}
		if len(ms) > 1 {
			ms = ms[len(ms)-1:]
		}
		agg = "first"
	}
	nums := make([]float64, 0, len(ms))
	for _, m := range ms {
		f, err := number(m.value)
		if err != nil {
			return Datum{}, fmt.Errorf("%s: %w", m.where, err)
		}
		nums = append(nums, f)
	}
	f, err := Aggregate(agg, nums)
	if err != nil {
		return Datum{}, err
	}
	f *= scale(v)
	return Datum{Number: &f}, nil
}

func scale(v *Value) float64 {
	if v.Scale == 0 {
		return 1
	}
	return v.Scale
}

// one returns the single match a scalar value needs: the last for a regex,
// the first otherwise.
func one(v *Value, ms []match) (match, error) {
	if len(ms) == 0 {
		return match{}, errNotFound
	}
	if v.Regex != "" {
		return ms[len(ms)-1], nil
	}
	return ms[0], nil
}

var errNotFound = errors.New("not found")

// number reads a JSON number, or a string holding one (CSV cells, regex
// groups, numbers quoted in JSON). NaN and infinities are refused: they are
// no measurement.
func number(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		s := strings.TrimSpace(x)
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, fmt.Errorf("%q is not a number", parsers.Truncate(s, 40))
		}
	default:
		return 0, fmt.Errorf("want a number, found %s", kind(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v is not a finite number", f)
	}
	return f, nil
}

// timeOf reads RFC 3339 text or seconds since the Unix epoch.
func timeOf(v any) (time.Time, error) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return unixTime(f)
		}
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time nor seconds since the epoch", parsers.Truncate(s, 40))
	case float64:
		return unixTime(x)
	}
	return time.Time{}, fmt.Errorf("want a time, found %s", kind(v))
}

func unixTime(f float64) (time.Time, error) {
	if math.IsNaN(f) || f < 0 || f > 1e11 {
		return time.Time{}, fmt.Errorf("%v is not a time in seconds since the epoch", f)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case float64:
		return "a number"
	case string:
		return "a string"
	}
	return fmt.Sprintf("%T", v)
}

// Aggregate reduces numbers: first, last, min, max, mean, median, sum or
// count. Only count accepts none.
func Aggregate(how string, xs []float64) (float64, error) {
	if how == "count" {
		return float64(len(xs)), nil
	}
	if len(xs) == 0 {
		return 0, errNotFound
	}
	switch how {
	case "", "first":
		return xs[0], nil
	case "last":
		return xs[len(xs)-1], nil
	case "min":
		return slices.Min(xs), nil
	case "max":
		return slices.Max(xs), nil
	case "sum", "mean":
		s := 0.0
		for _, x := range xs {
			s += x
		}
		if how == "mean" {
			s /= float64(len(xs))
		}
		return s, nil
	case "median":
		s := slices.Sorted(slices.Values(xs))
		n := len(s)
		if n%2 == 1 {
			return s[n/2], nil
		}
		return (s[n/2-1] + s[n/2]) / 2, nil
	}
	return 0, fmt.Errorf("unknown aggregate %q", how)
}

// isMissing tells a file that is not there from one that is broken.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
