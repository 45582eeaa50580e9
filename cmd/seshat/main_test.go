package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"

	"github.com/seshat-bench/seshat/runner/host"
)

// update rewrites the golden files of the command tests instead of comparing:
// go test ./cmd/seshat -update
var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// result is what a whole command run in a test produced.
type result struct {
	stdout, stderr string
	code           int
}

// runSeshat runs the seshat command line args in a fake process with the
// given environment (nothing else of the real environment leaks in).
func runSeshat(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	return runSeshatIn(t, env, os.Environ(), args...)
}

// runSeshatIn runs seshat with getenv as its SESHAT_ variables and environ
// as the environment it hands down (what the CI's variables are read
// from), in place of this test process's own.
func runSeshatIn(t *testing.T, getenv map[string]string, environ []string, args ...string) result {
	t.Helper()
	return runSeshatWith(t, getenv, environ, host.Host{}, args...)
}

// runSeshatOn runs seshat on the host recorded under root (its /proc and
// /sys, for `host check` and what `run` records and warns about).
func runSeshatOn(t *testing.T, root string, args ...string) result {
	t.Helper()
	return runSeshatWith(t, nil, os.Environ(), host.Host{Root: root}, args...)
}

func runSeshatWith(t *testing.T, getenv map[string]string, environ []string, h host.Host, args ...string) result {
	t.Helper()
	return runCommand(getenv, environ, h, args...)
}

// runCommand is runSeshatWith outside a test (TestMain's early demos).
func runCommand(getenv map[string]string, environ []string, h host.Host, args ...string) result {
	var stdout, stderr bytes.Buffer
	p := &process{
		ctx:  context.Background(),
		args: args,
		getenv: func(k string) (string, bool) {
			v, ok := getenv[k]
			return v, ok
		},
		environ: environ,
		stdin:   &bytes.Buffer{},
		stdout:  &stdout,
		stderr:  &stderr,
		host:    h,
	}
	code := execute(p)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}
