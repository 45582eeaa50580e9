package runner

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/internal/atomicfile"
)

// A run directory travels through a pod's log (the kubernetes executor) as
// a gzipped tar, base64-encoded between these lines, so that it survives a
// log stream made for text and is found among whatever else the container
// printed.
const (
	archiveBegin = "-----BEGIN SESHAT RUN ARCHIVE-----"
	archiveEnd   = "-----END SESHAT RUN ARCHIVE-----"
)

// archiveLimit bounds what ExtractArchive writes (a corrupt or hostile
// archive must not fill the disk).
const archiveLimit = 1 << 30

// WriteArchive writes the regular files of dir (and of its
// subdirectories) as an armoured archive: a BEGIN line, base64 lines of a
// gzipped tar, an END line.
func WriteArchive(w io.Writer, dir string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, archiveBegin)
	lw := &lineWriter{w: bw}
	if err := encodeArchive(lw, dir); err != nil {
		return err
	}
	if err := lw.Close(); err != nil {
		return err
	}
	fmt.Fprintln(bw, archiveEnd)
	return bw.Flush()
}

// EncodeArchive is the archive of dir's files as one base64 string: how
// the kubernetes executor hands a pod the run's settings (run-point
// --prelude).
func EncodeArchive(dir string) (string, error) {
	var b strings.Builder
	if err := encodeArchive(&b, dir); err != nil {
		return "", err
	}
	return b.String(), nil
}

func encodeArchive(w io.Writer, dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	enc := base64.NewEncoder(base64.StdEncoding, w)
	zw := gzip.NewWriter(enc)
	tw := tar.NewWriter(zw)
	for _, path := range files {
		if err := addFile(tw, dir, path); err != nil {
			return err
		}
	}
	for _, c := range []io.Closer{tw, zw, enc} {
		if err := c.Close(); err != nil {
			return err
		}
	}
	return nil
}

func addFile(tw *tar.Writer, dir, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, st.Size())
	return err
}

// lineWriter breaks base64 into 76-character lines.
type lineWriter struct {
	w   io.Writer
	col int
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(76-l.col, len(p))
		if _, err := l.w.Write(p[:k]); err != nil {
			return n, err
		}
		n += k
		l.col += k
		p = p[k:]
		if l.col == 76 {
			if _, err := io.WriteString(l.w, "\n"); err != nil {
				return n, err
			}
			l.col = 0
		}
	}
	return n, nil
}

func (l *lineWriter) Close() error {
	if l.col > 0 {
		l.col = 0
		_, err := io.WriteString(l.w, "\n")
		return err
	}
	return nil
}

// ErrNoArchive is returned by ExtractArchive when the input holds no
// complete archive (the container died before printing it, or the log was
// cut).
var ErrNoArchive = errors.New("no complete run archive in the log")

// ExtractArchive finds the last complete armoured archive in r (lines
// before and after are ignored) and writes its files into dir, each
// atomically, exit_code last: dir is complete only once everything else
// is there. Entries that would land outside dir, that are not regular
// files, or that exceed the size limit are errors; nothing is written
// then. It returns the names written.
func ExtractArchive(r io.Reader, dir string) ([]string, error) {
	payload, err := findArchive(r)
	if err != nil {
		return nil, err
	}
	return ExtractPayload(payload, dir)
}

// ExtractPayload writes the files of a base64 archive (EncodeArchive) into
// dir, as ExtractArchive does.
func ExtractPayload(payload []byte, dir string) ([]string, error) {
	files, err := readArchive(payload)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		// exit_code last, whatever the order of the tar.
		if (names[i] == ExitCodeFile) != (names[j] == ExitCodeFile) {
			return names[j] == ExitCodeFile
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(path, files[name], 0o644); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// findArchive returns the base64 payload of the last complete archive.
func findArchive(r io.Reader) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cur, last []byte
	in, found := false, false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == archiveBegin:
			in, cur = true, cur[:0]
		case line == archiveEnd && in:
			in, found = false, true
			last = append(last[:0], cur...)
		case in:
			cur = append(cur, line...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the log: %w", err)
	}
	if !found {
		return nil, ErrNoArchive
	}
	return last, nil
}

// readArchive decodes a payload into file contents by slash path.
func readArchive(payload []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(payload)))
	if err != nil {
		return nil, fmt.Errorf("run archive: %w", err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("run archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("run archive: %s: not a regular file", hdr.Name)
		}
		if !filepath.IsLocal(filepath.FromSlash(hdr.Name)) || strings.Contains(hdr.Name, "\\") {
			return nil, fmt.Errorf("run archive: %s: a path outside the run directory", hdr.Name)
		}
		if hdr.Size < 0 || total+hdr.Size > archiveLimit {
			return nil, fmt.Errorf("run archive: larger than %d bytes", archiveLimit)
		}
		data := make([]byte, 0, min(hdr.Size, 1<<20))
		buf := bytes.NewBuffer(data)
		if _, err := io.CopyN(buf, tr, hdr.Size); err != nil {
			return nil, fmt.Errorf("run archive: %s: %w", hdr.Name, err)
		}
		total += hdr.Size
		files[hdr.Name] = buf.Bytes()
	}
	// Read to the gzip trailer: its checksum catches a damaged payload.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, fmt.Errorf("run archive: %w", err)
	}
	return files, nil
}
