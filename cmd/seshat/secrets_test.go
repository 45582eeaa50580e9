package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/models"
)

// storePassword is the password planted in the store URLs below: no output
// may show it, nor any part of it.
const storePassword = "S3cret"

// TestStoreURLPasswordNeverShows: a store URL holding a password is named
// in every message with its password hidden, whatever its shape — without
// `//`, with one slash, without a scheme, unparsable — and wherever it comes
// from: --store, --history, --opensearch-url, SESHAT_STORE.
func TestStoreURLPasswordNeverShows(t *testing.T) {
	t.Parallel()
	results := smallTree(t)
	shapes := []string{
		"http:admin:" + storePassword + "@127.0.0.1:9200",
		"http:/admin:" + storePassword + "@127.0.0.1:9200",
		"https:admin:" + storePassword + "@127.0.0.1:9200",
		"admin:" + storePassword + "@127.0.0.1:9200",
		"http://admin:" + storePassword + "@[::1",
		"https://admin:" + storePassword + "%zz@127.0.0.1:9200",
	}
	for _, store := range shapes {
		tests := []struct {
			name string
			env  map[string]string
			args []string
		}{
			{"history --store", nil, []string{"history", "--store", store}},
			{"SESHAT_STORE", map[string]string{"SESHAT_STORE": store}, []string{"history"}},
			{"regression --history", nil, []string{"regression", "--results-dir", results, "--history", store, "--report-dir", t.TempDir()}},
			{"visualize --history", nil, []string{"visualize", "--results-dir", results, "--history", store, "--output-dir", t.TempDir()}},
			{"upload --opensearch-url", nil, []string{"upload", "--results-dir", results, "--store", "sqlite:" + t.TempDir() + "/lts.db",
				"--opensearch-export", "--opensearch-url", store}},
			{"compare --store", nil, []string{"compare", "build:a", "build:b", "--store", store}},
		}
		for _, tt := range tests {
			t.Run(tt.name+" "+store, func(t *testing.T) {
				t.Parallel()
				r := runSeshat(t, tt.env, tt.args...)
				if strings.Contains(r.stdout+r.stderr, storePassword) {
					t.Errorf("the password shows:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
				}
				if r.code != 4 {
					t.Errorf("exit %d, want 4\n%s", r.code, r.stderr)
				}
			})
		}
	}
}

// TestStoreURLUnencodedUserinfo: a password holding an unencoded '/', '#',
// '?' or '@' makes the URL say something else than meant (the host `ss` of
// http://admin:p@ss/w:rd#...@127.0.0.1): it is refused before anything is
// sent, naming the rule, without showing any part of the password.
func TestStoreURLUnencodedUserinfo(t *testing.T) {
	t.Parallel()
	for _, store := range []string{
		"http://admin:p@ss/w:rd#Zq9?x@127.0.0.1:19221",
		"http://admin:p@ss@127.0.0.1:19221",
		"http://admin:pa/ss@127.0.0.1:19221",
		"https://admin:pa?ss@127.0.0.1:19221",
		"https://admin:pa#ss@127.0.0.1:19221",
	} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := runSeshat(t, nil, "history", "--store", store, "--retry-timeout", "1s")
			if r.code != 4 || !strings.Contains(r.stderr, "percent-encode") {
				t.Errorf("exit %d, want 4 naming the rule (percent-encode)\n%s", r.code, r.stderr)
			}
			for _, part := range []string{"ss/w", "rd#", "Zq9", "p@ss", "pa/ss", "pa?ss", "pa#ss", ":p@"} {
				if strings.Contains(r.stdout+r.stderr, part) {
					t.Errorf("%q of the password shows:\n%s", part, r.stderr)
				}
			}
			if took := time.Since(start); took > 900*time.Millisecond {
				t.Errorf("took %v: the store was tried", took)
			}
		})
	}
}

