package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHostCheckCommand runs `seshat host check` on this machine: a line per
// check, the verdict last, exit 0 whatever it is; the JSON form for scripts.
func TestHostCheckCommand(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "host", "check", "--sample", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for i, name := range []string{"load", "governor", "turbo", "smt", "busy", "cgroup", "aslr"} {
		if i >= len(lines) || !strings.HasPrefix(lines[i], name+" ") {
			t.Fatalf("line %d is not the %s check:\n%s", i+1, name, r.stdout)
		}
	}
	verdict := lines[len(lines)-1]
	if verdict != "host: quiet" && !strings.HasPrefix(verdict, "host: noisy (") {
		t.Errorf("last line %q is not the verdict", verdict)
	}

	r = runSeshat(t, nil, "host", "check", "--sample", "0", "--format", "json")
	if r.code != 0 {
		t.Fatalf("--format json: exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		CPUs    int    `json:"cpus"`
		Checks  []struct{ Name, Status, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if (doc.Verdict != "quiet" && doc.Verdict != "noisy") || !strings.HasPrefix(doc.Summary, "host: "+doc.Verdict) || doc.CPUs == 0 || len(doc.Checks) != 7 {
		t.Errorf("%+v", doc)
	}
	if doc.Checks[4].Name != "busy" || doc.Checks[4].State != "not watched" {
		t.Errorf("--sample 0 watched: %+v", doc.Checks[4])
	}
}

func TestHostCheckInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"host", "check", "--format", "yaml"}, `--format: "yaml" is not text or json`},
		{[]string{"host", "check", "--sample", "-1s"}, "--sample -1s: must not be negative"},
		{[]string{"host", "check", "--sample", "soon"}, "invalid argument"},
		{[]string{"host", "check", "extra"}, `unexpected argument "extra"`},
		{[]string{"host"}, "seshat host: name one of: check"},
		{[]string{"host", "chek"}, `unknown command "chek"`},
	}
	for _, tc := range tests {
		r := runSeshat(t, nil, tc.args...)
		if r.code != 4 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 4 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
