package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
    command: [sh, -c, ': $SESHAT_DB_PASSWORD; env >&2; printf "{\"component\": \"sh\", \"name\": \"PiEnv\", \"@result\": {\"elapsed\": 1.5}}"']
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
