package plotting

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// countReport draws the number of entries per backend.
func countReport(ctx *Context) (*Page, error) {
	counts := map[string]float64{}
	var order []string
	for _, e := range ctx.Entries {
		b, _ := e.Settings["backend"].(string)
		if _, ok := counts[b]; !ok {
			order = append(order, b)
		}
		counts[b]++
	}
	vals := make([]float64, len(order))
	for i, b := range order {
		vals[i] = counts[b]
	}
	df := dataframe.New(series.New(order, series.String, "backend"), series.New(vals, series.Float, "n"))
	p, err := Distribution(df, DistSpec{Title: "Entries", Group: "backend", Value: "n"})
	if err != nil {
		return nil, err
	}
	return &Page{Title: "Counts", Summary: "How many.", Sections: []Section{{Title: "All",
		Figures: []*Figure{{Name: "counts", Title: "Entries per backend", Data: df, Plot: p}}}}}, nil
}

func testMatrix() *store.Matrix {
	m := &store.Matrix{ResultsDir: "/somewhere/results"}
	for i, b := range []string{"gonum", "numpy", "numpy"} {
		m.Entries = append(m.Entries, &store.Entry{Path: "r" + string(rune('0'+i)), Workload: "w",
			Settings: models.Settings{"backend": b, "device": "cpu", "@repeat": i}})
	}
	return m
}

func TestGenerateJobsWithIDs(t *testing.T) {
	t.Parallel()
	reg := NewRegistry("w")
	reg.AddReport("Counts", "Entries per backend.", countReport)
	out := t.TempDir()
	jobs := []Job{
		{ID: "all", Generate: []Directive{{KindReport, "Counts"}}},
		{ID: "torch", Generate: []Directive{{KindReport, "Counts"}}, Filters: []store.Filters{{"backend": {"torch"}}}},
	}
	res, err := Generate(context.Background(), testMatrix(), Options{OutputDir: out, Jobs: jobs, Registries: []*Registry{reg}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages != 2 || res.Figures != 1 || res.EmptyPages != 1 {
		t.Errorf("result %+v, want 2 pages, 1 figure, 1 empty", res)
	}
	read := func(rel string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	top := read(IndexFile)
	for _, want := range []string{`href="all/reports_index.html"`, `href="all/counts.html"`, `href="torch/counts.html"`, "no data"} {
		if !strings.Contains(top, want) {
			t.Errorf("top index lacks %s", want)
		}
	}
	page := read("all/counts.html")
	for _, want := range []string{`<img src="figures/counts/counts.svg" alt="Entries per backend"`, `href="reports_index.html"`,
		`href="../reports_index.html"`, "<td>backend</td><td>gonum, numpy</td>", "<td>device</td><td>cpu</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("all/counts.html lacks %s", want)
		}
	}
	if strings.Contains(page, "@repeat") {
		t.Error("@repeat is listed as a setting")
	}
	for _, f := range []string{"counts.svg", "counts.png", "counts.csv"} {
		if _, err := os.Stat(filepath.Join(out, "all/figures/counts", f)); err != nil {
			t.Error(err)
		}
	}
	empty := read("torch/counts.html")
	if !strings.Contains(empty, "No entries of the w workload match the filters backend=torch.") {
		t.Errorf("empty page does not say why:\n%s", empty)
	}
	for _, p := range []string{top, page, empty, read("all/" + IndexFile)} {
		if strings.Contains(strings.ToLower(p), "<script") {
			t.Error("a page has a script")
		}
	}
}

func TestGenerateUnknownWritesNothing(t *testing.T) {
	t.Parallel()
	reg := NewRegistry("w")
	reg.AddReport("Counts", "", countReport)
	out := filepath.Join(t.TempDir(), "reports")
	_, err := Generate(context.Background(), testMatrix(), Options{OutputDir: out, Registries: []*Registry{reg},
		Jobs: []Job{{Generate: []Directive{{KindReport, "Counts"}, {KindReport, "Nope"}}}}})
	var unknown *UnknownError
	if !errors.As(err, &unknown) || unknown.Directive.Name != "Nope" {
		t.Fatalf("Generate = %v, want an UnknownError for Nope", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output directory written: %v", err)
	}
}

// TestValueTextIsFormatValue: tables show a setting as models.FormatValue
// writes it (slugs, labels, filters), null excepted.
func TestValueTextIsFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{"gonum", "gonum"},
		{1024.0, "1024"},
		{1e21, "1e+21"},
		{1e-8, "1e-08"},
		{float32(0.1), "0.1"},
		{[]any{"a", 1}, `["a",1]`},
		{map[string]any{"k": 2}, `{"k":2}`},
	}
	for _, tc := range tests {
		if got := ValueText(tc.v); got != tc.want {
			t.Errorf("ValueText(%#v) = %q, want %q", tc.v, got, tc.want)
		}
		if tc.v != nil && ValueText(tc.v) != models.FormatValue(tc.v) {
			t.Errorf("ValueText(%#v) differs from models.FormatValue %q", tc.v, models.FormatValue(tc.v))
		}
	}
}
