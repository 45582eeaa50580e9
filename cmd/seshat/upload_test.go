package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeURL is a fresh SQLite store in a temporary directory.
func storeURL(t *testing.T) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "lts.db")
}

// TestUploadStorePath: a SQLite store in a directory that does not exist is
// refused (exit 4) unless --create creates it; a store path that is a
// directory says so, to upload and history alike.
func TestUploadStorePath(t *testing.T) {
	t.Parallel()
	file := "../../testdata/golden/lts.json"
	dir := t.TempDir()
	typo := filepath.Join(dir, "tpyo", "lts.db")
	r := runSeshat(t, nil, "upload", "--lts", file, "--store", "sqlite:"+typo)
	if r.code != 4 || !strings.Contains(r.stderr, "directory "+filepath.Dir(typo)+" does not exist (--create creates it)") {
		t.Errorf("a store in a missing directory: exit %d, want 4\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Dir(typo)); err == nil {
		t.Error("the missing directory was created without --create")
	}
	r = runSeshat(t, nil, "upload", "--lts", file, "--store", "sqlite:"+typo, "--create")
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s) in sqlite:"+typo) {
		t.Errorf("--create: exit %d, want 0\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"upload", "--lts", file, "--store", "sqlite:" + dir}, {"history", "--store", "sqlite:" + dir}} {
		r = runSeshat(t, nil, args...)
		if r.code != 4 || !strings.Contains(r.stderr, dir+" is a directory, not a store file") || strings.Contains(r.stderr, "unable to open") {
			t.Errorf("seshat %s: exit %d, want 4 saying the path is a directory\n%s", args[0], r.code, r.stderr)
		}
	}
}

