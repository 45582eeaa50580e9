package browsertest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/browsertest"
)

// TestShutdownLeavesNothing: after Shutdown no process of the shared
// Chromium runs (the browser, its zygotes, renderers and utilities all
// carry its profile on their command line) and its temporary profile is
// gone. Not parallel: it stops the browser that the tests before it
// (browsertest_test.go) started.
func TestShutdownLeavesNothing(t *testing.T) {
	browsertest.Chromium(t)
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skipf("no /proc to list processes: %v", err)
	}
	page := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><h1>Report</h1></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	browsertest.Open(t, page)
	pid, err := browsertest.BrowserPID()
	if err != nil {
		t.Fatal(err)
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		t.Fatalf("the browser's command line: %v", err)
	}
	args := bytes.Split(cmdline, []byte{0})
	i := slices.IndexFunc(args, func(arg []byte) bool { return bytes.HasPrefix(arg, []byte("--user-data-dir=")) })
	if i < 0 {
		t.Fatalf("the browser runs without --user-data-dir: %q", cmdline)
	}
	profileArg := args[i]
	profile := strings.TrimPrefix(string(profileArg), "--user-data-dir=")
	if strings.Contains(profile, " ") {
		t.Skipf("the profile %q has a space: its processes cannot be told by their command line", profile)
	}
	if len(using(t, profileArg)) < 2 {
		t.Fatalf("found no process of the browser and its children by %s", profileArg)
	}

	browsertest.Shutdown()
	if left := using(t, profileArg); len(left) > 0 {
		t.Errorf("processes left after Shutdown: %s", strings.Join(left, "\n"))
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("the temporary profile %s is still there (%v)", profile, err)
	}
}

// using lists the processes with arg on their command line, by pid and
// command line. Chromium's child processes rewrite theirs as one string
// of space-separated arguments.
func using(t *testing.T, arg []byte) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || e.Name() == "self" || e.Name() == "thread-self" {
			continue
		}
		args := bytes.FieldsFunc(cmdline, func(r rune) bool { return r == 0 || r == ' ' })
		if slices.ContainsFunc(args, func(a []byte) bool { return bytes.Equal(a, arg) }) {
			out = append(out, e.Name()+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte(" "))))
		}
	}
	return out
}
