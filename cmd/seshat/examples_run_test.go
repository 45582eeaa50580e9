package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const examplesDir = "../../examples"

// TestExamplesRunParseUpload: every benchmark file of examples/ runs,
// parses strictly (parse --output-lts) and uploads to a fresh SQLite store,
// as a newcomer would try it. Each file is first dry-run whole, which
// checks every point; then it runs shrunk to what a test can afford: every
// list setting (but an argv) cut to its first value, matrix_size 32, 3
// repetitions, one run per point. What needs hardware this machine lacks
// stays a dry run, said in the log: the experiments on device: gpu, and
// those of a backend whose Python module cannot be imported (.ci/run
// installs numpy and torch).
func TestExamplesRunParseUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	files := benchmarkFiles(t)
	examples, err := filepath.Abs(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo.yaml", "exec.yaml", "gpu.yaml", "laptop.yaml", "ci/benchmark.yaml", "ci/ab-benchmark.yaml", "llm-serving/benchmark.yaml"} {
		if !slices.Contains(files, want) {
			t.Errorf("examples/%s is gone: update the test", want)
		}
	}
	// ab-benchmark.yaml runs the pull request's two builds, ab/{side}/bench,
	// from the directory seshat run starts in: stand-ins print a pi.json.
	t.Chdir(t.TempDir())
	for _, side := range []string{"base", "head"} {
		os.MkdirAll(filepath.Join("ab", side), 0o755)
		script := `#!/bin/sh
printf '{"component": "bench", "name": "PiBench", "@parameters": {"matrix_size": %s}, "@result": {"elapsed": 1.5, "samples_ms": [1.5, 1.4, 1.6]}, "versions": {"bench": "1.0"}}' "$2"
`
		if err := os.WriteFile(filepath.Join("ab", side, "bench"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			src := filepath.Join(examples, rel)
			r := runSeshat(t, nil, "run", "--dry-run", "--benchmark", src, "--results-dir", "dry")
			if r.code != 0 {
				t.Fatalf("run --dry-run: exit %d\n%s", r.code, r.stderr)
			}
			// The file shrunk, beside a copy of what its directory holds (a
			// workload file and its load generator).
			dir := filepath.Join(t.TempDir(), filepath.Dir(rel))
			if err := os.CopyFS(dir, os.DirFS(filepath.Dir(src))); err != nil {
				t.Fatal(err)
			}
			bench := filepath.Join(dir, filepath.Base(rel))
			runnable := shrinkBenchmark(t, src, bench)
			if len(runnable) == 0 {
				t.Logf("%s: dry run only", rel)
				return
			}
			results := filepath.Join(t.TempDir(), "results")
			args := []string{"run", "--benchmark", bench, "--results-dir", results}
			for _, e := range runnable {
				args = append(args, "--expe", e)
			}
			if r := runSeshat(t, nil, args...); r.code != 0 {
				t.Fatalf("seshat %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
			}
			n := len(runDirsOf(t, results))
			r = runSeshat(t, nil, "parse", "--results-dir", results, "--output-lts", filepath.Join(t.TempDir(), "lts.json"))
			if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("parsed %d entries", n)) {
				t.Fatalf("parse --output-lts: exit %d, want the %d runs\n%s", r.code, n, r.stderr)
			}
			store := "sqlite:" + filepath.Join(t.TempDir(), "store", "lts.db")
			r = runSeshat(t, nil, "upload", "--results-dir", results, "--store", store, "--create")
			if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf(": %d new, 0 replaced", n)) {
				t.Fatalf("upload: exit %d, want %d new payloads\n%s", r.code, n, r.stderr)
			}
			t.Logf("%s: %d runs of %s parsed and uploaded", rel, n, strings.Join(runnable, ", "))
		})
	}
}

// benchmarkFiles lists the YAML files under examples/ that are benchmark
// files (they have experiments), relative to examples/.
func benchmarkFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(examplesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var top map[string]any
		if yaml.Unmarshal(data, &top) == nil && top["expe"] != nil {
			rel, _ := filepath.Rel(examplesDir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// shrunk are the settings a test sets smaller; other settings keep their
// first value.
var shrunk = map[string]string{"matrix_size": "32", "repetitions": "3", "warmup": "1", "max_seconds": "1",
	"min_repetitions": "3", "repeat": "1"}

// shrinkBenchmark writes src to dst shrunk (TestExamplesRunParseUpload) and
// returns the experiments that can run here: those run by default, less
// those that need a GPU or a Python module this machine lacks.
func shrinkBenchmark(t *testing.T, src, dst string) []string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	doc := root.Content[0]
	shrink := func(m *yaml.Node) map[string]string {
		values := map[string]string{}
		if m.Kind != yaml.MappingNode {
			return values
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i].Value, m.Content[i+1]
			if v.Kind == yaml.SequenceNode && k != "command" && len(v.Content) > 0 {
				m.Content[i+1] = v.Content[0]
				v = v.Content[0]
			}
			if s, ok := shrunk[k]; ok {
				v.Kind, v.Tag, v.Value, v.Style = yaml.ScalarNode, "!!int", s, 0
			}
			values[k] = v.Value
		}
		return values
	}
	var common map[string]string
	var runnable []string
	for i := 0; i+1 < len(doc.Content); i += 2 {
		switch doc.Content[i].Value {
		case "common_settings":
			common = shrink(doc.Content[i+1])
		}
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "expe" {
			continue
		}
		expe := doc.Content[i+1]
		for j := 0; j+1 < len(expe.Content); j += 2 {
			name := expe.Content[j].Value
			settings := shrink(expe.Content[j+1])
			get := func(k string) string {
				if v, ok := settings[k]; ok {
					return v
				}
				return common[k]
			}
			switch {
			case strings.HasPrefix(name, "_"):
			case get("device") == "gpu":
				t.Logf("%s: dry run only: device: gpu", name)
			case (get("backend") == "numpy" || get("backend") == "torch") && !canImport(get("backend")):
				t.Logf("%s: dry run only: /usr/bin/python3 cannot import %s", name, get("backend"))
			default:
				runnable = append(runnable, name)
			}
		}
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return runnable
}

func canImport(module string) bool {
	return exec.Command("/usr/bin/python3", "-c", "import "+module).Run() == nil
}