// TestWrittenURLsHaveNoCredentials: the user and password of
// SESHAT_RESULTS_BASE_URL and of the CI's server URL are not written: not
// into the payloads' metadata.urls (--output-lts, the matrix, a store),
// not into build.json's ci.url.
func TestWrittenURLsHaveNoCredentials(t *testing.T) {
	t.Parallel()
	const secret = "Pa55-in-a-URL"
	environ := append(ciFree(), "GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_RUN_ID=4242",
		"GITHUB_SERVER_URL=https://ci:"+secret+"@github.example", "GITHUB_REPOSITORY=acme/stack")
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshatIn(t, nil, environ, "run", "--benchmark", writeBenchmark(t, tinyBenchmark), "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for _, d := range runDirsOf(t, results) {
		b := readBuild(t, filepath.Join(results, d))
		if b.CI == nil || b.CI.URL != "https://github.example/acme/stack/actions/runs/4242" {
			t.Errorf("%s: build.json ci %+v, want the run's URL without credentials", d, b.CI)
		}
	}
	imported := filepath.Join(t.TempDir(), "imported")
	r = runSeshat(t, nil, "import", "gobench", gobenchData+"old.txt", "--results-dir", imported, "--ci-url", "https://ci:"+secret+"@ci.example/run/1")
	if r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	builds, _ := filepath.Glob(filepath.Join(imported, "*", "*", "build.json"))
	for _, path := range builds {
		data, err := os.ReadFile(path)
		if err != nil || strings.Contains(string(data), secret) || !strings.Contains(string(data), `"https://ci.example/run/1"`) {
			t.Errorf("%s: %v\n%s", path, err, data)
		}
	}
	if len(builds) == 0 {
		t.Errorf("import wrote no build.json")
	}
	env := map[string]string{"SESHAT_RESULTS_BASE_URL": "https://ci:" + secret + "@artifacts.example/job/7/"}
	db := filepath.Join(t.TempDir(), "lts.db")
	for _, args := range [][]string{
		{"parse", "--results-dir", results, "--output-lts", "-"},
		{"parse", "--results-dir", results, "--output-matrix", "-"},
		{"upload", "--results-dir", results, "--store", "sqlite:" + db},
		{"history", "--store", "sqlite:" + db, "--format", "json"},
	} {
		r := runSeshat(t, env, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", args[0], r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v shows the password:\n%s\n%s", args, r.stdout, r.stderr)
		}
		if args[0] == "parse" && !strings.Contains(r.stdout, `"https://artifacts.example/job/7/tiny/`) {
			t.Errorf("%v: no artifact URL without credentials:\n%s", args, r.stdout)
		}
	}
	data, err := os.ReadFile(db)
	if err != nil || strings.Contains(string(data), secret) || !strings.Contains(string(data), "https://artifacts.example/job/7/tiny/") {
		t.Errorf("the store holds the password, or no artifact URL (%v)", err)
	}
}

// TestChildEnvironmentWithoutSecrets: a PI gets seshat's environment
// without seshat's secrets (redact.Environ): SESHAT_ variables naming a
// password or token dropped, URLs without their credentials; the rest,
// and the run's settings, as they are.
func TestChildEnvironmentWithoutSecrets(t *testing.T) {
	t.Parallel()
	const secret = "Pa55-handed-down"
	environ := append(os.Environ(),
		"SESHAT_OPENSEARCH_PASSWORD="+secret,
		"SESHAT_OPENSEARCH_USERNAME=ci",
		"SESHAT_API_TOKEN="+secret,
		"SESHAT_STORE=https://ci:"+secret+"@search.example:9200",
		"SESHAT_HISTORY=http:ci:"+secret+"@search.example:9200",
		"SESHAT_RESULTS_BASE_URL=https://ci:"+secret+"@artifacts.example/job/7/",
		"PI_OWN_PROXY=http://me:proxy-pw@proxy:3128")
	bench := writeBenchmark(t, `expe:
  env:
    pi: exec
    db_password: the-benchmark-s-own
    command: [sh, -c, ': $SESHAT_DB_PASSWORD; env >&2; printf "{\"component\": \"sh\", \"name\": \"PiEnv\", \"@result\": {\"elapsed\": 1.5}, \"versions\": {\"sh\": \"1\"}}"']
`)
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshatIn(t, nil, environ, "run", "--benchmark", bench, "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(results, "env", "000__run", "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	if strings.Contains(got, secret) {
		t.Errorf("the PI's environment holds seshat's secrets:\n%s", got)
	}
	for _, want := range []string{"SESHAT_OPENSEARCH_USERNAME=ci\n", "SESHAT_STORE=https://search.example:9200\n",
		"SESHAT_RESULTS_BASE_URL=https://artifacts.example/job/7/\n", "PI_OWN_PROXY=http://me:proxy-pw@proxy:3128\n",
		"SESHAT_DB_PASSWORD=the-benchmark-s-own\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the PI's environment lacks %q:\n%s", want, got)
		}
	}
}

