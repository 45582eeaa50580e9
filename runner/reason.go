package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/parsers"
)

// maxReason bounds the end of stderr a summary line shows, in characters.
const maxReason = 160

// stderrReasonTail is how much of the end of stderr.log is read for it.
const stderrReasonTail = 16 << 10

// StderrReason is what a failed run's summary line adds to its exit code:
// the last non-empty line of its stderr.log, which is the PI's error (a
// `seshat pi` error has its "seshat: " prefix cut) or the last line the
// exec PI's command wrote. The notes seshat run appends itself ("seshat
// run: killed 2 processes ...") are passed over. The line is cut to
// maxReason characters, control characters and invalid UTF-8 replaced,
// and the credentials of URLs in it hidden (redact.Text); "" when there is
// no such line.
func StderrReason(dir string) string {
	data, err := parsers.ReadTail(filepath.Join(dir, StderrFile), stderrReasonTail)
	if err != nil {
		return ""
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(string(lines[i]))
		if line == "" || strings.HasPrefix(line, "seshat run: ") {
			continue
		}
		return oneLine(redact.Text(strings.TrimPrefix(line, "seshat: ")), maxReason)
	}
	return ""
}

// oneLine makes s safe for one line of a terminal, at most n characters
// ("…" last when cut).
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
