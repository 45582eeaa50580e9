package runner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// TestJoinProblems: the problems of a file, however they were joined on
// the way, come out once each in file order, at most maxReported and the
// rest counted, as invalid input.
func TestJoinProblems(t *testing.T) {
	t.Parallel()
	var a, b []error
	for line := 25; line >= 1; line-- {
		be := &BenchmarkError{File: "b.yaml", Line: line, Msg: "bad"}
		if line%2 == 0 {
			a = append(a, be)
		} else {
			b = append(b, be)
		}
	}
	err := JoinProblems(exitcode.With(exitcode.InvalidInput, errors.Join(a...)), errors.Join(b...), nil)
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("exit code %d", exitcode.Of(err))
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxReported+1 || lines[maxReported] != "... and 5 more" {
		t.Fatalf("%d lines, want %d and a count:\n%v", len(lines), maxReported+1, err)
	}
	for i, l := range lines[:maxReported] {
		if want := fmt.Sprintf("b.yaml:%d: bad", i+1); l != want {
			t.Errorf("line %d: %q, want %q", i, l, want)
		}
	}
	if JoinProblems(nil, nil) != nil {
		t.Error("no problem is no error")
	}
}
