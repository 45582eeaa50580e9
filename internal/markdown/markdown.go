// Package markdown writes values into Markdown that GitHub renders (a CI
// step summary, a pull request comment) so that they read as the text they
// are: a label value, a unit or a reason never becomes HTML, a link, an
// image, emphasis, math or a table's column.
package markdown

import (
	"strings"
	"unicode"
)

// Escape is s as inline text, safe in a table cell too. HTML's '<', '>'
// and '&' become entities; the ASCII punctuation that starts Markdown
// (backslash, '`', '*', '[', ']', '|', '~', '$', and '_' but between two
// letters or digits, where it cannot emphasise: matrix_size stays as it
// is) is escaped with a backslash; a line break is a space.
func Escape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n', '\r':
			b.WriteByte(' ')
		case '\\', '`', '*', '[', ']', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			if i == 0 || i == len(rs)-1 || !isAlnum(rs[i-1]) || !isAlnum(rs[i+1]) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Code is s as an inline code span, where nothing is rendered: its fence
// is one backtick longer than the longest run of backticks in s, and a
// space pads an s that starts or ends with one. Not for a table cell,
// where '|' still ends the cell.
func Code(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" {
		return "` `"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