// TestUploadShippedTree uploads the shipped tree: its valid payloads are
// stored, the invalid ones named with their fields, exit 4; a second upload
// replaces and adds nothing.
func TestUploadShippedTree(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	st := storeURL(t)
	r := runSeshat(t, nil, "upload", "--results-dir", dir, "--store", st)
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (invalid entries)\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"stored 8 payload(s) in " + st + ": 8 new, 0 replaced",
		"3 of 11 payload(s) not uploaded: 3 invalid LTS payload(s):",
		"  matmul_sizes/004__matrix_size=1024: results.pi: required",
		"  matmul_sizes/005__matrix_size=2048: results.hwinfo: required;",
		"  matmul_sizes/007__matrix_size=8192: results.pi: required",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	_, refused, _ := strings.Cut(r.stderr, "not uploaded")
	if strings.Contains(refused, "matrix_size=128") || strings.Contains(refused, "repeat=2") {
		t.Errorf("incomplete or unreadable entries are not payloads, nothing to refuse:\n%s", refused)
	}
	r = runSeshat(t, nil, "upload", "--results-dir", dir, "--store", st)
	if r.code != 4 || !strings.Contains(r.stderr, "stored 8 payload(s) in "+st+": 0 new, 8 replaced") {
		t.Errorf("re-upload: exit %d\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "history", "--store", st, "--format", "json")
	var records []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &records); r.code != 0 || err != nil || len(records) != 8 {
		t.Errorf("history after two uploads: exit %d, %v, %d records, want 8\n%s", r.code, err, len(records), r.stderr)
	}
}

func TestUploadDryRun(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	st := filepath.Join(t.TempDir(), "lts.db")
	r := runSeshat(t, nil, "upload", "--results-dir", dir, "--store", "sqlite:"+st, "--dry-run", "--filters", "backend=gonum")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "imported_runs/001__dtype=float64\tbaf4c97d-8a2d-4908-9670-a384d39979c9\t5 KPIs") {
		t.Errorf("dry run lists:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "dry run: 4 payload(s) with 20 KPI(s) would be stored in sqlite:"+st) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if _, err := os.Stat(st); !os.IsNotExist(err) {
		t.Errorf("a dry run created the store: %v", err)
	}
}

// TestUploadLTSFile uploads what parse --output-lts wrote, and refuses a
// tampered file payload by payload.
func TestUploadLTSFile(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	for _, e := range invalidShipped {
		if err := os.WriteFile(filepath.Join(dir, e, "skip"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "lts.json")
	if r := runSeshat(t, nil, "parse", "--results-dir", dir, "--output-lts", file); r.code != 0 {
		t.Fatalf("parse: exit %d\n%s", r.code, r.stderr)
	}
	st := storeURL(t)
	r := runSeshat(t, nil, "upload", "--lts", file, "--store", st)
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s) in "+st+": 8 new, 0 replaced") {
		t.Fatalf("upload --lts: exit %d\n%s", r.code, r.stderr)
	}

	// Break payload 1 (a field) and 2 (an unknown field), keep the rest.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var payloads []map[string]any
	if err := json.Unmarshal(data, &payloads); err != nil {
		t.Fatal(err)
	}
	payloads[1]["metadata"].(map[string]any)["test_uuid"] = "not-a-uuid"
	payloads[2]["results"].(map[string]any)["extra"] = true
	data, _ = json.Marshal(payloads)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st2 := storeURL(t)
	r = runSeshat(t, nil, "upload", "--lts", bad, "--store", st2)
	if r.code != 4 {
		t.Fatalf("tampered file: exit %d, want 4\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"stored 6 payload(s)",
		bad + `[1]: metadata.test_uuid: must be a UUID v4, got "not-a-uuid"`,
		bad + `[2]: results: json: unknown field "extra"`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	// Not JSON at all: the file and line, nothing stored.
	if err := os.WriteFile(bad, []byte("[{\"metadata\": \n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runSeshat(t, nil, "upload", "--lts", bad, "--store", st2)
	if r.code != 4 || !strings.Contains(r.stderr, bad+":2") {
		t.Errorf("broken JSON: exit %d\n%s", r.code, r.stderr)
	}
}

// TestUploadBothInputs: --results-dir and --lts together upload both, as
// every verb reads them: a run in both (the same test_uuid) once, the
// results directory's.
func TestUploadBothInputs(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	st := storeURL(t)
	// The 4 gonum runs of the directory are the golden's first 4; its
	// other 4 are not selected in the directory.
	args := []string{"upload", "--results-dir", dir, "--filters", "backend=gonum", "--lts", "../../testdata/golden/lts.json", "--store", st}
	r := runSeshat(t, nil, append(args, "--dry-run")...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 8 || !strings.HasPrefix(lines[3], "matmul_batches/003__backend=gonum__repeat=2\t") ||
		!strings.HasPrefix(lines[4], "../../testdata/golden/lts.json[4]\t") {
		t.Fatalf("dry run: exit %d, want the directory's 4 runs then the file's 4 others:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runSeshat(t, nil, args...)
	if r.code != 0 || !strings.Contains(r.stderr, "stored 8 payload(s) in "+st+": 8 new, 0 replaced") {
		t.Errorf("upload: exit %d\n%s", r.code, r.stderr)
	}
}

func TestUploadNothing(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	st := storeURL(t)
	// Only the interrupted run: incomplete entries are not payloads.
	r := runSeshat(t, nil, "upload", "--results-dir", dir, "--store", st, "--filters", "@repeat=2,backend=numpy")
	if r.code != 3 || !strings.Contains(r.stderr, "nothing to upload") {
		t.Errorf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	empty := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(empty, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runSeshat(t, nil, "upload", "--lts", empty, "--store", st); r.code != 3 {
		t.Errorf("empty LTS file: exit %d, want 3\n%s", r.code, r.stderr)
	}
}

func TestUploadFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no input", nil, []string{"upload"}, "give --results-dir DIR or --lts FILE"},
		{"missing LTS file", nil, []string{"upload", "--lts", "/nonexistent/lts.json"}, "--lts: open /nonexistent/lts.json"},
		{"unknown store", nil, []string{"upload", "--lts", "../../testdata/golden/lts.json", "--store", "mysql://db"}, `store "mysql://db": unknown kind`},
		{"password without user", map[string]string{"SESHAT_OPENSEARCH_PASSWORD": "pw"},
			[]string{"upload", "--lts", "../../testdata/golden/lts.json", "--store", "http://127.0.0.1:1"}, "no user: set SESHAT_OPENSEARCH_USERNAME"},
		{"export without URL", nil, []string{"upload", "--lts", "../../testdata/golden/lts.json", "--opensearch-export", "--store", "sqlite:/nonexistent/x.db"}, "export is enabled but has no URL"},
		{"TLS options on http", nil, []string{"upload", "--lts", "../../testdata/golden/lts.json", "--store", "http://127.0.0.1:1", "--insecure-skip-verify"}, "TLS options given for a plain http:// URL"},
		{"bad retry timeout", nil, []string{"upload", "--lts", "x", "--retry-timeout", "soon"}, `invalid argument "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, tt.env, tt.args...)
			if r.code != 4 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want 4 and %q:\n%s", r.code, tt.want, r.stderr)
			}
		})
	}
}

// TestUploadServerDown: nothing listens; the upload retries until
// --retry-timeout and fails naming the server and the cause.
func TestUploadServerDown(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SESHAT_OPENSEARCH_USERNAME": "ci", "SESHAT_OPENSEARCH_PASSWORD": "s3cr3t-pa55"}
	r := runSeshat(t, env, "-v", "upload", "--lts", "../../testdata/golden/lts.json",
		"--store", "http://127.0.0.1:1", "--retry-timeout", "1s")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"http://127.0.0.1:1", "connection refused", "gave up after"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "s3cr3t-pa55") {
		t.Errorf("the password is printed:\n%s\n%s", r.stdout, r.stderr)
	}
}

// TestUploadFromConfigFile takes the store from seshat.yaml.
func TestUploadFromConfigFile(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "from-config.db")
	cfg := filepath.Join(tmp, "seshat.yaml")
	if err := os.WriteFile(cfg, []byte("lts:\n  store: sqlite:"+db+"\n  opensearch:\n    index: ci\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, nil, "--config", cfg, "upload", "--results-dir", dir, "--filters", "backend=gonum")
	if r.code != 0 || !strings.Contains(r.stderr, "stored 4 payload(s) in sqlite:"+db) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "--config", cfg, "history", "--format", "json")
	if r.code != 0 || strings.Count(r.stdout, `"test_uuid"`) != 4 {
		t.Errorf("history from the config's store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
