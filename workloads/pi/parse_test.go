package pi

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// copyResults copies the shipped results tree to a temporary directory (the
// parse writes caches into it), without caches a local parse may have left.
func copyResults(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(dir, os.DirFS(testdataResults)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == store.CacheFile {
			err = os.Remove(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, opts store.Options) *store.Matrix {
	t.Helper()
	opts.Lookup = workloads.Builtin().Lookup
	m, err := store.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func entryAt(t *testing.T, m *store.Matrix, path string) *store.Entry {
	t.Helper()
	for _, e := range m.Entries {
		if e.Path == path {
			return e
		}
	}
	t.Fatalf("no entry %s", path)
	return nil
}

func resultsOf(t *testing.T, e *store.Entry) *Results {
	t.Helper()
	r, ok := e.Results.(*Results)
	if !ok {
		t.Fatalf("%s: results = %T (%v), want *Results", e.Path, e.Results, e.Warnings)
	}
	return r
}

func TestParseShippedTree(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	m := load(t, store.Options{ResultsDir: dir})
	for _, e := range m.Entries {
		for _, w := range e.Warnings {
			if strings.Contains(w, "not declared") {
				t.Errorf("%s: %s", e.Path, w)
			}
		}
	}

	good := resultsOf(t, entryAt(t, m, goodRun))
	if good.UUID == "" || !strings.Contains(string(good.Config), `"expe":"matmul_sizes"`) || good.PI == nil || good.HWInfo == nil || good.Usage == nil {
		t.Errorf("good run: %+v", good)
	}
	if good.StdoutTail != "" || good.StderrTail != "" {
		t.Errorf("good run logs read: %q / %q", good.StdoutTail, good.StderrTail)
	}
	assertWarnings(t, entryAt(t, m, goodRun).Warnings)

	failed := entryAt(t, m, "matmul_sizes/007__matrix_size=8192")
	assertWarnings(t, failed.Warnings, "pi.json: missing (the run exited with code 1)")
	fr := resultsOf(t, failed)
	if fr.PI != nil || fr.Usage == nil || !strings.Contains(fr.StderrTail, "Unable to allocate 256. MiB") {
		t.Errorf("failed run: %+v", fr)
	}

	corrupt := entryAt(t, m, "matmul_sizes/004__matrix_size=1024")
	assertWarnings(t, corrupt.Warnings, "pi.json:37: unexpected content after the JSON document")
	if r := resultsOf(t, corrupt); r.PI != nil || r.HWInfo == nil {
		t.Errorf("corrupt pi.json: %+v", r)
	}

	truncated := entryAt(t, m, "matmul_sizes/005__matrix_size=2048")
	assertWarnings(t, truncated.Warnings, "hwinfo.json:59: truncated JSON document")
	if r := resultsOf(t, truncated); r.HWInfo != nil || r.PI == nil {
		t.Errorf("truncated hwinfo.json: %+v", r)
	}
}

// writeRun makes a results directory holding one run of the given files; a
// value "<dir>" makes a directory instead of a file.
func writeRun(t *testing.T, files map[string]string) string {
	t.Helper()
	results := t.TempDir()
	run := filepath.Join(results, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"settings.yaml": "workload: pi\npi: matmul\nmatrix_size: 512\n"}
	for name, content := range files {
		all[name] = content
	}
	for name, content := range all {
		var err error
		if content == "<dir>" {
			err = os.Mkdir(filepath.Join(run, name), 0o755)
		} else {
			err = os.WriteFile(filepath.Join(run, name), []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return results
}

func TestParseOnce(t *testing.T) {
	t.Parallel()
	complete := map[string]string{}
	for _, name := range (Workload{}).ImportantFiles() {
		complete[name] = string(readTestdata(t, goodRun+"/"+name))
	}
	complete["exit_code"] = "0\n"
	with := func(changes map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range complete {
			out[k] = v
		}
		for k, v := range changes {
			if v == "<remove>" {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	bigLog := strings.Repeat("é", 3000) + "Traceback: the end\n"
	tests := []struct {
		name     string
		files    map[string]string
		check    func(t *testing.T, r *Results)
		warnings []string
	}{
		{
			name:  "complete",
			files: complete,
			check: func(t *testing.T, r *Results) {
				if r.UUID == "" || r.Config == nil || r.PI == nil || r.HWInfo == nil || r.Usage == nil || r.StdoutTail != "" {
					t.Errorf("results: %+v", r)
				}
			},
		},
		{
			name:     "nothing but exit_code",
			files:    map[string]string{"exit_code": "0"},
			warnings: []string{".uuid: missing", "config.yaml: missing", "pi.json: missing", "hwinfo.json: missing", "usage.json: missing"},
			check: func(t *testing.T, r *Results) {
				assertEqual(t, *r, Results{LocalPath: r.LocalPath})
			},
		},
		{
			name:     "failed run",
			files:    with(map[string]string{"exit_code": "137\n", "pi.json": "<remove>", "stderr.log": "Killed\n"}),
			warnings: []string{"pi.json: missing (the run exited with code 137)"},
			check:    func(t *testing.T, r *Results) { assertEqual(t, r.StderrTail, "Killed\n") },
		},
		{
			name:     "artifact that is a directory",
			files:    with(map[string]string{"pi.json": "<dir>"}),
			warnings: []string{"pi.json: "},
			check: func(t *testing.T, r *Results) {
				if r.PI != nil || r.HWInfo == nil {
					t.Errorf("results: %+v", r)
				}
			},
		},
		{
			name:     "broken files each warn and leave their field empty",
			files:    with(map[string]string{".uuid": "not-a-uuid\n", "config.yaml": "[1, 2\n", "usage.json": "{\"start\": \"2025\"", "hwinfo.json": ""}),
			warnings: []string{`.uuid:1: invalid UUID "not-a-uuid"`, "config.yaml:", "hwinfo.json:1: empty document", "usage.json:1: truncated JSON document"},
			check: func(t *testing.T, r *Results) {
				if r.UUID != "" || r.Config != nil || r.HWInfo != nil || r.Usage != nil || r.PI == nil {
					t.Errorf("results: %+v", r)
				}
			},
		},
		{
			name:  "a failed run's long logs keep their end, cut cleanly",
			files: with(map[string]string{"exit_code": "1\n", "stderr.log": bigLog, "stdout.log": "<remove>"}),
			check: func(t *testing.T, r *Results) {
				if len(r.StderrTail) > LogTailBytes || !strings.HasSuffix(bigLog, r.StderrTail) || !strings.HasPrefix(r.StderrTail, "é") {
					t.Errorf("stderr tail: %d bytes, starts %q", len(r.StderrTail), r.StderrTail[:8])
				}
				assertEqual(t, r.StdoutTail, "")
			},
		},
		{
			name:  "a successful run's logs are not read",
			files: with(map[string]string{"stderr.log": "warning: slow\n", "stdout.log": "done\n"}),
			check: func(t *testing.T, r *Results) {
				assertEqual(t, r.StdoutTail, "")
				assertEqual(t, r.StderrTail, "")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := load(t, store.Options{ResultsDir: writeRun(t, tt.files)})
			e := entryAt(t, m, "run")
			assertWarnings(t, e.Warnings, tt.warnings...)
			if tt.check != nil {
				tt.check(t, resultsOf(t, e))
			}
		})
	}
}

// TestDecodeCachedRoundTrip: what the cache stores of every shipped entry
// reads back to the same value and the same JSON.
func TestDecodeCachedRoundTrip(t *testing.T) {
	t.Parallel()
	m := load(t, store.Options{ResultsDir: copyResults(t), NoCache: true})
	n := 0
	for _, e := range m.Entries {
		if e.Results == nil {
			continue
		}
		n++
		r := *resultsOf(t, e)
		r.LocalPath, r.URLs = "", nil // parse-always: not what the cache holds
		raw, err := json.Marshal(&r)
		if err != nil {
			t.Fatalf("%s: %v", e.Path, err)
		}
		back, err := store.CacheRoundTrip(Workload{}, &r)
		if err != nil {
			t.Fatalf("%s: %v", e.Path, err)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(raw, again) {
			t.Errorf("%s: JSON changed through the cache:\n%s\n%s", e.Path, raw, again)
		}
		if !reflect.DeepEqual(&r, back) {
			t.Errorf("%s: value changed through the cache:\n%+v\n%+v", e.Path, &r, back)
		}
	}
	if n < 10 {
		t.Errorf("only %d entries parsed", n)
	}
}

// TestCachedParseEqualsFresh: a second parse comes from the cache and gives
// the same matrix document.
func TestCachedParseEqualsFresh(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	var first, second bytes.Buffer
	m1 := load(t, store.Options{ResultsDir: dir})
	if err := m1.WriteJSON(&first, true); err != nil {
		t.Fatal(err)
	}
	m2 := load(t, store.Options{ResultsDir: dir})
	if err := m2.WriteJSON(&second, true); err != nil {
		t.Fatal(err)
	}
	if s := m2.Stats(); s.Cached != m1.Stats().Parsed || s.Parsed != 0 {
		t.Errorf("second parse: %v, first: %v", s, m1.Stats())
	}
	if first.String() != second.String() {
		t.Error("cached parse differs from the fresh one")
	}
}

func TestParseAlways(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	const base = "https://ci.example.com/job/42/artifacts/"
	m := load(t, store.Options{ResultsDir: dir, BaseURL: base})
	good := entryAt(t, m, goodRun)
	r := resultsOf(t, good)
	assertEqual(t, r.LocalPath, filepath.Join(dir, filepath.FromSlash(goodRun)))
	run := "https://ci.example.com/job/42/artifacts/matmul_sizes/003__matrix_size=512/"
	assertEqual(t, r.URLs, map[string]string{
		"artifacts":   run,
		"pi.json":     run + "pi.json",
		"hwinfo.json": run + "hwinfo.json",
		"usage.json":  run + "usage.json",
	})
	failed := resultsOf(t, entryAt(t, m, "matmul_sizes/007__matrix_size=8192"))
	if _, ok := failed.URLs["pi.json"]; ok || failed.URLs["stderr.log"] == "" {
		t.Errorf("failed run URLs = %v, want stderr.log and no pi.json", failed.URLs)
	}

	// The base URL's credentials are not written.
	m = load(t, store.Options{ResultsDir: dir, BaseURL: "https://ci:hunter2@ci.example.com/job/42/artifacts/"})
	assertEqual(t, resultsOf(t, entryAt(t, m, goodRun)).URLs["artifacts"], run)

	// Without a base URL, a cached result gets no stale URLs.
	m = load(t, store.Options{ResultsDir: dir})
	if r := resultsOf(t, entryAt(t, m, goodRun)); r.URLs != nil || good.State != store.StateParsed {
		t.Errorf("URLs = %v (state %v)", r.URLs, good.State)
	}
}

func TestArtifactURLs(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, path, want string }{
		{name: "root is the results directory", base: "https://h/a", path: ".", want: "https://h/a/"},
		{name: "odd characters escaped", base: "https://h/a/", path: "e/run 1?#", want: "https://h/a/e/run%201%3F%23/"},
		{name: "at and equals kept", base: "https://h", path: "x/@repeat=1", want: "https://h/x/@repeat=1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			urls, err := artifactURLs(tt.base, tt.path, &Results{})
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, urls, map[string]string{"artifacts": tt.want})
		})
	}
}
