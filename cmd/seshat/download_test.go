package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDownload: the repository's results tree, served over HTTP, comes back
// with --mode important as a tree that parses as the original does (the
// pi workload's files, found from the settings of each run's experiment);
// and each way a download cannot work has its exit status.
func TestDownload(t *testing.T) {
	t.Parallel()
	// A copy: parsing the original would leave its caches there.
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS("../../testdata/results")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	stats := regexp.MustCompile(`parsed \d+ entries: .*`)

	dir := filepath.Join(t.TempDir(), "results")
	r := runSeshat(t, nil, "download", srv.URL+"/", "--results-dir", dir, "--mode", "important")
	if r.code != 0 || !strings.Contains(r.stdout, "0 missing") {
		t.Fatalf("download: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "matmul_sizes", "001__matrix_size=128", "pi.json")); err != nil {
		t.Errorf("pi.json of a run not fetched: %v", err)
	}
	orig := runSeshat(t, nil, "parse", "--results-dir", src, "--no-cache")
	got := runSeshat(t, nil, "parse", "--results-dir", dir)
	if got.code != orig.code || stats.FindString(got.stderr) != stats.FindString(orig.stderr) ||
		strings.Contains(got.stderr, "not declared") {
		t.Errorf("parse of the download: exit %d, %q; of the original: exit %d, %q\n%s",
			got.code, stats.FindString(got.stderr), orig.code, stats.FindString(orig.stderr), got.stderr)
	}

	empty := t.TempDir()
	emptySrv := httptest.NewServer(http.FileServer(http.Dir(empty)))
	defer emptySrv.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no URL", []string{"download", "--results-dir", dir}, 4, "name one URL"},
		{"unknown mode", []string{"download", srv.URL + "/", "--results-dir", dir, "--mode", "important-only"}, 4, `--mode: unknown mode "important-only"`},
		{"bad size", []string{"download", srv.URL + "/", "--results-dir", dir, "--max-file-size", "big"}, 4, `--max-file-size "big": not a size`},
		{"not http", []string{"download", "file:///etc/", "--results-dir", dir}, 4, "not an http:// or https:// URL"},
		{"no results dir", []string{"download", srv.URL + "/"}, 4, "--results-dir: name the directory"},
		{"top missing", []string{"download", srv.URL + "/nothing/", "--results-dir", dir}, 1, "/nothing/: 404 Not Found"},
		{"files too large", []string{"download", srv.URL + "/", "--results-dir", t.TempDir(), "--mode", "all", "--max-file-size", "1KiB"}, 1, "files missing"},
		{"empty tree", []string{"download", emptySrv.URL + "/", "--results-dir", t.TempDir()}, 3, "lists no file"},
	} {
		r := runSeshat(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s", tc.name, r.code, tc.code, tc.want, r.stderr)
		}
	}
}

// TestDownloadDeclaredWorkload: a workload.yaml at the top of the tree is
// fetched first and tells which files its runs need: those it declares
// (one below an artifact directory glob), not the others.
func TestDownloadDeclaredWorkload(t *testing.T) {
	t.Parallel()
	spec, err := os.ReadFile("../../workloads/declared/testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	files := map[string]string{
		"workload.yaml":                        strings.Replace(string(spec), "name: toy_server", "name: download_toy", 1),
		"expe/000__a/settings.yaml":            "workload: download_toy\nmodel: m\n",
		"expe/000__a/exit_code":                "0\n",
		"expe/000__a/run1__output/report.json": `{"throughput": {"rps": 3}}` + "\n",
		"expe/000__a/conf.yaml":                "server: {version: '1'}\n",
		"expe/000__a/steps.csv":                "seconds\n1\n",
		"expe/000__a/server.log":               "rps=3\n",
		"expe/000__a/core.dump":                "not declared\n",
		"expe/000__a/run1__output/trace.json":  "not declared\n",
	}
	writeFiles(t, src, files)
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	dir := t.TempDir()
	r := runSeshat(t, nil, "download", srv.URL+"/", "--results-dir", dir, "--mode", "important")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if fetched, want := err == nil, !strings.Contains(files[name], "not declared"); fetched != want {
			t.Errorf("%s: fetched %v, want %v", name, fetched, want)
		}
	}
}
