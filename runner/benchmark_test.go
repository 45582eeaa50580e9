package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

func TestParseBenchmarkErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want string // substring of the error, which names line, experiment and key
	}{
		{"empty", "", "empty file"},
		{"not a mapping", "- a\n- b\n", "b.yaml:1: expected a mapping"},
		{"syntax", "expe:\n  a: [1, 2\n", "b.yaml:"},
		{"unknown top-level key", "expe: {a: {pi: matmul}}\nexpes: {}\n", `b.yaml:2: key "expes": unknown top-level key`},
		{"no expe", "common_settings: {pi: matmul}\n", `key "expe": missing`},
		{"expe a list", "expe: [a, b]\n", `key "expe": must map`},
		{"bad experiment name", "expe:\n  ../x: {pi: matmul}\n", `b.yaml:2: experiment "../x": experiment names become directory names`},
		{"nested mapping", "expe:\n  a:\n    pi: matmul\n    opts: {x: 1}\n", `b.yaml:4: experiment "a": key "opts": settings are flat`},
		{"empty list", "expe:\n  a:\n    matrix_size: []\n", `b.yaml:3: experiment "a": key "matrix_size": an empty list gives no points`},
		{"list of lists", "expe:\n  a:\n    matrix_size: [[1, 2]]\n", `experiment "a": key "matrix_size": list values must be scalars`},
		{"duplicate value", "expe:\n  a:\n    matrix_size: [64, 128, 64]\n", `b.yaml:3: experiment "a": key "matrix_size": value 64 listed twice`},
		{"reserved @", "expe:\n  a:\n    \"@repeat\": 1\n", `key "@repeat": names starting with @ are reserved`},
		{"bad setting name", "expe:\n  a:\n    \"matrix size\": 1\n", `key "matrix size": setting names use`},
		{"repeat zero", "expe:\n  a:\n    repeat: 0\n", `b.yaml:3: experiment "a": key "repeat": must be one integer >= 1`},
		{"repeat list", "common_settings:\n  repeat: [1, 2]\nexpe:\n  a: {pi: matmul}\n", `b.yaml:2: experiment "a": key "repeat": must be one integer`},
		{"common not a mapping", "common_settings: [1]\nexpe: {a: {}}\n", "settings must be a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseBenchmark("b.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadBenchmarkExitCodes(t *testing.T) {
	t.Parallel()
	_, err := LoadBenchmark(filepath.Join(t.TempDir(), "missing.yaml"))
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("missing file: %v (code %d)", err, exitcode.Of(err))
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("expe: 3\n"), 0o644)
	_, err = LoadBenchmark(bad)
	var be *BenchmarkError
	if exitcode.Of(err) != exitcode.InvalidInput || !errors.As(err, &be) || be.Key != "expe" {
		t.Errorf("invalid file: %v", err)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	b, err := ParseBenchmark("b.yaml", []byte("expe:\n  a: {}\n  _off: {}\n  b: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(es []*Experiment) string {
		var s []string
		for _, e := range es {
			s = append(s, e.Name)
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		name    string
		sel     []string
		want    string
		wantErr string
	}{
		{name: "default skips _ experiments", want: "a,b"},
		{name: "--expe selects, in the order given", sel: []string{"b", "a", "b"}, want: "b,a"},
		{name: "a disabled experiment can be named", sel: []string{"_off"}, want: "_off"},
		{name: "unknown experiment", sel: []string{"c"}, wantErr: "--expe c: no such experiment in b.yaml (known: a, _off, b)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := b.Select(tc.sel)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || exitcode.Of(err) != exitcode.InvalidInput {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || names(got) != tc.want {
				t.Errorf("got %s, %v; want %s", names(got), err, tc.want)
			}
		})
	}
	only, _ := ParseBenchmark("b.yaml", []byte("expe:\n  _x: {}\n"))
	if _, err := only.Select(nil); err == nil || !strings.Contains(err.Error(), "every experiment is disabled") {
		t.Errorf("all disabled: %v", err)
	}
}
