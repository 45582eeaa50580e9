package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Who a triage is by: --triage-user, else the token's name (the second
// line of --token-file), else the user serve runs as; a name with control
// characters is refused.
func TestTriageUser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	named := filepath.Join(dir, "named")
	if err := os.WriteFile(named, []byte("0123456789abcdef0123\n  ci-bot \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare")
	if err := os.WriteFile(bare, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts ServeOptions
		want string
	}{
		{"flag first", ServeOptions{TriageUser: "alice", TokenFile: named, OSUser: "root"}, "alice"},
		{"the token's name", ServeOptions{TokenFile: named, OSUser: "root"}, "ci-bot"},
		{"a token without a name", ServeOptions{TokenFile: bare, OSUser: "root"}, "root"},
		{"no token", ServeOptions{OSUser: "root"}, "root"},
	} {
		token, name, err := triageToken(tt.opts, "127.0.0.1")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.opts.TokenFile != "" && token != "0123456789abcdef0123" {
			t.Errorf("%s: token %q", tt.name, token)
		}
		if got, err := triageUser(tt.opts, name); err != nil || got != tt.want {
			t.Errorf("%s: user %q (%v), want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := triageUser(ServeOptions{TriageUser: "eve\x1b[31m"}, ""); err == nil || !strings.Contains(err.Error(), "--triage-user") {
		t.Errorf("a user with control characters: %v, want refused naming --triage-user", err)
	}
}
