package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// tinyBenchmark is two quick runs of a gonum PI.
const tinyBenchmark = "common_settings:\n  pi: matmul\n  backend: gonum\n  repetitions: 3\n  warmup: 0\nexpe:\n  tiny: {matrix_size: [8, 16]}\n"

// ciFree is this process's environment without what a CI engine sets, so
// that the tests detect the same build on a laptop and in CI.
func ciFree() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "CI_"), strings.HasPrefix(k, "GITLAB_"),
			strings.HasPrefix(k, "PULL_"), k == "PROW_JOB_ID", k == "JENKINS_URL":
			continue
		}
		out = append(out, kv)
	}
	return out
}

func readBuild(t *testing.T, dir string) models.Build {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b models.Build
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("%s/build.json: %v\n%s", dir, err, data)
	}
	return b
}

// TestRunCommandBuild: seshat run writes build.json in every run directory,
// from the flags, their SESHAT_ variables or the CI's environment, and
// parse carries it into the LTS payload as metadata.build, not a label.
func TestRunCommandBuild(t *testing.T) {
	t.Parallel()
	github := append(ciFree(), "GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_REF_NAME=main", "GITHUB_RUN_ID=4242",
		"GITHUB_RUN_ATTEMPT=2", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=acme/stack")
	tests := []struct {
		name    string
		getenv  map[string]string
		environ []string
		flags   []string
		want    models.Build // Time is not compared
	}{{
		name:  "flags",
		flags: []string{"--build-id", "nightly-7", "--commit", "0123abcd", "--ref", "release-1"},
		want:  models.Build{ID: "nightly-7", Commit: "0123abcd", Ref: "release-1"},
	}, {
		name:   "environment variables of the flags",
		getenv: map[string]string{"SESHAT_BUILD_ID": "nightly-8", "SESHAT_COMMIT": "4567cdef", "SESHAT_REF": "release-2"},
		want:   models.Build{ID: "nightly-8", Commit: "4567cdef", Ref: "release-2"},
	}, {
		name:    "GitHub Actions",
		environ: github,
		want: models.Build{ID: "github-4242-2", Commit: "89abcdef0123", Ref: "main",
			CI: &models.CI{Engine: "github", RunID: "4242", URL: "https://github.com/acme/stack/actions/runs/4242"}},
	}, {
		name:    "a flag over the CI",
		environ: github,
		flags:   []string{"--build-id", "mine"},
		want: models.Build{ID: "mine", Commit: "89abcdef0123", Ref: "main",
			CI: &models.CI{Engine: "github", RunID: "4242", URL: "https://github.com/acme/stack/actions/runs/4242"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			environ := tt.environ
			if environ == nil {
				environ = ciFree()
			}
			results := filepath.Join(t.TempDir(), "results")
			args := append([]string{"run", "--benchmark", writeBenchmark(t, tinyBenchmark), "--results-dir", results}, tt.flags...)
			r := runSeshatIn(t, tt.getenv, environ, args...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			dirs := runDirsOf(t, results)
			if len(dirs) != 2 {
				t.Fatalf("run directories %v", dirs)
			}
			for _, d := range dirs {
				b := readBuild(t, filepath.Join(results, d))
				if b.Time.IsZero() {
					t.Errorf("%s: build.json has no time", d)
				}
				b.Time = tt.want.Time
				if got, want := mustJSON(t, b), mustJSON(t, tt.want); got != want {
					t.Errorf("%s: build.json %s, want %s", d, got, want)
				}
			}

			payloads, _ := twoPayloads(t, results)
			for _, p := range payloads {
				if p.Metadata.Build == nil || p.Metadata.Build.ID != tt.want.ID || p.Metadata.Build.Commit != tt.want.Commit {
					t.Errorf("metadata.build %+v, want %+v", p.Metadata.Build, tt.want)
				}
				for k, v := range p.Metadata.Labels {
					if v == tt.want.ID {
						t.Errorf("label %s=%s: the build must not be a label", k, v)
					}
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRunCommandBuildOnePerInvocation: with nothing to go on (no CI, not
// in a git repository), each invocation is a build of its own, shared by
// its runs; --dry-run names the build once.
func TestRunCommandBuildOnePerInvocation(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	// Outside any repository, whatever the directory the tests run in.
	environ := append(ciFree(), "GIT_DIR="+filepath.Join(work, "no-repository"))
	bench := writeBenchmark(t, tinyBenchmark)
	var ids []string
	for _, results := range []string{filepath.Join(work, "a"), filepath.Join(work, "b")} {
		r := runSeshatIn(t, nil, environ, "run", "--benchmark", bench, "--results-dir", results)
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
		}
		dirs := runDirsOf(t, results)
		first := readBuild(t, filepath.Join(results, dirs[0]))
		second := readBuild(t, filepath.Join(results, dirs[1]))
		if !strings.HasPrefix(first.ID, "run-") || first.ID != second.ID || first.Commit != "" || first.CI != nil {
			t.Errorf("builds %+v and %+v: want one run-<uuid> for the invocation", first, second)
		}
		ids = append(ids, first.ID)
	}
	if ids[0] == ids[1] {
		t.Errorf("two invocations share the build %s", ids[0])
	}

	r := runSeshatIn(t, nil, environ, "run", "--dry-run", "--benchmark", bench, "--build-id", "nightly-9")
	if r.code != 0 || strings.Count(r.stderr, "nightly-9") != 1 || !strings.Contains(r.stderr, "build nightly-9") || strings.Contains(r.stdout, "nightly-9") {
		t.Errorf("dry run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runSeshatIn(t, nil, environ, "run", "--dry-run", "--benchmark", bench, "--build-id", "two\nlines")
	if r.code != 4 || !strings.Contains(r.stderr, "--build-id") {
		t.Errorf("a --build-id of two lines: exit %d\n%s", r.code, r.stderr)
	}
}

// TestParseBuildJSON: a run directory without build.json (an older run)
// parses without a warning and without a build; a broken one warns,
// naming the file, and is parsed all the same.
func TestParseBuildJSON(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshatIn(t, nil, ciFree(), "run", "--benchmark", writeBenchmark(t, tinyBenchmark), "--results-dir", results, "--build-id", "b1")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	dirs := runDirsOf(t, results)
	if err := os.Remove(filepath.Join(results, dirs[0], "build.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(results, dirs[1], "build.json"), []byte(`{"id": "b1", "time": "tuesday"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	payloads, r := twoPayloads(t, results)
	for _, p := range payloads {
		if p.Metadata.Build != nil {
			t.Errorf("metadata.build %+v, want none", p.Metadata.Build)
		}
	}
	if strings.Count(r.stderr, "warn") != 1 || !strings.Contains(r.stderr, dirs[1]+": build.json: field time") || strings.Contains(r.stderr, dirs[0]) {
		t.Errorf("want one warning, on %s's build.json:\n%s", dirs[1], r.stderr)
	}
}

// twoPayloads parses the results of tinyBenchmark as `parse --output-lts -`
// writes them, strictly validated: two payloads, and the parse's result.
func twoPayloads(t *testing.T, results string) ([]models.Payload, result) {
	t.Helper()
	r := runSeshat(t, nil, "parse", "--results-dir", results, "--output-lts", "-")
	if r.code != 0 {
		t.Fatalf("parse --output-lts: exit %d\n%s", r.code, r.stderr)
	}
	var payloads []models.Payload
	if err := json.Unmarshal([]byte(r.stdout), &payloads); err != nil || len(payloads) != 2 {
		t.Fatalf("%v: %d payloads\n%s", err, len(payloads), r.stdout)
	}
	return payloads, r
}
