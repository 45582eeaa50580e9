package redact

import (
	"errors"
	"net/url"
	"strings"
)

// hidden replaces what URL cannot tell apart from a password.
const hidden = "<secret>"

// ErrUnencodedUserinfo is a URL whose user or password holds a character
// that ends the user information ('@', '/', '?', '#') unencoded. It never
// quotes the URL.
var ErrUnencodedUserinfo = errors.New("the user or password holds an unencoded '@', '/', '?' or '#', which makes another host of the URL: " +
	"percent-encode them in the user and password ('@' as %40, '/' as %2F, '?' as %3F, '#' as %23)")

// URL is rawURL for a message. A well-formed URL shows its user and hides
// its password as net/url does (https://ci:xxxxx@host:9200). Any other URL
// holding an '@' — no `//` (http:admin:pw@host), unparsable, an '@' that
// CheckUserinfo refuses — shows `<secret>` for all of what lies between its
// scheme and its last '@': more than the password at times (a path holding
// an '@' cannot be told from a user and password without `//`), never less.
func URL(rawURL string) string {
	at := strings.LastIndex(rawURL, "@")
	if at < 0 {
		return rawURL
	}
	if u, err := url.Parse(rawURL); err == nil && u.User != nil && CheckUserinfo(rawURL) == nil {
		return u.Redacted()
	}
	start := afterScheme(rawURL)
	return rawURL[:start] + hidden + rawURL[at:]
}

// afterScheme is the index after the scheme's ':' and the one or two
// slashes that follow it; 0 when rawURL has no scheme.
func afterScheme(rawURL string) int {
	i := strings.IndexByte(rawURL, ':')
	if i <= 0 || !isScheme(rawURL[:i]) {
		return 0
	}
	i++
	for n := 0; n < 2 && i < len(rawURL) && rawURL[i] == '/'; n++ {
		i++
	}
	return i
}

// isScheme tells whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, '+', '-', '.').
func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// CheckUserinfo returns ErrUnencodedUserinfo when rawURL, a URL with a
// host (scheme://...), holds an '@' that may end user information but
// cannot: two in the authority (user:p@ss@host), or one after the '/',
// '?' or '#' that ends it (user:p/w@host, user:p@ss/w#x@host). Such a URL
// is read with another host than its writer meant, and part of the
// password in its path. An '@' in the path of a URL with a host is
// refused too: it cannot be told apart.
func CheckUserinfo(rawURL string) error {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return nil
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if strings.Count(rest[:end], "@") > 1 || strings.Contains(rest[end:], "@") {
		return ErrUnencodedUserinfo
	}
	return nil
}

// StripUserinfo is rawURL without its user information, for a URL written
// into a file or a payload. A URL without any is returned as it is. One
// whose '@' CheckUserinfo refuses (in a path too: percent-encode it), or
// holding an '@' without `//` (http:user:pw@host), is an error: no part of
// it can be written safely.
func StripUserinfo(rawURL string) (string, error) {
	if !strings.Contains(rawURL, "@") {
		return rawURL, nil
	}
	if err := CheckUserinfo(rawURL); err != nil {
		return "", err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", errors.New("not a URL")
	}
	if u.User == nil {
		// An '@' and no `//`: a path, or credentials (http:user:pw@host).
		return "", ErrUnencodedUserinfo
	}
	u.User = nil
	return u.String(), nil
}

// Text is a line of free text (the end of a run's stderr, for a summary)
// with the credentials of every URL in it hidden as URL hides them: each
// word holding a ':' before an '@' (scheme://user:pw@host, user:pw@host)
// is taken for a URL. An e-mail address has no ':' before its '@' and
// stays as it is.
func Text(s string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := s[start:end]
		if at := strings.LastIndexByte(word, '@'); at > 0 && strings.IndexByte(word[:at], ':') >= 0 {
			word = URL(word)
		}
		b.WriteString(word)
		start = -1
	}
	for i, r := range s {
		if strings.ContainsRune(" \t\"'`<>()[]{},;", r) {
			flush(i)
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return b.String()
}
