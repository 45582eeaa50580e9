package seriesfile

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/parsers"
)

func readTestdata(t *testing.T, name string) (*File, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Read(name, data)
}

func TestReadGood(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		time   []string
		series []Series
	}{
		{"good.csv", []string{"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"}, []Series{
			{"rate", []float64{100.5, 100.5, 101, 90.2}}, // forward-filled
			{"latency", []float64{12, 12.5, 12.5, 13}},
		}},
		{"good.json", []string{"a", "b", "3", ""}, []Series{
			{"rate", []float64{1.5, 1.5, 1.5, 2}}, // leading null back-filled
			{"latency", []float64{3, 3, 4, 4}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			f, err := readTestdata(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.Time, tc.time) || !reflect.DeepEqual(f.Series, tc.series) {
				t.Errorf("got time %q series %v; want %q %v", f.Time, f.Series, tc.time, tc.series)
			}
			if !reflect.DeepEqual(f.Names(), []string{"rate", "latency"}) {
				t.Errorf("names %v", f.Names())
			}
		})
	}
}

func TestReadBad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		noData  bool
		msg     string // in the error
		line    int
	}{
		{name: "bad cell", file: "bad-cell.csv", msg: `row 2, column "latency": "abc" is not a number`, line: 3},
		{name: "ragged row", file: "ragged.csv", msg: "row 2 has 1 fields, the header has 2", line: 3},
		{name: "empty", file: "empty.csv", noData: true},
		{name: "header only", file: "header-only.csv", noData: true},
		{name: "binary", file: "binary.csv", msg: "binary content", line: 1},
		{name: "JSON bad value", file: "bad-value.json", msg: `series "rate", index 1: expected a number or null, found the string "x"`, line: 1},
		{name: "JSON truncated", file: "truncated.json", msg: "truncated JSON document"},
		{name: "JSON ragged", file: "ragged.json", msg: `series "b" has 1 values, series "a" has 2`},
		{name: "whitespace only", content: " \n\t\n", noData: true},
		{name: "only a time column", content: "time\n1\n2\n", noData: true},
		{name: "no name", content: "a,,b\n1,2,3\n", msg: "column 2 of the header has no name"},
		{name: "duplicate column", content: "a,b,A\n1,2,3\n", msg: `columns 1 and 3 are both named "A"`},
		{name: "NaN cell", content: "a\n1\nNaN\n", msg: `row 2, column "a": "NaN" is not a finite number`, line: 3},
		{name: "bad quote", content: "a,b\n1,\"2\n", msg: "extraneous or missing", line: 2},
		{name: "non-UTF-8", content: "a\n1\n\xff\n", msg: "not valid UTF-8", line: 3},
		{name: "JSON unknown key", content: `{"series": {"a": [1]}, "values": []}`, msg: `unknown key "values"`},
		{name: "JSON no series", content: `{"time": []}`, msg: `no "series" object`},
		{name: "JSON empty series", content: `{"series": {}}`, noData: true},
		{name: "JSON all null", content: `{"series": {"a": [null, null]}}`, noData: true},
		{name: "JSON nested", content: `{"series": {"a": [[1]]}}`, msg: `series "a", index 0: expected a number or null, found an array`},
		{name: "JSON deep nesting", content: `{"series": {"a": [` + strings.Repeat("[", 100000), msg: "found an array"},
		{name: "JSON time length", content: `{"series": {"a": [1, 2]}, "time": ["x"]}`, msg: `"time" has 1 entries`},
		{name: "JSON not an object", content: `[1, 2]`, msg: `expected '{'`},
		{name: "JSON trailing", content: `{"series": {"a": [1]}} {}`, msg: "unexpected content after"},
		{name: "JSON huge number", content: `{"series": {"a": [1e999]}}`, msg: `"1e999" is not a number`},
		{name: "JSON duplicate series", content: `{"series": {"a": [1], "a": [2]}}`, msg: `series "a" appears twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var err error
			name := tc.file
			if tc.file != "" {
				_, err = readTestdata(t, tc.file)
			} else {
				name = "in.csv"
				if strings.HasPrefix(strings.TrimSpace(tc.content), "{") || strings.HasPrefix(tc.content, "[") {
					name = "in.json"
				}
				_, err = Read(name, []byte(tc.content))
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name the file", err)
			}
			if tc.noData {
				if !errors.Is(err, ErrNoData) {
					t.Errorf("error %q is not ErrNoData", err)
				}
				return
			}
			var se *parsers.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %q (%T) is not a SyntaxError", err, err)
			}
			if !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("message %q, want %q", se.Msg, tc.msg)
			}
			if tc.line != 0 && se.Line != tc.line {
				t.Errorf("line %d, want %d", se.Line, tc.line)
			}
		})
	}
}

func TestReadSniffsFormat(t *testing.T) {
	t.Parallel()
	f, err := Read("-", []byte(` {"series": {"a": [1, 2]}}`))
	if err != nil || len(f.Series) != 1 {
		t.Errorf("JSON on stdin: %v %v", f, err)
	}
	f, err = Read("-", []byte("\xef\xbb\xbfa;b\n1\n"))
	if err != nil || f.Series[0].Name != "a;b" {
		t.Errorf("CSV with a BOM on stdin: %v %v", f, err)
	}
}

func TestEmptySeriesWarned(t *testing.T) {
	t.Parallel()
	f, err := Read("x.csv", []byte("a,b\n1,\n2,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], `series "b" has no values`) {
		t.Errorf("warnings %q", f.Warnings)
	}
}

// checkFile holds what every successfully read file promises.
func checkFile(t *testing.T, f *File) {
	t.Helper()
	if len(f.Series) == 0 {
		t.Fatal("no series and no error")
	}
	n := -1
	for _, s := range f.Series {
		if len(s.Values) == 0 {
			continue
		}
		if n >= 0 && len(s.Values) != n {
			t.Fatalf("series of different lengths: %d and %d", n, len(s.Values))
		}
		n = len(s.Values)
		for _, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("series %q holds %v", s.Name, v)
			}
		}
	}
	if f.Time != nil && n >= 0 && len(f.Time) != n {
		t.Fatalf("time has %d entries, series %d", len(f.Time), n)
	}
}

func addSeeds(f *testing.F, ext string) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"+ext))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s: %v", ext, err)
	}
	// The series the command's goldens use.
	shipped, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "series", "*"+ext))
	files = append(files, shipped...)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzReadCSV(f *testing.F) {
	addSeeds(f, ".csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadCSV("fuzz.csv", data)
		if err != nil {
			return
		}
		checkFile(t, file)
	})
}

func FuzzReadJSON(f *testing.F) {
	addSeeds(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadJSON("fuzz.json", data)
		if err != nil {
			return
		}
		checkFile(t, file)
	})
}
