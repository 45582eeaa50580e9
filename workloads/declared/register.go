package declared

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
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

// registerMu makes Register's look-up and add one step.
var registerMu sync.Mutex

// Register adds w to the workloads registry and returns the workload
// registered under its name: w, or an earlier load of the same content
// (loading a file twice is harmless). A name taken by another workload (pi,
// or a different file) is InvalidInput.
func Register(w *Workload) (*Workload, error) {
	registerMu.Lock()
	defer registerMu.Unlock()
	if old, ok := workloads.Get(w.Name()); ok {
		if o, isDeclared := old.(*Workload); isDeclared && o.Hash == w.Hash {
			return o, nil
		}
		what := "a built-in workload"
		if o, isDeclared := old.(*Workload); isDeclared {
			what = o.Source
		}
		return nil, exitcode.Errorf(exitcode.InvalidInput, "%s: workload %q is already defined by %s", w.Source, w.Name(), what)
	}
	if err := workloads.Add(w); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, fmt.Errorf("%s: %w", w.Source, err))
	}
	return w, nil
}

// Use loads the workload file at path and registers it.
func Use(path string) (*Workload, error) {
	w, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Register(w)
}

// Discover registers the workload file at the top of a results directory,
// when there is one; nil, nil when there is none.
func Discover(resultsDir string) (*Workload, error) {
	path := filepath.Join(resultsDir, FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// No workload file; a results "directory" that is not one is
			// the verb's to report.
			return nil, nil
		}
		return nil, fmt.Errorf("workload file: %w", err)
	}
	return Use(path)
}

// MustRegisterBuiltin registers a workload file embedded in the binary (an
// importer's), from an init function: a broken one panics, as a programming
// error.
func MustRegisterBuiltin(source string, data []byte) *Workload {
	w, err := New(source, data)
	if err != nil {
		panic(err)
	}
	workloads.Register(w)
	return w
}
