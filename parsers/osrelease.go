package parsers

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
)

// OSRelease decodes an os-release file (freedesktop.org format): KEY=value
// lines, values optionally quoted with shell rules, `#` comments and blank
// lines ignored. Malformed lines are skipped and reported together in the
// error (each a *SyntaxError with its line); the keys that did decode are
// returned either way, so one odd line never hides the distribution name.
func OSRelease(name string, data []byte) (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, raw, ok := strings.Cut(text, "=")
		if !ok || !validOSReleaseKey(key) {
			errs = append(errs, &SyntaxError{File: name, Line: line, Msg: "expected KEY=value, found " + quoteShort(text)})
			continue
		}
		val, err := unquoteShell(raw)
		if err != nil {
			errs = append(errs, &SyntaxError{File: name, Line: line, Field: key, Msg: err.Error()})
			continue
		}
		out[key] = val
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, &SyntaxError{File: name, Line: line + 1, Msg: err.Error()})
	}
	return out, errors.Join(errs...)
}

func validOSReleaseKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r >= 'A' && r <= 'Z', r == '_':
		case r >= '0' && r <= '9' && i > 0:
		case r >= 'a' && r <= 'z': // not in the spec, but harmless
		default:
			return false
		}
	}
	return true
}

// unquoteShell undoes the quoting os-release allows: "..." with backslash
// escapes of " \ ` $, '...' taken literally, or a bare word.
func unquoteShell(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	switch s[0] {
	case '\'':
		end := strings.IndexByte(s[1:], '\'') + 1
		switch {
		case end == 0:
			return "", errors.New("unterminated single-quoted value")
		case end != len(s)-1:
			return "", errors.New("text after the closing quote")
		}
		return s[1:end], nil
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				if n := s[i]; n != '"' && n != '\\' && n != '`' && n != '$' {
					b.WriteByte('\\')
				}
				b.WriteByte(s[i])
			case c == '"':
				if i != len(s)-1 {
					return "", errors.New("text after the closing quote")
				}
				return b.String(), nil
			default:
				b.WriteByte(c)
			}
		}
		return "", errors.New("unterminated double-quoted value")
	}
	if strings.ContainsAny(s, " \t\"'`$\\") {
		return "", errors.New("unquoted value with spaces or shell characters")
	}
	return s, nil
}

func quoteShort(s string) string {
	return `"` + Truncate(s, 40) + `"`
}
