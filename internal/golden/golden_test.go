package golden_test

import (
	"path/filepath"
	"testing"

	"github.com/seshat-bench/seshat/internal/golden"
)

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out", "a.txt")
	golden.Check(t, path, []byte("a\n"), true)
	golden.Check(t, path, []byte("a\n"), false)
	r := &recorder{TB: t}
	golden.Check(r, path, []byte("b\n"), false)
	if !r.failed {
		t.Error("a different output passed")
	}
}
