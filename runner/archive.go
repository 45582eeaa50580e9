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
	"slices"
	"sort"
	"strings"
)

// A run directory travels through a pod's log (the kubernetes executor) as
// a gzipped tar, base64-encoded between these lines, so that it survives a
// log stream made for text and is found among whatever else the container
// printed.
const (
	archiveBegin = "-----BEGIN SESHAT RUN ARCHIVE-----"
	archiveEnd   = "-----END SESHAT RUN ARCHIVE-----"
)

// What ExtractArchive writes is bounded (a corrupt or hostile archive must
// fill neither the disk nor memory): its files' sizes in all, their
// number, and the size of each. Nothing of an archive is held in memory
// whole: it is unpacked as it is read (see ExtractArchive).
const (
	archiveMaxBytes    = 1 << 30
	archiveMaxFiles    = 10000
	archiveMaxFileSize = 256 << 20
)

// archiveLimits are the bounds of one extraction (tests lower them).
type archiveLimits struct {
	bytes, files, fileSize int64
}

var defaultArchiveLimits = archiveLimits{bytes: archiveMaxBytes, files: archiveMaxFiles, fileSize: archiveMaxFileSize}

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

// errCut ends the payload of an archive that stops before its END line:
// the log ended, or another archive began.
var errCut = errors.New("the archive stops before its end line")

// ExtractArchive finds the last complete armoured archive in r (lines
// before and after are ignored) and writes its files into dir, exit_code
// last: dir is complete only once everything else is there. Entries that
// would land outside dir, that are not regular files, or that pass a
// limit (archiveMaxBytes in all, archiveMaxFiles files, archiveMaxFileSize
// a file: the error names it) are errors; nothing is written then. It
// returns the names written.
//
// The log is streamed: each archive is decoded (base64, gzip, tar) as its
// lines are read and unpacked into a hidden directory of dir, which the
// next complete archive replaces; the last one's files are then renamed
// into place. Memory stays a few buffers whatever the log holds (a huge
// file of zeros, lines of any length), and a file's size is checked from
// its header before any of it is read.
func ExtractArchive(r io.Reader, dir string) ([]string, error) {
	return extractArchive(r, dir, defaultArchiveLimits)
}

// ExtractPayload writes the files of a base64 archive (EncodeArchive) into
// dir, as ExtractArchive does.
func ExtractPayload(payload []byte, dir string) ([]string, error) {
	st, err := unpackArchive(bytes.NewReader(payload), dir, defaultArchiveLimits)
	if err != nil {
		return nil, err
	}
	defer st.remove()
	return st.commit()
}

func extractArchive(r io.Reader, dir string, lim archiveLimits) ([]string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var last *stagedArchive // the last complete archive, unpacked
	var lastErr error       // or why it could not be
	defer func() { last.remove() }()
	begun := false // an archive's BEGIN line was just read
	for {
		if !begun {
			found, err := skipToBegin(br)
			if err != nil {
				return nil, fmt.Errorf("read the log: %w", err)
			}
			if !found {
				break
			}
		}
		ar := &armorReader{br: br}
		st, err := unpackArchive(ar, dir, lim)
		if err != nil {
			// Read to its END line, to know whether it was complete.
			_, _ = io.Copy(io.Discard, ar)
		}
		if ar.err != nil {
			st.remove()
			return nil, fmt.Errorf("read the log: %w", ar.err)
		}
		if !ar.ended { // cut: by the end of the log, or by another archive
			st.remove()
			if begun = ar.restart; begun {
				continue
			}
			break
		}
		begun = false
		last.remove()
		last, lastErr = st, err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	if last == nil {
		return nil, ErrNoArchive
	}
	return last.commit()
}

// skipToBegin reads r up to the next BEGIN line (true), or its end
// (false). Lines are never held whole: a long one is read in chunks.
func skipToBegin(r *bufio.Reader) (bool, error) {
	midLine := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !midLine && (err == nil || err == io.EOF) && string(trimEOL(chunk)) == archiveBegin {
			return true, nil
		}
		midLine = err == bufio.ErrBufferFull
		switch {
		case err == io.EOF:
			return false, nil
		case err != nil && !midLine:
			return false, err
		}
	}
}

func trimEOL(line []byte) []byte {
	return bytes.TrimRight(line, "\r\n")
}

// armorReader reads the base64 payload of one archive, its BEGIN line
// read already, up to its END line (then io.EOF, ended set). Newlines are
// passed on: the base64 decoder skips them. The log ending first, or
// another BEGIN line (restart set), is errCut; a failed read of the log is
// kept in err.
type armorReader struct {
	br                  *bufio.Reader
	pending             []byte // the rest of the current chunk of a line
	midLine             bool   // the last chunk did not end its line
	ended, restart, eof bool
	err                 error
}

