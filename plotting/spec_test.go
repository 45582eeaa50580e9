package plotting

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
)

// update rewrites the golden files of this package: go test ./plotting -update
var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestReadSpecTOPSAILShape(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/plots/topsail.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadSpec("topsail.good.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: "batches", Generate: []Directive{{KindReport, "Rate per batch"}, {KindReport, "Batch statistics"}, {KindReport, "Batch comparison"}},
			Filters: []store.Filters{{"matrix_size": {1024}}}},
		{ID: "numpy_sizes", Generate: []Directive{{KindReport, "Scaling"}, {KindPlot, "Rate violin plot"}},
			Filters: []store.Filters{{"backend": {"numpy"}, "dtype": {"float32", "float64"}}}},
		{ID: "errors", Generate: []Directive{{KindReport, "Error report"}}},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs:\n got %#v\nwant %#v", jobs, want)
	}
	// The filters select what a person reading the file expects.
	if !jobs[0].Match(models.Settings{"matrix_size": 1024}) || jobs[0].Match(models.Settings{"matrix_size": 512}) {
		t.Error("matrix_size=1024 does not select by value")
	}
	if !jobs[1].Match(models.Settings{"backend": "numpy", "dtype": "float64"}) || jobs[1].Match(models.Settings{"backend": "gonum", "dtype": "float64"}) {
		t.Error("mapping filter does not select backend and dtype")
	}
	if got := jobs[1].FilterText(); got != "backend=numpy,dtype=float32:float64" {
		t.Errorf("FilterText = %q", got)
	}
}

// Each bad file fails with a SyntaxError whose text is in the .err file
// beside it (rewritten with -update).
func TestReadSpecBad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/plots/*.bad.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad fixtures: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".bad.yaml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadSpec(name, data)
			var se *parsers.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ReadSpec = %v, want a *parsers.SyntaxError", err)
			}
			if se.File != name {
				t.Errorf("error names file %q, want %q", se.File, name)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(err.Error()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("%v (run with -update)", rerr)
			}
			if got := err.Error() + "\n"; got != string(want) {
				t.Errorf("error:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestParseDirective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     Directive
		wantErr  bool
	}{
		{"report", "report: Rate per batch", Directive{KindReport, "Rate per batch"}, false},
		{"plot without space", "plot:Rate box plot", Directive{KindPlot, "Rate box plot"}, false},
		{"extra spaces", "  report :  Scaling  ", Directive{KindReport, "Scaling"}, false},
		{"no kind", "Rate per batch", Directive{}, true},
		{"unknown kind", "table: Rate", Directive{}, true},
		{"no name", "report:", Directive{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDirective(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseDirective(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzReadSpec: any input gives jobs or an error, never a panic, and every
// job it accepts is usable (an id that names one directory, something to
// generate).
func FuzzReadSpec(f *testing.F) {
	files, _ := filepath.Glob("testdata/plots/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := ReadSpec("plots.yaml", data)
		if err != nil {
			return
		}
		for _, j := range jobs {
			if j.ID == "" || checkID(j.ID) != nil || len(j.Generate) == 0 {
				t.Fatalf("accepted an unusable job %#v", j)
			}
		}
	})
}
