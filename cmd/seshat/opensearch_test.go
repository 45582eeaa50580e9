package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts/opensearchtest"
)

const (
	osUser     = "seshat-ci"
	osPassword = "Pa55-w0rd-never-shown"
)

var osEnv = map[string]string{"SESHAT_OPENSEARCH_USERNAME": osUser, "SESHAT_OPENSEARCH_PASSWORD": osPassword}

// noSecret fails when the password shows in any output.
func noSecret(t *testing.T, what string, r result) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, osPassword) {
		t.Errorf("%s prints the password:\nstdout: %s\nstderr: %s", what, r.stdout, r.stderr)
	}
}

// TestUploadOpenSearch uploads the shipped tree to OpenSearch (the test
// server, with basic auth) and reads the same history back as from SQLite.
func TestUploadOpenSearch(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 1, Username: osUser, Password: osPassword})
	dir := copyResults(t)
	r := runSeshat(t, osEnv, "-v", "upload", "--results-dir", dir, "--store", ts.URL, "--index-prefix", "ci-")
	noSecret(t, "upload -v", r)
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (three invalid entries)\n%s", r.code, r.stderr)
	}
	want := regexp.MustCompile(`stored 8 payload\(s\) in http://127\.0\.0\.1:\d+ index ci-seshat: 8 new, 0 replaced; 40 KPI document\(s\) in index ci-seshat-kpis; \d+ request\(s\), 0 document\(s\) retried`)
	if !want.MatchString(r.stderr) {
		t.Errorf("stderr lacks the summary:\n%s", r.stderr)
	}
	if ts.DocCount("ci-seshat") != 8 || ts.DocCount("ci-seshat-kpis") != 40 {
		t.Errorf("server holds %d payloads, %d KPI documents", ts.DocCount("ci-seshat"), ts.DocCount("ci-seshat-kpis"))
	}
	// A 429 storm on the second upload: retried, nothing duplicated.
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 2, Fault: opensearchtest.Fault{Status: http.StatusTooManyRequests}})
	r = runSeshat(t, osEnv, "-v", "upload", "--results-dir", dir, "--store", ts.URL, "--index-prefix", "ci-")
	noSecret(t, "upload -v with retries", r)
	if r.code != 4 || !strings.Contains(r.stderr, "0 new, 8 replaced") || !strings.Contains(r.stderr, "96 document(s) retried") ||
		!strings.Contains(r.stderr, "debug: retrying documents") {
		t.Errorf("re-upload through a 429 storm: exit %d\n%s", r.code, r.stderr)
	}
	if ts.DocCount("ci-seshat") != 8 || ts.DocCount("ci-seshat-kpis") != 40 {
		t.Errorf("after re-upload: %d payloads, %d KPI documents", ts.DocCount("ci-seshat"), ts.DocCount("ci-seshat-kpis"))
	}
	r = runSeshat(t, osEnv, "-v", "history", "--store", ts.URL, "--index-prefix", "ci-")
	noSecret(t, "history -v", r)
	if r.code != 0 {
		t.Fatalf("history: exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "history.txt", r.stdout)
}

func TestOpenSearchCredentials(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 2, Username: osUser, Password: osPassword})
	lts := "../../testdata/golden/lts.json"
	// From a file, trailing newline and all.
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte(osPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, map[string]string{"SESHAT_OPENSEARCH_USERNAME": osUser}, "-v", "upload", "--lts", lts, "--store", ts.URL, "--password-file", pw)
	noSecret(t, "upload --password-file", r)
	if r.code != 0 {
		t.Errorf("--password-file: exit %d\n%s", r.code, r.stderr)
	}
	// A wrong password: exit 1, a hint, no password.
	bad := map[string]string{"SESHAT_OPENSEARCH_USERNAME": osUser, "SESHAT_OPENSEARCH_PASSWORD": osPassword + "-typo"}
	r = runSeshat(t, bad, "-v", "upload", "--lts", lts, "--store", ts.URL)
	noSecret(t, "a refused upload", r)
	if r.code != 1 || !strings.Contains(r.stderr, "HTTP 401: Unauthorized") {
		t.Errorf("wrong password: exit %d\n%s", r.code, r.stderr)
	}
	// Credentials in the URL are used and never shown.
	u := strings.Replace(ts.URL, "http://", "http://"+osUser+":"+osPassword+"@", 1)
	r = runSeshat(t, nil, "-v", "history", "--store", u, "--filters", "backend=numpy")
	noSecret(t, "history with credentials in the URL", r)
	if r.code != 0 {
		t.Errorf("credentials in the URL: exit %d\n%s", r.code, r.stderr)
	}
	// The URL's password goes with the URL's user when the environment
	// names the same user and gives no password.
	r = runSeshat(t, map[string]string{"SESHAT_OPENSEARCH_USERNAME": osUser}, "-v", "history", "--store", u, "--filters", "backend=numpy")
	noSecret(t, "history with the user in the environment and the URL", r)
	if r.code != 0 {
		t.Errorf("SESHAT_OPENSEARCH_USERNAME and the URL's password: exit %d\n%s", r.code, r.stderr)
	}
	// Another user's password is not sent for the user the environment names.
	r = runSeshat(t, map[string]string{"SESHAT_OPENSEARCH_USERNAME": "someone-else"}, "history", "--store", u)
	noSecret(t, "history with another user in the environment", r)
	if r.code != 4 || !strings.Contains(r.stderr, "the store URL's password is its user's") {
		t.Errorf("another user in SESHAT_OPENSEARCH_USERNAME: exit %d, want 4\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "-v", "upload", "--lts", lts, "--store", u, "--dry-run")
	noSecret(t, "a dry run with credentials in the URL", r)
	if !strings.Contains(r.stderr, "would be stored in http://"+osUser+":xxxxx@") {
		t.Errorf("dry run names the store:\n%s", r.stderr)
	}
}

// TestOpenSearchTLSCommand: verified by default; --ca-cert makes the
// self-signed server trusted; --insecure-skip-verify only when asked.
func TestOpenSearchTLSCommand(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.StartTLS(t, opensearchtest.Config{Seed: 3})
	lts := "../../testdata/golden/lts.json"
	r := runSeshat(t, nil, "upload", "--lts", lts, "--store", ts.URL)
	if r.code != 1 || !strings.Contains(r.stderr, "certificate signed by unknown authority") || !strings.Contains(r.stderr, "--ca-cert FILE") {
		t.Errorf("self-signed without --ca-cert: exit %d\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "upload", "--lts", lts, "--store", ts.URL, "--ca-cert", ts.CACertFile(t))
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s)") {
		t.Errorf("with --ca-cert: exit %d\n%s", r.code, r.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "seshat.yaml")
	if err := os.WriteFile(cfg, []byte("lts:\n  store: "+ts.URL+"\n  opensearch:\n    ca_cert: "+ts.CACertFile(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runSeshat(t, nil, "--config", cfg, "history", "--format", "json")
	if r.code != 0 || strings.Count(r.stdout, `"test_uuid"`) != 8 {
		t.Errorf("store and CA from seshat.yaml: exit %d\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, map[string]string{"SESHAT_INSECURE_SKIP_VERIFY": "true"}, "history", "--store", ts.URL)
	if r.code != 0 {
		t.Errorf("SESHAT_INSECURE_SKIP_VERIFY: exit %d\n%s", r.code, r.stderr)
	}
}

// TestOpenSearchExport: the embedded store and the OpenSearch export of
// seshat.yaml; a failed export fails the command unless fail_on_error is
// false.
func TestOpenSearchExport(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 4})
	lts := "../../testdata/golden/lts.json"
	tmp := t.TempDir()
	write := func(name, yaml string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(tmp, "lts.db")
	cfg := write("export.yaml", "lts:\n  store: sqlite:"+db+"\n  opensearch:\n    export:\n      enabled: true\n    url: "+ts.URL+"\n    index: perf\n    kpi_index_suffix: _kpi\n")
	r := runSeshat(t, nil, "--config", cfg, "upload", "--lts", lts)
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s) in sqlite:"+db) || !strings.Contains(r.stderr, "index perf: 8 new") {
		t.Errorf("export: exit %d\n%s", r.code, r.stderr)
	}
	if ts.DocCount("perf") != 8 || ts.DocCount("perf_kpi") != 40 {
		t.Errorf("exported %d payloads, %d KPI documents", ts.DocCount("perf"), ts.DocCount("perf_kpi"))
	}
	down := "lts:\n  store: sqlite:" + db + "\n  opensearch:\n    export:\n      enabled: true\n    url: http://127.0.0.1:1\n"
	r = runSeshat(t, nil, "--config", write("down.yaml", down), "upload", "--lts", lts, "--retry-timeout", "1s")
	if r.code != 1 || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("export to a server down: exit %d, want 1\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "--config", write("lenient.yaml", down+"    fail_on_error: false\n"), "upload", "--lts", lts, "--retry-timeout", "1s")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: OpenSearch export failed") || !strings.Contains(r.stderr, "8 replaced") {
		t.Errorf("fail_on_error false: exit %d, want 0 and a warning\n%s", r.code, r.stderr)
	}
}

// TestVisualizeOpenSearchHistory: visualize reaches an OpenSearch history
// as upload does: the indices, the CA and the TLS choice come from the same
// flags.
func TestVisualizeOpenSearchHistory(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.StartTLS(t, opensearchtest.Config{Seed: 8})
	ca := ts.CACertFile(t)
	r := runSeshat(t, nil, "upload", "--lts", "../../testdata/golden/lts.json", "--store", ts.URL, "--ca-cert", ca, "--index", "perf")
	if r.code != 0 {
		t.Fatalf("upload: exit %d\n%s", r.code, r.stderr)
	}
	results := copyResults(t)
	out := filepath.Join(t.TempDir(), "reports")
	args := []string{"visualize", "--results-dir", results, "--history", ts.URL, "--generate", "report: KPI history", "--output-dir", out}
	r = runSeshat(t, nil, args...)
	if r.code != 1 || !strings.Contains(r.stderr, "certificate signed by unknown authority") {
		t.Errorf("without --ca-cert: exit %d, want 1\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, append(args, "--ca-cert", ca, "--index", "perf")...)
	if r.code != 0 {
		t.Fatalf("with --ca-cert and --index: exit %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "kpi_history.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "from "+ts.URL) {
		t.Errorf("the page does not name the OpenSearch history %s", ts.URL)
	}
	csvs, _ := filepath.Glob(filepath.Join(out, "figures", "kpi_history", "*.csv"))
	points := 0
	for _, f := range csvs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		points += strings.Count(string(data), "\n") - 1
	}
	if points == 0 {
		t.Errorf("no history points drawn (%d CSV files)", len(csvs))
	}
}

// TestUploadStoreFailureWins: a tree with invalid payloads uploaded to an
// OpenSearch that fails: the documents lost decide the exit status (1, not
// the 4 of the invalid payloads), and the message counts them and says why,
// beside the invalid payloads it still names.
func TestUploadStoreFailureWins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rule opensearchtest.Rule
		want []string
	}{
		{"503 to every request", opensearchtest.Rule{Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}},
			[]string{"48 of 48 documents not stored", "48: not sent: index template seshat: HTTP 503", "gave up after"}},
		{"500 to the second request", opensearchtest.Rule{Skip: 1, Times: 1, Fault: opensearchtest.Fault{Status: http.StatusInternalServerError}},
			[]string{"48 of 48 documents not stored", "48: not sent: install index template seshat: HTTP 500"}},
		{"500 to the bulk request", opensearchtest.Rule{Endpoint: opensearchtest.EndpointBulk, Times: 1, Fault: opensearchtest.Fault{Status: http.StatusInternalServerError}},
			[]string{"48 of 48 documents not stored", "48: bulk: HTTP 500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 5})
			ts.Inject(tt.rule)
			r := runSeshat(t, nil, "upload", "--results-dir", copyResults(t), "--store", ts.URL, "--retry-timeout", "1s")
			if r.code != 1 {
				t.Errorf("exit %d, want 1: documents were lost\n%s", r.code, r.stderr)
			}
			for _, want := range append(tt.want, "3 of 11 payload(s) not uploaded: 3 invalid LTS payload(s)") {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}

// TestUploadStaleKPICleanupFails: the upload is stored, the search for the
// KPI documents the runs no longer have fails: the summary is printed, the
// failure says what failed and that the data is stored, and the command
// exits 1.
func TestUploadStaleKPICleanupFails(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 6})
	dir := copyResults(t)
	if r := runSeshat(t, nil, "upload", "--results-dir", dir, "--store", ts.URL); r.code != 4 {
		t.Fatalf("first upload: exit %d, want 4 (three invalid entries)\n%s", r.code, r.stderr)
	}
	ts.Inject(opensearchtest.Rule{Endpoint: opensearchtest.EndpointSearch, Fault: opensearchtest.Fault{Status: http.StatusServiceUnavailable}})
	r := runSeshat(t, nil, "upload", "--results-dir", dir, "--store", ts.URL, "--retry-timeout", "1s")
	if r.code != 1 {
		t.Errorf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"stored 8 payload(s) in " + ts.URL + " index seshat: 0 new, 8 replaced; 40 KPI document(s)",
		"removing the KPI documents the runs no longer have failed", "search: HTTP 503", "the payloads and their KPI documents are stored"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestOpenSearchRetryNoticeCommand: history against a closed port says at
// once, on stderr and once, that it retries and for how long, then keeps
// retrying for the whole --retry-timeout; -q silences the notice with the
// other status lines, never the error.
func TestOpenSearchRetryNoticeCommand(t *testing.T) {
	t.Parallel()
	notice := "seshat: opensearch: http://127.0.0.1:1: connection refused; retrying for up to 1s (--retry-timeout)\n"
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprintf("quiet=%v", quiet), func(t *testing.T) {
			t.Parallel()
			args := []string{"history", "--store", "http://127.0.0.1:1", "--retry-timeout", "1s"}
			if quiet {
				args = append([]string{"-q"}, args...)
			}
			start := time.Now()
			r := runSeshat(t, nil, args...)
			took := time.Since(start)
			if r.code != 1 || !strings.Contains(r.stderr, "connection refused (gave up after") || r.stdout != "" {
				t.Errorf("exit %d, want 1 and the error\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if want := map[bool]int{false: 1, true: 0}[quiet]; strings.Count(r.stderr, notice) != want || strings.Count(r.stderr, "retrying for up to") != want {
				t.Errorf("want the notice %d time(s):\n%s", want, r.stderr)
			}
			if took < time.Second || took > 3*time.Second {
				t.Errorf("gave up after %s with --retry-timeout 1s", took)
			}
		})
	}
}

// TestUploadBulkBytes: an OpenSearch refusing bodies over 16 KiB (413)
// takes the upload in smaller bulk requests, saying so once and naming
// --bulk-bytes; with --bulk-bytes under its limit, nothing is refused.
func TestUploadBulkBytes(t *testing.T) {
	t.Parallel()
	const limit = 16 << 10
	lts := "../../testdata/golden/lts.json"
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 9, MaxContentLength: limit})
	r := runSeshat(t, nil, "upload", "--lts", lts, "--store", ts.URL)
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s)") || strings.Count(r.stderr, "refused as too large (HTTP 413)") != 1 ||
		!strings.Contains(r.stderr, "--bulk-bytes") {
		t.Errorf("413 above 16 KiB: exit %d, want 0, the upload stored and one notice\n%s", r.code, r.stderr)
	}
	if ts.DocCount("seshat") != 8 || ts.DocCount("seshat-kpis") != 40 {
		t.Errorf("server holds %d payloads, %d KPI documents", ts.DocCount("seshat"), ts.DocCount("seshat-kpis"))
	}
	ts.ResetStats()
	r = runSeshat(t, map[string]string{"SESHAT_BULK_BYTES": "8192"}, "upload", "--lts", lts, "--store", ts.URL)
	if r.code != 0 || strings.Contains(r.stderr, "HTTP 413") {
		t.Errorf("SESHAT_BULK_BYTES=8192: exit %d\n%s", r.code, r.stderr)
	}
	for i, b := range ts.BulkRequests() {
		if b.Bytes > 8192 && b.Actions > 1 {
			t.Errorf("bulk request %d: %d documents in %d bytes, over --bulk-bytes", i, b.Actions, b.Bytes)
		}
	}
	if r := runSeshat(t, nil, "upload", "--lts", lts, "--store", ts.URL, "--bulk-bytes", "-1"); r.code != 4 || !strings.Contains(r.stderr, "--bulk-bytes -1") {
		t.Errorf("--bulk-bytes -1: exit %d, want 4\n%s", r.code, r.stderr)
	}
}
