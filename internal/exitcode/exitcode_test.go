package exitcode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	base := errors.New("base")
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, Success},
		{"plain error is a failure", base, Failure},
		{"attached", With(NoData, base), NoData},
		{"wrapped with %w", fmt.Errorf("parse: %w", With(InvalidInput, base)), InvalidInput},
		{"outermost wins", With(Failure, fmt.Errorf("x: %w", With(InvalidInput, base))), Failure},
		{"Errorf", Errorf(RegressionFound, "2 regressions"), RegressionFound},
		{"joined: the first coded", errors.Join(base, With(InvalidInput, base), With(NoData, base)), InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestErrorChain(t *testing.T) {
	t.Parallel()
	if With(InvalidInput, nil) != nil {
		t.Error("With(nil) is not nil")
	}
	err := Errorf(Failure, "results directory: %w", fs.ErrNotExist)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "results directory: file does not exist" {
		t.Errorf("%v does not wrap fs.ErrNotExist", err)
	}
	// The codes are the CLI contract: never renumber them.
	if Success != 0 || Failure != 1 || RegressionFound != 2 || NoData != 3 || InvalidInput != 4 {
		t.Error("exit codes changed")
	}
}

func TestInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, missing := os.Open(filepath.Join(dir, "missing"))
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	_, notDir := os.Open(filepath.Join(file, "below"))
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, Success},
		{"missing", fmt.Errorf("--ack: %w", missing), InvalidInput},
		{"below a file", notDir, InvalidInput},
		{"permission", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, Failure},
	}
	for _, tt := range tests {
		if got := Of(Input(tt.err)); got != tt.want {
			t.Errorf("%s: Of(Input(%v)) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}
