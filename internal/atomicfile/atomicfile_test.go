package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteReplaces(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		write func(path string, data []byte) error
	}{
		{"WriteFile", func(p string, d []byte) error { return WriteFile(p, d, 0o640) }},
		{"WriteFileNoSync", func(p string, d []byte) error { return WriteFileNoSync(p, d, 0o640) }},
		{"Write", func(p string, d []byte) error {
			return Write(p, 0o640, func(w io.Writer) error { _, err := w.Write(d); return err })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "out.json")
			for _, content := range []string{"first, longer content", "second"} {
				if err := tt.write(p, []byte(content)); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(p)
				if err != nil || string(got) != content {
					t.Fatalf("read %q, %v; want %q", got, err, content)
				}
			}
			st, err := os.Stat(p)
			if err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, %v", st.Mode(), err)
			}
			if l := leftovers(t, dir); l != nil {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v, want boom naming the path", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		Write(p, 0o644, func(w io.Writer) error {
			w.Write([]byte("half"))
			panic("fill bug")
		})
	}()
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("target now %q", got)
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left: %v", l)
	}
	// A target that is a directory cannot be replaced: error, nothing left.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileNoSync(sub, []byte("x"), 0o644); err == nil {
		t.Error("replaced a directory")
	}
	if l := leftovers(t, dir); l != nil {
		t.Errorf("temporary files left: %v", l)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}
}

func TestWriteOutput(t *testing.T) {
	t.Parallel()
	fill := func(w io.Writer) error { _, err := io.WriteString(w, "doc\n"); return err }
	for _, path := range []string{"-", ""} {
		var out bytes.Buffer
		if err := WriteOutput(path, &out, fill); err != nil || out.String() != "doc\n" {
			t.Errorf("WriteOutput(%q): %q, %v", path, out.String(), err)
		}
	}
	dir := t.TempDir()
	var out bytes.Buffer
	p := filepath.Join(dir, "matrix.json")
	if err := WriteOutput(p, &out, fill); err != nil || out.Len() != 0 {
		t.Fatalf("%q, %v", out.String(), err)
	}
	if got, _ := os.ReadFile(p); string(got) != "doc\n" {
		t.Errorf("file holds %q", got)
	}
}

// TestWriteOutputToADevice: an output that is a device or a pipe
// (--output /dev/stderr, a FIFO, /dev/null) is written to, never replaced
// by a regular file (as root, a rename over /dev/null replaces it for the
// whole machine).
func TestWriteOutputToADevice(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = WriteOutput(fifo, nil, func(w io.Writer) error { _, err := io.WriteString(w, "payloads\n"); return err })
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	got, _ := io.ReadAll(r)
	if string(got) != "payloads\n" {
		t.Errorf("read %q from the FIFO", got)
	}
}
