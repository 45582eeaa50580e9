package runner

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// armouredLog writes a pod log to path: before, then one archive of a tar
// whose entries add writes (then tail, written into the gzip stream after
// the tar's end), base64 in lines of 76 characters unless oneLine.
func armouredLog(t *testing.T, path, before string, oneLine bool, add func(tw *tar.Writer) error, tail int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, before+archiveBegin+"\n")
	var out io.Writer = f
	lw := &lineWriter{w: f}
	if !oneLine {
		out = lw
	}
	enc := base64.NewEncoder(base64.StdEncoding, out)
	zw, _ := gzip.NewWriterLevel(enc, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	if err := add(tw); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(zw, zeroReader{}, tail); err != nil {
		t.Fatal(err)
	}
	for _, c := range []io.Closer{zw, enc, lw} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	io.WriteString(f, "\n"+archiveEnd+"\ntrailing line\n")
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// tarFile adds a file of size bytes from r (zeros when nil).
func tarFile(tw *tar.Writer, name string, size int64, r io.Reader) error {
	if r == nil {
		r = zeroReader{}
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := io.CopyN(tw, r, size)
	return err
}

func tarFiles(files ...string) func(tw *tar.Writer) error {
	return func(tw *tar.Writer) error {
		for _, name := range files {
			if err := tarFile(tw, name, 600, nil); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestArchiveLimits: an archive that passes a limit (a file's size, the
// files' number, their size in all, or what its gzip stream holds after
// the tar) is refused, naming the limit, and nothing is written.
func TestArchiveLimits(t *testing.T) {
	t.Parallel()
	lim := archiveLimits{bytes: 3000, files: 3, fileSize: 1000}
	tests := []struct {
		name string
		add  func(tw *tar.Writer) error
		tail int64
		want string
	}{
		{"a file too large", func(tw *tar.Writer) error { return tarFile(tw, StdoutFile, 1001, nil) }, 0,
			"stdout.log: 1001 bytes, over the limit of 1000 bytes a file"},
		{"too many files", tarFiles("a", "b", "c", "d"), 0, "more than 3 files, the limit"},
		{"too large in all", tarFiles("a", "b", "c/d", "a", "b", "a"), 0, "a: over the limit of 3000 bytes in all"},
		{"zeros after the tar", tarFiles("a"), 4 << 20, "over the limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "pod.log")
			armouredLog(t, log, "", false, tc.add, tc.tail)
			f, err := os.Open(log)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dir := t.TempDir()
			_, err = extractArchive(f, dir, lim)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused archive wrote %v", entries)
			}
		})
	}
	// Within the limits, a file may be repeated (the last copy wins; its
	// every copy counts in all).
	log := filepath.Join(t.TempDir(), "pod.log")
	armouredLog(t, log, "", false, tarFiles("a", "b", "a", ExitCodeFile), 0)
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if names, err := extractArchive(f, t.TempDir(), lim); err != nil || strings.Join(names, " ") != "a b exit_code" {
		t.Errorf("names %v, error %v", names, err)
	}
}

// TestArchiveUnpackMemory: unpacking a run archive stays within 64 MB of
// memory whatever the archive holds: a file of zeros larger than the limit
// of a file (refused from its header), one just within it (streamed to
// disk), log lines of any length around it, and a payload on one line.
// Each case runs in a process of its own, which reports its peak RSS
// (VmHWM; a 1.4 MB log of 1 GiB of zeros took 2.1 GB).
func TestArchiveUnpackMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes a quarter of a GiB")
	}
	const maxRSS = 64 << 20
	random := func(n int64) io.Reader { return io.LimitReader(rand.Reader, n) }
	tests := []struct {
		name, before string
		oneLine      bool
		add          func(tw *tar.Writer) error
		want         string // the error; "" for success
	}{
		{name: "zeros over the limit of a file", want: "over the limit of 268435456 bytes a file",
			add: func(tw *tar.Writer) error { return tarFile(tw, StdoutFile, archiveMaxFileSize+1, nil) }},
		{name: "zeros within the limit of a file",
			add: func(tw *tar.Writer) error { return tarFile(tw, StdoutFile, 200<<20, nil) }},
		{name: "a line of 48 MiB before the archive", before: strings.Repeat("x", 48<<20) + "\n",
			add: func(tw *tar.Writer) error { return tarFile(tw, "pi.json", 100, nil) }},
		{name: "the payload on one line of 43 MiB", oneLine: true,
			add: func(tw *tar.Writer) error { return tarFile(tw, StdoutFile, 32<<20, random(32<<20)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "pod.log")
			armouredLog(t, log, tc.before, tc.oneLine, tc.add, 0)
			run := filepath.Join(dir, "run")
			if err := os.Mkdir(run, 0o755); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "SESHAT_HELPER=extract "+log+" "+run)
			c.Stdout, c.Stderr = &stdout, &stderr
			err := c.Run()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v: %s", err, stderr.String())
			case tc.want != "" && !strings.Contains(stderr.String(), tc.want):
				t.Errorf("%v: %q, want %q", err, stderr.String(), tc.want)
			}
			// The helper's own VmHWM: the rusage of a child started with
			// CLONE_VM counts this process's memory too.
			var rss int64
			if _, err := fmt.Sscanf(stdout.String(), "VmHWM: %d kB", &rss); err != nil {
				t.Fatalf("no peak RSS from the helper (%q): %v", stdout.String(), err)
			}
			rss *= 1024
			t.Logf("peak RSS %.1f MB", float64(rss)/1e6)
			if rss > maxRSS {
				t.Errorf("peak RSS %d bytes, over %d", rss, maxRSS)
			}
		})
	}
}
