package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// TestServeRefuses: a malformed address, a missing store or results
// directory are refused before anything listens.
func TestServeRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	short := filepath.Join(dir, "short-token")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"address", []string{"--addr", "8050"}, 4, `--addr "8050": want host:port`},
		{"store", []string{"--store", "sqlite:" + filepath.Join(dir, "none.db")}, 3, "nothing was uploaded there"},
		{"results-dir", []string{"--results-dir", filepath.Join(dir, "none")}, 4, "--results-dir " + filepath.Join(dir, "none") + ": not a directory"},
		{"refresh", []string{"--refresh", "-1s"}, 4, "--refresh -1s: must not be negative"},
		{"triage off loopback without token", []string{"--addr", "0.0.0.0:0", "--allow-triage"}, 4, "--allow-triage on 0.0.0.0, not a loopback address: give --token-file"},
		{"short token", []string{"--allow-triage", "--token-file", short}, 4, "the token (its first line) has 3 characters: want 16 or more"},
		{"no token file", []string{"--allow-triage", "--token-file", filepath.Join(dir, "none")}, 4, "--token-file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, append([]string{"serve"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, want %d with %q: %s", r.code, c.code, c.want, r.stderr)
			}
		})
	}
}

var servingURL = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`)

// TestServeCommand: seshat serve says where it listens, serves the store
// there, and exits 0 once interrupted (its context done). Its runs,
// stored without the summaries of their samples, get them first, said
// once.
func TestServeCommand(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lts.db")
	s := openStore(t, "sqlite:"+path)
	if _, err := s.Put(context.Background(), pitest.Payloads(6, pitest.Options{Series: 2, Samples: 5, Seed: 3})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	p := &process{ctx: ctx, args: []string{"serve", "--store", "sqlite:" + path, "--addr", "127.0.0.1:0"},
		getenv: func(string) (string, bool) { return "", false }, stdin: &bytes.Buffer{}, stdout: io.Discard, stderr: stderr}
	exit := make(chan int, 1)
	go func() { exit <- execute(p) }()
	var url string
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := servingURL.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("seshat serve did not say where it listens: %s (exit %d)", stderr, <-exit)
	}
	if want := "kept the summaries of the samples of 6 runs stored without them"; !strings.Contains(stderr.String(), want) {
		t.Errorf("seshat serve did not say %q: %s", want, stderr)
	}
	resp, err := http.Get(url + "api/series")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"matrix_size":"128"`) {
		t.Errorf("GET %sapi/series: %d %s", url, resp.StatusCode, body)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Errorf("exit %d once interrupted, want 0: %s", code, stderr)
	}
}
