package models

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Filter
		err  string
	}{
		{in: "", want: Filter{}},
		{in: "  ", want: Filter{}},
		{in: "backend=numpy", want: Filter{"backend": {"numpy"}}},
		{in: "matrix_size=256:512, device=cpu", want: Filter{"matrix_size": {"256", "512"}, "device": {"cpu"}}},
		{in: "cpu_model=AMD EPYC 7763 64-Core Processor", want: Filter{"cpu_model": {"AMD EPYC 7763 64-Core Processor"}}},
		{in: " k = v , k2 = 1 ", want: Filter{"k": {"v"}, "k2": {"1"}}},
		{in: "k=a,k=b", want: Filter{"k": {"a", "b"}}},
		{in: "x=", want: Filter{"x": {""}}},
		{in: "@repeat=0", want: Filter{"@repeat": {"0"}}},
		{in: "matrix_size", err: `filter "matrix_size": want key=value`},
		{in: "=512", err: `filter "=512": empty key`},
		{in: "a=1,", err: "empty filter"},
		{in: ",a=1", err: "empty filter"},
		{in: "a=1,,b=2", err: "empty filter"},
		{in: "a=1 b=2", err: `filter "a=1 b=2": more than one '='`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFilter(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

func TestFilterMatchAndNames(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"backend": "numpy", "matrix_size": "512", "device": "cpu"}
	for _, tt := range []struct {
		filter string
		want   bool
	}{
		{"", true},
		{"backend=numpy", true},
		{"backend=gonum:numpy,device=cpu", true},
		{"backend=gonum", false},
		{"matrix_size=512.0", false}, // labels compare as strings
		{"missing=x", false},
	} {
		f, err := ParseFilter(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(labels); got != tt.want {
			t.Errorf("%q.Match = %v, want %v", tt.filter, got, tt.want)
		}
	}
	f, _ := ParseFilter("Backend=x,ok=y")
	if err := f.CheckLabelNames(); err == nil || !strings.Contains(err.Error(), `"Backend" is not a label name`) {
		t.Errorf("CheckLabelNames = %v", err)
	}
	if got := (Filter{"z": {"1", "abc"}, "a": {""}}).String(); got != "a=,z=1:abc" {
		t.Errorf("String = %q", got)
	}
}

// FuzzParseFilter: any text parses or is refused, never panics; what parses
// has values for every name and renders as text that parses back to it.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "backend=numpy", "matrix_size=256:512,device=cpu", "a=", "=x", ",,", "k=v=w", "K=v", " a = 1 : 2 ", "@repeat=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFilter(s)
		if err != nil {
			return
		}
		for name, values := range got {
			if len(values) == 0 {
				t.Fatalf("%q: %s without values", s, name)
			}
		}
		again, err := ParseFilter(got.String())
		if err != nil || !reflect.DeepEqual(again, got) && len(got) > 0 {
			t.Fatalf("%q renders as %q, which reads back as %#v, %v; want %#v", s, got.String(), again, err, got)
		}
	})
}
