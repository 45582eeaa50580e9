package parsers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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

// ErrTooLarge is wrapped by ReadLimited when a file is larger than its limit.
var ErrTooLarge = errors.New("file too large")

// DefaultLimit is the largest artifact file read whole (64 MiB).
const DefaultLimit = 64 << 20

// ReadLimited reads a whole regular file of at most limit bytes. Larger files,
// directories and special files are refused with an error naming the path.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, limit %d: %w", path, st.Size(), limit, ErrTooLarge)
	}
	// The file may grow between Stat and Read: never read past limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes: %w", path, limit, ErrTooLarge)
	}
	return data, nil
}

// ReadTail reads at most the last n bytes of a regular file, for logs that
// may be huge.
func ReadTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	off := st.Size() - n
	if off < 0 {
		off = 0
	}
	data, err := io.ReadAll(io.NewSectionReader(f, off, n))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// lineOf returns the 1-based line holding byte offset off of data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
