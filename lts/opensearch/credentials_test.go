package opensearch

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
)

// TestBasicAuth: every combination of the store URL's user information
// (none, a user, a user and a password, a password alone), the user of the
// environment (none, the URL's, another), its password and --password-file.
func TestBasicAuth(t *testing.T) {
	t.Parallel()
	urls := map[string]*url.Userinfo{
		"-":          nil,
		"ci@":        url.User("ci"),
		"ci:url-pw@": url.UserPassword("ci", "url-pw"),
		":url-pw@":   url.UserPassword("", "url-pw"),
	}
	const noUser, otherUser = "password is given", "SESHAT_OPENSEARCH_USERNAME names another"
	tests := []struct {
		url, envUser, envPw, filePw string
		user, pw, err               string // err: a part of the error, which is invalid input
	}{
		// No URL credentials: the environment and the file say it all.
		{"-", "", "", "", "", "", ""},
		{"-", "", "", "file-pw", "", "", noUser},
		{"-", "", "env-pw", "", "", "", noUser},
		{"-", "", "env-pw", "file-pw", "", "", noUser},
		{"-", "ci", "", "", "ci", "", ""},
		{"-", "ci", "", "file-pw", "ci", "file-pw", ""},
		{"-", "ci", "env-pw", "", "ci", "env-pw", ""},
		{"-", "ci", "env-pw", "file-pw", "ci", "file-pw", ""},
		{"-", "admin", "", "", "admin", "", ""},
		{"-", "admin", "", "file-pw", "admin", "file-pw", ""},
		{"-", "admin", "env-pw", "", "admin", "env-pw", ""},
		{"-", "admin", "env-pw", "file-pw", "admin", "file-pw", ""},
		// A user in the URL: the user unless the environment names one.
		{"ci@", "", "", "", "ci", "", ""},
		{"ci@", "", "", "file-pw", "ci", "file-pw", ""},
		{"ci@", "", "env-pw", "", "ci", "env-pw", ""},
		{"ci@", "", "env-pw", "file-pw", "ci", "file-pw", ""},
		{"ci@", "ci", "", "", "ci", "", ""},
		{"ci@", "ci", "", "file-pw", "ci", "file-pw", ""},
		{"ci@", "ci", "env-pw", "", "ci", "env-pw", ""},
		{"ci@", "ci", "env-pw", "file-pw", "ci", "file-pw", ""},
		{"ci@", "admin", "", "", "admin", "", ""},
		{"ci@", "admin", "", "file-pw", "admin", "file-pw", ""},
		{"ci@", "admin", "env-pw", "", "admin", "env-pw", ""},
		{"ci@", "admin", "env-pw", "file-pw", "admin", "file-pw", ""},
		// A user and a password in the URL: the password is the last
		// resort, and only for its user.
		{"ci:url-pw@", "", "", "", "ci", "url-pw", ""},
		{"ci:url-pw@", "", "", "file-pw", "ci", "file-pw", ""},
		{"ci:url-pw@", "", "env-pw", "", "ci", "env-pw", ""},
		{"ci:url-pw@", "", "env-pw", "file-pw", "ci", "file-pw", ""},
		{"ci:url-pw@", "ci", "", "", "ci", "url-pw", ""}, // issue 14, defect 4: was dropped (401)
		{"ci:url-pw@", "ci", "", "file-pw", "ci", "file-pw", ""},
		{"ci:url-pw@", "ci", "env-pw", "", "ci", "env-pw", ""},
		{"ci:url-pw@", "ci", "env-pw", "file-pw", "ci", "file-pw", ""},
		{"ci:url-pw@", "admin", "", "", "", "", otherUser},
		{"ci:url-pw@", "admin", "", "file-pw", "admin", "file-pw", ""},
		{"ci:url-pw@", "admin", "env-pw", "", "admin", "env-pw", ""},
		{"ci:url-pw@", "admin", "env-pw", "file-pw", "admin", "file-pw", ""},
		// A password alone in the URL: it needs a user from the environment.
		{":url-pw@", "", "", "", "", "", noUser},
		{":url-pw@", "", "", "file-pw", "", "", noUser},
		{":url-pw@", "", "env-pw", "", "", "", noUser},
		{":url-pw@", "", "env-pw", "file-pw", "", "", noUser},
		{":url-pw@", "ci", "", "", "ci", "url-pw", ""},
		{":url-pw@", "ci", "", "file-pw", "ci", "file-pw", ""},
		{":url-pw@", "ci", "env-pw", "", "ci", "env-pw", ""},
		{":url-pw@", "ci", "env-pw", "file-pw", "ci", "file-pw", ""},
		{":url-pw@", "admin", "", "", "admin", "url-pw", ""},
		{":url-pw@", "admin", "", "file-pw", "admin", "file-pw", ""},
		{":url-pw@", "admin", "env-pw", "", "admin", "env-pw", ""},
		{":url-pw@", "admin", "env-pw", "file-pw", "admin", "file-pw", ""},
	}
	seen := map[[4]string]bool{}
	for _, tt := range tests {
		name := strings.Join([]string{"url=" + tt.url, "user=" + tt.envUser, "password=" + tt.envPw, "file=" + tt.filePw}, ",")
		seen[[4]string{tt.url, tt.envUser, tt.envPw, tt.filePw}] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			user, pw, err := basicAuth(credentialSources{URL: urls[tt.url], Username: tt.envUser,
				Password: lts.Secret(tt.envPw), FilePassword: lts.Secret(tt.filePw)})
			if tt.err != "" {
				if err == nil || exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("basicAuth = %q, %q, %v; want invalid input saying %q", user, pw.Reveal(), err, tt.err)
				}
				for _, secret := range []string{"url-pw", "env-pw", "file-pw", "admin"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error shows %q: %v", secret, err)
					}
				}
				return
			}
			if err != nil || user != tt.user || pw.Reveal() != tt.pw {
				t.Errorf("basicAuth = %q, %q, %v; want %q, %q", user, pw.Reveal(), err, tt.user, tt.pw)
			}
		})
	}
	// Every combination is in the table.
	for u := range urls {
		for _, user := range []string{"", "ci", "admin"} {
			for _, env := range []string{"", "env-pw"} {
				for _, file := range []string{"", "file-pw"} {
					if !seen[[4]string{u, user, env, file}] {
						t.Errorf("combination url=%s user=%s password=%s file=%s missing from the table", u, user, env, file)
					}
				}
			}
		}
	}
}

// The password file: its first line, without the line end; empty or
// missing is invalid input.
func TestReadPasswordFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for content, want := range map[string]string{"pw\n": "pw", "pw\r\nsecond\n": "pw", "pw": "pw"} {
		if got, err := readPasswordFile(write("ok", content)); err != nil || got.Reveal() != want {
			t.Errorf("file %q: %q, %v; want %q", content, got.Reveal(), err, want)
		}
	}
	for _, p := range []string{write("empty", "\nsecond\n"), filepath.Join(dir, "missing")} {
		if _, err := readPasswordFile(p); exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "--password-file") {
			t.Errorf("%s: %v, want invalid input naming --password-file", p, err)
		}
	}
}