func (a *armorReader) Read(p []byte) (int, error) {
	for len(a.pending) == 0 {
		switch {
		case a.ended:
			return 0, io.EOF
		case a.restart, a.eof, a.err != nil:
			return 0, errCut
		}
		chunk, err := a.br.ReadSlice('\n')
		if !a.midLine && (err == nil || err == io.EOF) {
			switch string(trimEOL(chunk)) {
			case archiveEnd:
				a.ended = true
				continue
			case archiveBegin:
				a.restart = true
				continue
			}
		}
		a.midLine = err == bufio.ErrBufferFull
		a.pending = chunk // valid until the next read of br: used up first
		if err != nil && !a.midLine {
			// The log's last bytes, if any, are passed on; errCut next.
			a.eof = err == io.EOF
			if !a.eof {
				a.err = err
			}
		}
	}
	n := copy(p, a.pending)
	a.pending = a.pending[n:]
	return n, nil
}

// stagedArchive is an archive unpacked into a hidden directory of the
// run directory, waiting to be moved into place.
type stagedArchive struct {
	dir, stage string // the run directory; the staging directory's name in it
	names      []string
}

// unpackArchive decodes a base64 payload (a gzipped tar) from r into a new
// staging directory of dir, within lim, and checks the gzip checksum.
func unpackArchive(r io.Reader, dir string, lim archiveLimits) (*stagedArchive, error) {
	stage, err := os.MkdirTemp(dir, ".seshat-archive-")
	if err != nil {
		return nil, fmt.Errorf("run archive: %w", err)
	}
	st := &stagedArchive{dir: dir, stage: filepath.Base(stage)}
	if err := st.unpack(r, lim); err != nil {
		st.remove()
		return nil, err
	}
	return st, nil
}

func (st *stagedArchive) unpack(r io.Reader, lim archiveLimits) error {
	root, err := os.OpenRoot(filepath.Join(st.dir, st.stage))
	if err != nil {
		return fmt.Errorf("run archive: %w", err)
	}
	defer root.Close()
	zr, err := gzip.NewReader(base64.NewDecoder(base64.StdEncoding, r))
	if err != nil {
		return fmt.Errorf("run archive: %w", err)
	}
	// Headers, padding and whatever follows the tar count too: a stream of
	// zeros after its end must not run for ever.
	body := &boundedReader{r: zr, limit: lim.bytes + lim.files*1024 + 1<<20}
	tr := tar.NewReader(body)
	seen := map[string]bool{}
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("run archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return fmt.Errorf("run archive: %s: not a regular file", hdr.Name)
		}
		if !filepath.IsLocal(filepath.FromSlash(hdr.Name)) || strings.Contains(hdr.Name, "\\") {
			return fmt.Errorf("run archive: %s: a path outside the run directory", hdr.Name)
		}
		switch {
		case !seen[hdr.Name] && int64(len(seen)) >= lim.files:
			return fmt.Errorf("run archive: more than %d files, the limit", lim.files)
		case hdr.Size < 0 || hdr.Size > lim.fileSize:
			return fmt.Errorf("run archive: %s: %d bytes, over the limit of %d bytes a file", hdr.Name, hdr.Size, lim.fileSize)
		case total+hdr.Size > lim.bytes:
			return fmt.Errorf("run archive: %s: over the limit of %d bytes in all", hdr.Name, lim.bytes)
		}
		total += hdr.Size
		if err := writeEntry(root, hdr, tr); err != nil {
			return fmt.Errorf("run archive: %s: %w", hdr.Name, err)
		}
		if !seen[hdr.Name] {
			seen[hdr.Name] = true
			st.names = append(st.names, hdr.Name)
		}
	}
	// Read to the gzip trailer: its checksum catches a damaged payload.
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fmt.Errorf("run archive: %w", err)
	}
	return nil
}

// writeEntry writes one file of the archive, synced, inside root.
func writeEntry(root *os.Root, hdr *tar.Header, r io.Reader) error {
	name := filepath.FromSlash(hdr.Name)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, r, hdr.Size)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// boundedReader fails once more than limit bytes were read.
type boundedReader struct {
	r           io.Reader
	limit, read int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read >= b.limit {
		return 0, fmt.Errorf("more than %d bytes unpacked, over the limit", b.limit)
	}
	n, err := b.r.Read(p[:min(int64(len(p)), b.limit-b.read)])
	b.read += int64(n)
	return n, err
}

// commit renames the staged files into the run directory, exit_code last
// whatever the order of the tar, and returns their names in that order.
func (st *stagedArchive) commit() ([]string, error) {
	root, err := os.OpenRoot(st.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	names := slices.Clone(st.names)
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == ExitCodeFile) != (names[j] == ExitCodeFile) {
			return names[j] == ExitCodeFile
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		rel := filepath.FromSlash(name)
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return nil, err
		}
		if err := root.Rename(filepath.Join(st.stage, rel), rel); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// remove deletes the staging directory (nil: nothing to do).
func (st *stagedArchive) remove() {
	if st != nil {
		_ = os.RemoveAll(filepath.Join(st.dir, st.stage))
	}
}
