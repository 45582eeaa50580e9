package parsers

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ExitCode decodes the content of an exit_code file: one integer, surrounding
// white space allowed.
func ExitCode(name string, data []byte) (int, error) {
	s := string(bytes.TrimSpace(data))
	if s == "" {
		return 0, &SyntaxError{File: name, Line: 1, Msg: "empty exit code"}
	}
	if !utf8.ValidString(s) {
		return 0, &SyntaxError{File: name, Line: 1, Msg: "exit code is not text (binary content)"}
	}
	code, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		why := "is not an integer"
		if errors.Is(err, strconv.ErrRange) {
			why = "is out of range"
		}
		return 0, &SyntaxError{File: name, Line: 1, Msg: "exit code " + strconv.Quote(Truncate(s, 40)) + " " + why}
	}
	return int(code), nil
}

// UUID decodes a .uuid file: one UUID, surrounding white space allowed. The
// canonical lower-case hyphenated form is returned.
func UUID(name string, data []byte) (string, error) {
	s := string(bytes.TrimSpace(data))
	if s == "" {
		return "", &SyntaxError{File: name, Line: 1, Msg: "empty UUID"}
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", &SyntaxError{File: name, Line: 1, Msg: "invalid UUID " + strconv.Quote(Truncate(s, 40))}
	}
	return u.String(), nil
}

// Truncate cuts s to at most n bytes on a rune boundary, marking the cut
// with "...": for quoting bad input in messages.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
