package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

func TestParseFilters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Filters
	}{
		{"", Filters{}},
		{"  ", Filters{}},
		{"matrix_size=512", Filters{"matrix_size": {512}}},
		{"k=v1:v2,k2=v", Filters{"k": {"v1", "v2"}, "k2": {"v"}}},
		{"size=512.0:1e3", Filters{"size": {512.0, 1000.0}}},
		{"name=abc", Filters{"name": {"abc"}}},
		{`name="512"`, Filters{"name": {"512"}}},
		{"flag=true:false", Filters{"flag": {true, false}}},
		{"x=null", Filters{"x": {nil}}},
		{"x=", Filters{"x": {""}}},
		{" k = v , k2 = 1 ", Filters{"k": {"v"}, "k2": {1}}},
		{"k=a,k=b", Filters{"k": {"a", "b"}}},
		{"@repeat=0", Filters{"@repeat": {0}}},
		{"day=2024-05-01", Filters{"day": {"2024-05-01"}}},
		{"list=[1", Filters{"list": {"[1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFilters(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseFiltersErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, msg string }{
		{"matrix_size", `filter "matrix_size": want key=value`},
		{"=512", `filter "=512": empty key`},
		{"a=1,", "empty filter"},
		{",a=1", "empty filter"},
		{"a=1,,b=2", "empty filter"},
		{"a=1 b=2", `filter "a=1 b=2": more than one '='`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := ParseFilters(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestFiltersMatch(t *testing.T) {
	t.Parallel()
	s := models.Settings{"matrix_size": 512, "ratio": 0.5, "dtype": "float32", "gpu": true, "none": nil, "@repeat": 1}
	tests := []struct {
		filters string
		want    bool
	}{
		{"", true},
		{"matrix_size=512", true},
		{"matrix_size=512.0", true},
		{"matrix_size=\"512\"", false},
		{"matrix_size=256:512", true},
		{"matrix_size=256", false},
		{"ratio=0.50", true},
		{"dtype=float32", true},
		{"dtype=float32,matrix_size=256", false},
		{"gpu=true", true},
		{"gpu=yes", false},
		{"none=null", true},
		{"@repeat=1", true},
		{"missing=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.filters, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilters(tt.filters)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(s); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFiltersString(t *testing.T) {
	t.Parallel()
	f, err := ParseFilters("z=1:abc,a=null")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.String(); got != "a=null,z=1:abc" {
		t.Errorf("String = %q", got)
	}
}
