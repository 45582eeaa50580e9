package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically with the given permissions, and
// syncs it before the rename so that a crash leaves the old or the new
// content.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write calls fill with a writer on a temporary file beside path and renames
// it over path when fill succeeds; the file is synced first.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	return write(path, perm, true, fill)
}

// WriteFileNoSync is WriteFile without the fsync: the rename is still atomic
// for readers, but the content may be lost on a crash. For caches, where a
// lost file costs a recomputation and a sync per file would dominate.
func WriteFileNoSync(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func write(path string, perm os.FileMode, sync bool, fill func(w io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done { // an error or a panic in fill
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done = true
	return nil
}

// WriteOutput writes to stdout when path is "-" (or empty), else atomically
// to path: the output a user asked for with --output-like flags. A path
// that is a device, a FIFO or a socket (/dev/stderr, /dev/null, a pipe) is
// written to as it is: renaming a file over it would replace it (for
// /dev/null, as root, for the whole machine).
func WriteOutput(path string, stdout io.Writer, fill func(io.Writer) error) error {
	if path == "" || path == "-" {
		return fill(stdout)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := fill(f); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return Write(path, 0o644, fill)
}
