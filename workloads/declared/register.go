package declared

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads"
)

// Load reads and checks a workload file. A file that does not exist or is
// invalid is InvalidInput; one that cannot be read, a failure.
func Load(path string) (*Workload, error) {
	data, err := parsers.ReadLimited(path, specLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, parsers.ErrTooLarge) || errors.Is(err, parsers.ErrNotRegular) {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "workload file: %w", err)
		}
		return nil, fmt.Errorf("workload file: %w", err)
	}
	w, err := New(path, data)
	if err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, err)
	}
	return w, nil
}

// Register returns r with w added, and the workload r then holds under
// w's name: w, or an earlier load of the same content (loading a file twice
// is harmless, and leaves r as it is). A name taken by another workload
// (pi, or a different file) is InvalidInput.
func Register(r *workloads.Registry, w *Workload) (*workloads.Registry, *Workload, error) {
	if old, ok := r.Get(w.Name()); ok {
		if o, isDeclared := old.(*Workload); isDeclared && o.Hash == w.Hash {
			return r, o, nil
		}
		what := "a built-in workload"
		if o, isDeclared := old.(*Workload); isDeclared {
			what = o.Source
		}
		return nil, nil, exitcode.Errorf(exitcode.InvalidInput, "%s: workload %q is already defined by %s", w.Source, w.Name(), what)
	}
	grown, err := r.With(w)
	if err != nil {
		return nil, nil, exitcode.With(exitcode.InvalidInput, fmt.Errorf("%s: %w", w.Source, err))
	}
	return grown, w, nil
}

// Use loads the workload file at path and returns r with it added (see
// Register).
func Use(r *workloads.Registry, path string) (*workloads.Registry, *Workload, error) {
	w, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	return Register(r, w)
}

// Discover adds the workload file at the top of a results directory, when
// there is one, to r; r and a nil workload when there is none.
func Discover(r *workloads.Registry, resultsDir string) (*workloads.Registry, *Workload, error) {
	path := filepath.Join(resultsDir, FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// No workload file; a results "directory" that is not one is
			// the verb's to report.
			return r, nil, nil
		}
		return nil, nil, fmt.Errorf("workload file: %w", err)
	}
	return Use(r, path)
}

// RegisterBuiltin registers a workload file embedded in the binary (an
// importer's) among the built-in workloads under name, from an init
// function. The file is parsed the first time a command asks for the
// workload (workloads.RegisterLazy): a broken one, or one of another
// name, panics then, as a programming error (the importers' tests load
// every one).
func RegisterBuiltin(name, source string, data []byte) {
	workloads.RegisterLazy(name, func() (workloads.Workload, error) {
		return New(source, data)
	})
}
