package parsers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes, limit %d: %w", size, limit, ErrTooLarge)}
	}
	// The file may grow between Stat and Read: never read past limit.
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPathErr(err)}
	}
	if int64(buf.Len()) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)}
	}
	return buf.Bytes(), nil
}

// ReadTail reads at most the last n bytes of a regular file, for logs that
// may be huge. When the cut falls inside a UTF-8 sequence the partial rune
// is dropped, so the tail prints cleanly.
func ReadTail(path string, n int64) ([]byte, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n < 0 {
		n = 0
	}
	off := max(size-n, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, n))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPathErr(err)}
	}
	if off > 0 {
		for i := 0; i < utf8.UTFMax && len(data) > 0 && !utf8.RuneStart(data[0]); i++ {
			data = data[1:]
		}
	}
	return data, nil
}

// openRegular opens path for reading when it is a regular file (symlinks
// followed). The type is checked before opening: opening a FIFO for reading
// would block until a writer comes, hanging the whole parse.
func openRegular(path string) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	// The path may have been replaced between Stat and Open.
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
		}
		return nil, 0, err
	}
	return f, st.Size(), nil
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
