package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// WriteFileIn is WriteFile for name inside root: the file, its temporary
// and the rename never leave root, whatever name holds (.., an absolute
// path) or a symlink on the way points to.
func WriteFileIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return writeVia(rootOps{root}, name, perm, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteInNoSync calls fill with a writer on a temporary file beside name
// inside root and renames it over name when fill succeeds, without an
// fsync: for files fetched again when lost (downloads), where a sync per
// file would dominate. As with WriteFileIn, nothing leaves root.
func WriteInNoSync(root *os.Root, name string, perm os.FileMode, fill func(w io.Writer) error) error {
	return writeVia(rootOps{root}, name, perm, false, fill)
}

// ops are the file system calls of an atomic write: the os package's, or
// an os.Root's.
type ops interface {
	createTemp(dir, pattern string) (f *os.File, name string, err error)
	rename(oldname, newname string) error
	remove(name string) error
}

type osOps struct{}

func (osOps) createTemp(dir, pattern string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}
func (osOps) rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osOps) remove(name string) error             { return os.Remove(name) }

type rootOps struct{ r *os.Root }

func (o rootOps) createTemp(dir, pattern string) (*os.File, string, error) {
	for try := 0; ; try++ {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, strings.Replace(pattern, "*", hex.EncodeToString(b[:]), 1))
		f, err := o.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 10 {
			return f, name, err
		}
	}
}
func (o rootOps) rename(oldname, newname string) error { return o.r.Rename(oldname, newname) }
func (o rootOps) remove(name string) error             { return o.r.Remove(name) }

func write(path string, perm os.FileMode, sync bool, fill func(w io.Writer) error) error {
	return writeVia(osOps{}, path, perm, sync, fill)
}

func writeVia(o ops, path string, perm os.FileMode, sync bool, fill func(w io.Writer) error) (err error) {
	tmp, tmpName, err := o.createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done { // an error or a panic in fill
			tmp.Close()
			o.remove(tmpName)
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
	if err := o.rename(tmpName, path); err != nil {
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
