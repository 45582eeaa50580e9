package parsers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"unicode/utf8"
)

// SyntaxError reports malformed content in an artifact file.
type SyntaxError struct {
	File  string // file name as the caller gave it
	Line  int    // 1-based line, 0 when unknown
	Field string // JSON/YAML path of the offending field, "" when unknown
	Msg   string
}

func (e *SyntaxError) Error() string {
	var b bytes.Buffer
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

var (
	// ErrTooLarge is wrapped by ReadLimited when a file is larger than its
	// limit.
	ErrTooLarge = errors.New("file too large")
	// ErrNotRegular is wrapped when a path names a directory, a FIFO, a
	// device or a socket instead of a regular file.
	ErrNotRegular = errors.New("not a regular file")
)

// DefaultLimit is the largest artifact file read whole (64 MiB).
const DefaultLimit = 64 << 20

// ReadLimited reads a whole regular file of at most limit bytes. Larger files,
// directories and special files are refused. Every error is an *fs.PathError
// naming path, so callers can report the path their own way (unwrap it) and
// still test the cause with errors.Is (fs.ErrNotExist, ErrTooLarge,
// ErrNotRegular).
func ReadLimited(path string, limit int64) ([]byte, error) {
	data, _, err := ReadLimitedStat(path, limit)
	return data, err
}

// ReadLimitedStat is ReadLimited that also returns what the open file was
// when read (nil if it could not be opened): callers that stamp what they
// read (the parse cache) get size and mtime without a second stat.
func ReadLimitedStat(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	size := st.Size()
	if size > limit {
		return nil, st, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes, limit %d: %w", size, limit, ErrTooLarge)}
	}
	data, err := readAll(io.LimitReader(f, limit+1), size)
	if err != nil {
		return nil, st, &fs.PathError{Op: "read", Path: path, Err: unwrapPathErr(err)}
	}
	// The file may grow between Stat and Read: never read past limit.
	if int64(len(data)) > limit {
		return nil, st, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)}
	}
	return data, st, nil
}

// readAll reads r to the end into a buffer sized for size bytes (what stat
// said), growing only if the file grew: io.ReadAll and bytes.Buffer would
// allocate and copy again for every file, on the hot path of a parse.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1) // +1: the read that sees EOF needs room
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// ReadTail reads at most the last n bytes of a regular file, for logs that
// may be huge. When the cut falls inside a UTF-8 sequence the partial rune
// is dropped, so the tail prints cleanly.
func ReadTail(path string, n int64) ([]byte, error) {
	data, _, err := ReadTailStat(path, n)
	return data, err
}

// ReadTailStat is ReadTail that also returns what the file was when read.
func ReadTailStat(path string, n int64) ([]byte, fs.FileInfo, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	n = max(n, 0)
	off := max(st.Size()-n, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, n))
	if err != nil {
		return nil, st, &fs.PathError{Op: "read", Path: path, Err: unwrapPathErr(err)}
	}
	if off > 0 {
		for i := 0; i < utf8.UTFMax && len(data) > 0 && !utf8.RuneStart(data[0]); i++ {
			data = data[1:]
		}
	}
	return data, st, nil
}

// openRegular opens path for reading when it is a regular file (symlinks
// followed). It opens non-blocking: opening a FIFO for reading would
// otherwise wait for a writer and hang the whole parse. The returned
// FileInfo is set whenever the open succeeded.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, st, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return f, st, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lineOf returns the 1-based line holding byte offset off of data.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}
