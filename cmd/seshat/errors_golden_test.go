package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestErrorMessagesGolden pins what a user sees for the common mistakes
// (testdata/golden/errors.txt): every problem of a benchmark file at once,
// each with its line; the nearest flag for an unknown one; the valid
// sections for an unknown one in seshat.yaml. Each is invalid input (4)
// and nothing runs.
func TestErrorMessagesGolden(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"run", "--dry-run", "--benchmark", "../../testdata/benchmarks/three_mistakes.yaml"},
		{"run", "--dry-run", "--benchmark", "../../testdata/benchmarks/shape_mistakes.yaml"},
		{"run", "--buidl-id", "nightly-01"},
		{"parse", "--results-dri", "results"},
		{"parse", "--no-such-flag"},
		{"--config", "internal/config/testdata/unknown_section.bad.yaml", "parse", "--results-dir", "results"},
		{"--config", "internal/config/testdata/unknown_nested_key.bad.yaml", "parse", "--results-dir", "results"},
	}
	var out strings.Builder
	for _, args := range cases {
		r := runSeshat(t, nil, args...)
		fmt.Fprintf(&out, "$ seshat %s\nexit %d\n%s\n", strings.Join(args, " "), r.code, r.stderr)
		if r.code != 4 || r.stdout != "" {
			t.Errorf("seshat %s: exit %d, want 4 and nothing on stdout", strings.Join(args, " "), r.code)
		}
	}
	checkGolden(t, "errors.txt", out.String())
}