// sweepBenchmark is two exec PIs, two runs each, that print seshat's
// variables of their environment (the rest is the PI's own, passed on
// unchanged: redact.Environ) into stderr.log, which the payloads quote.
const sweepBenchmark = `extra_settings: [device]
common_settings:
  pi: exec
  device: cpu
  repeat: 2
expe:
  sweep:
    size: [1, 2]
    command: [sh, -c, 'env | grep ^SESHAT_ >&2; printf "{\"component\": \"sh\", \"name\": \"PiSweep\", \"@parameters\": {\"n\": {size}},
      \"@result\": {\"elapsed\": 1.5, \"samples_ms\": [1.5, 1.6], \"ci95_low\": 1.4, \"ci95_high\": 1.6}, \"versions\": {\"sh\": \"1.0\"}}"']
`

// TestNoSecretAnywhere plants one secret everywhere seshat takes one — the
// OpenSearch password (the environment, a --password-file, a config
// file's store URL, store URLs of every shape), SESHAT_RESULTS_BASE_URL,
// the CI's server URL, import's --ci-url — runs every verb that could show
// or write it, and sweeps what they printed, every file they wrote (run
// directories, caches, reports, payloads, the SQLite store), what the PIs
// were given (their environment, printed into stderr.log) and what the
// OpenSearch store holds.
func TestNoSecretAnywhere(t *testing.T) {
	t.Parallel()
	const secret = "Sw33p-9f2c-never-shown"
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 7, Username: "ci", Password: secret})
	withCreds := strings.Replace(ts.URL, "http://", "http://ci:"+secret+"@", 1)
	root := t.TempDir()
	path := func(name string) string { return filepath.Join(root, name) }
	if err := os.WriteFile(path("password"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := path("seshat.yaml")
	if err := os.WriteFile(config, []byte("lts:\n  opensearch:\n    url: "+withCreds+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("series.csv"), []byte("a\n1\n1\n1\n1\n5\n5\n5\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := map[string]string{
		"SESHAT_RESULTS_BASE_URL":    "https://ci:" + secret + "@artifacts.example/job/7/",
		"SESHAT_OPENSEARCH_USERNAME": "ci",
		"SESHAT_OPENSEARCH_PASSWORD": secret,
	}
	environ := append(ciFree(), "GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_RUN_ID=4242",
		"GITHUB_SERVER_URL=https://ci:"+secret+"@github.example", "GITHUB_REPOSITORY=acme/stack")
	for k, v := range getenv {
		environ = append(environ, k+"="+v)
	}
	results, db := path("results"), "sqlite:"+path("lts.db")
	steps := []struct {
		args []string
		env  map[string]string // nil: getenv
		ok   []int             // the exit statuses expected
	}{
		{args: []string{"run", "--benchmark", writeBenchmark(t, sweepBenchmark), "--results-dir", results}, ok: []int{0}},
		{args: []string{"-v", "parse", "--results-dir", results, "--output-lts", path("lts.json"), "--output-matrix", path("matrix.json")}, ok: []int{0}},
		{args: []string{"kpis", "--results-dir", results}, ok: []int{0}},
		{args: []string{"-v", "upload", "--results-dir", results, "--store", db}, ok: []int{0}},
		{args: []string{"-v", "upload", "--lts", path("lts.json"), "--store", withCreds}, env: map[string]string{}, ok: []int{0}},
		{args: []string{"-v", "upload", "--results-dir", results, "--store", ts.URL, "--password-file", path("password")},
			env: map[string]string{"SESHAT_OPENSEARCH_USERNAME": "ci"}, ok: []int{0}},
		{args: []string{"-v", "--config", config, "upload", "--results-dir", results, "--store", db, "--opensearch-export"}, ok: []int{0}},
		{args: []string{"-v", "upload", "--results-dir", results, "--store", db, "--dry-run"}, ok: []int{0}},
		{args: []string{"-v", "history", "--store", db, "--format", "json"}, ok: []int{0}},
		{args: []string{"-v", "history", "--store", withCreds}, env: map[string]string{}, ok: []int{0}},
		{args: []string{"-v", "history", "--store", "http:ci:" + secret + "@127.0.0.1:9"}, ok: []int{4}},
		{args: []string{"-v", "history", "--store", "http://ci:" + secret + "/x@127.0.0.1:9"}, ok: []int{4}},
		{args: []string{"-v", "regression", "--results-dir", results, "--history", db, "--report-dir", path("report")}, ok: []int{0, 2, 3}},
		{args: []string{"-v", "regression", "--results-dir", results, "--history", withCreds, "--report-dir", path("report-os")},
			env: map[string]string{}, ok: []int{0, 2, 3}},
		{args: []string{"-v", "visualize", "--results-dir", results, "--history", withCreds, "--output-dir", path("visualize")},
			env: map[string]string{}, ok: []int{0}},
		{args: []string{"-v", "compare", results, path("lts.json"), "--format", "markdown"}, ok: []int{0, 3}},
		{args: []string{"-v", "compare", "build:github-4242", results, "--store", db}, ok: []int{0}},
		{args: []string{"-v", "compare", "build:none", results, "--store", withCreds}, env: map[string]string{}, ok: []int{3}},
		{args: []string{"-v", "import", "gobench", gobenchData + "old.txt", "--results-dir", path("imported"), "--ci-url",
			"https://ci:" + secret + "@ci.example/run/1"}, ok: []int{0}},
		{args: []string{"-v", "changepoints", path("series.csv")}, ok: []int{0}},
		{args: []string{"-v", "dashboards"}, ok: []int{0}},
		{args: []string{"-v", "schema"}, ok: []int{0}},
		{args: []string{"-v", "version"}, ok: []int{0}},
	}
	for _, s := range steps {
		env := s.env
		if env == nil {
			env = getenv
		}
		r := runSeshatIn(t, env, environ, s.args...)
		if !slices.Contains(s.ok, r.code) {
			t.Errorf("%v: exit %d, want one of %v\n%s", s.args, r.code, s.ok, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v shows the secret:\nstdout: %s\nstderr: %s", s.args, r.stdout, r.stderr)
		}
	}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if name := filepath.Base(p); name != "password" && name != "seshat.yaml" && bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// What seshat must have written, so that the sweep is not vacuous.
	if runs := runDirsOf(t, results); len(runs) != 4 || files < 50 {
		t.Errorf("%d runs, %d files written", len(runs), files)
	}
	stderrLog, _ := os.ReadFile(filepath.Join(results, "sweep", "000__size=1_repeat=0", "stderr.log"))
	if !strings.Contains(string(stderrLog), "SESHAT_RESULTS_BASE_URL=https://artifacts.example/job/7/") {
		t.Errorf("the PI did not print its environment:\n%s", stderrLog)
	}
	var payloads []models.Payload
	data, err := os.ReadFile(path("lts.json"))
	if err != nil || json.Unmarshal(data, &payloads) != nil || len(payloads) != 4 {
		t.Fatalf("lts.json: %v, %d payloads", err, len(payloads))
	}
	for _, p := range payloads {
		doc, ok := ts.Doc("seshat", p.Metadata.TestUUID)
		if !ok || bytes.Contains(doc, []byte(secret)) || !bytes.Contains(doc, []byte("https://artifacts.example/job/7/")) {
			t.Errorf("OpenSearch's %s: stored %v, holds the secret or no artifact URL:\n%s", p.Metadata.TestUUID, ok, doc)
		}
	}
}
