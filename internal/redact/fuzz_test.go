package redact_test

import (
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/redact"
)

// FuzzURLHidesPassword: whatever the password holds, a store URL of any
// shape written with it never shows it in a message, and never keeps it
// when stripped.
func FuzzURLHidesPassword(f *testing.F) {
	for _, pw := range []string{"hunter2", "p@ss/w:rd#Zq9?x", "a%zz", "[::1]", "pw@", "/:?#@", "é€"} {
		f.Add(pw)
	}
	shapes := []string{"http://admin:%s@127.0.0.1:9200", "http:admin:%s@127.0.0.1:9200", "http:/admin:%s@127.0.0.1:9200",
		"admin:%s@127.0.0.1:9200", "https://admin:%s@search:9200/base/"}
	f.Fuzz(func(t *testing.T, pw string) {
		// Too short: found anyway. Leading slashes make admin:%s@host a
		// URL with a host, whose user "admin" is not a secret.
		if len(pw) < 4 || strings.HasPrefix(pw, "/") {
			t.Skip()
		}
		for _, shape := range shapes {
			raw := strings.Replace(shape, "%s", pw, 1)
			// Found in what is shown of any password (a part of the
			// shape, of a mask): not a leak.
			shown := redact.URL(strings.Replace(shape, "%s", "pw", 1)) + redact.URL(strings.Replace(shape, "%s", "p@w", 1))
			if strings.Contains(shown, pw) {
				continue
			}
			if got := redact.URL(raw); strings.Contains(got, pw) {
				t.Errorf("URL(%q) = %q", raw, got)
			}
			if got, err := redact.StripUserinfo(raw); err == nil && strings.Contains(got, pw) {
				t.Errorf("StripUserinfo(%q) = %q", raw, got)
			}
		}
	})
}
