package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

const testInvocation = "0f1e2d3c-4b5a-4697-8879-6a5b4c3d2e1f"

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// noGit is a git executable that does not exist: the sources without a
// repository.
func noGit(t *testing.T) string { return filepath.Join(t.TempDir(), "no-git") }

func TestDetectBuildCI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     []string
		want    models.Build
		warning string
	}{{
		name: "github",
		env: []string{"GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_REF_NAME=main", "GITHUB_RUN_ID=4242",
			"GITHUB_RUN_ATTEMPT=1", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=acme/stack"},
		want: models.Build{ID: "github-4242", Commit: "89abcdef0123", Ref: "main", Time: testStart,
			CI: &models.CI{Engine: "github", RunID: "4242", URL: "https://github.com/acme/stack/actions/runs/4242"}},
	}, {
		name: "github re-run",
		env:  []string{"GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_RUN_ID=4242", "GITHUB_RUN_ATTEMPT=3"},
		want: models.Build{ID: "github-4242-3", Commit: "89abcdef0123", Time: testStart,
			CI: &models.CI{Engine: "github", RunID: "4242"}},
	}, {
		name: "github bad attempt",
		env:  []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242", "GITHUB_RUN_ATTEMPT=two"},
		want: models.Build{ID: "github-4242", Time: testStart, CI: &models.CI{Engine: "github", RunID: "4242"}},
		// The id stays that of the run.
		warning: `GITHUB_RUN_ATTEMPT="two"`,
	}, {
		name: "gitlab",
		env: []string{"GITLAB_CI=true", "CI_COMMIT_SHA=fedcba987654", "CI_COMMIT_REF_NAME=release-2", "CI_PIPELINE_ID=777",
			"CI_PIPELINE_URL=https://gitlab.example/acme/stack/-/pipelines/777", "CI_COMMIT_TIMESTAMP=2026-02-27T09:30:00+01:00"},
		want: models.Build{ID: "gitlab-777", Commit: "fedcba987654", Ref: "release-2", Time: time.Date(2026, 2, 27, 8, 30, 0, 0, time.UTC),
			CI: &models.CI{Engine: "gitlab", RunID: "777", URL: "https://gitlab.example/acme/stack/-/pipelines/777"}},
	}, {
		name:    "gitlab bad timestamp",
		env:     []string{"GITLAB_CI=true", "CI_COMMIT_SHA=fedcba987654", "CI_PIPELINE_ID=777", "CI_COMMIT_TIMESTAMP=yesterday"},
		want:    models.Build{ID: "gitlab-777", Commit: "fedcba987654", Time: testStart, CI: &models.CI{Engine: "gitlab", RunID: "777"}},
		warning: `CI_COMMIT_TIMESTAMP="yesterday"`,
	}, {
		name: "jenkins",
		env: []string{"JENKINS_URL=https://ci.example/", "GIT_COMMIT=0123456789ab", "GIT_BRANCH=origin/main",
			"BUILD_NUMBER=17", "BUILD_TAG=jenkins-perf-nightly-17", "BUILD_URL=https://ci.example/job/perf-nightly/17/"},
		want: models.Build{ID: "jenkins-perf-nightly-17", Commit: "0123456789ab", Ref: "main", Time: testStart,
			CI: &models.CI{Engine: "jenkins", RunID: "perf-nightly-17", URL: "https://ci.example/job/perf-nightly/17/"}},
	}, {
		name: "jenkins multibranch without a tag",
		env:  []string{"JENKINS_URL=https://ci.example/", "JOB_NAME=stack/main", "BUILD_NUMBER=5", "BRANCH_NAME=main", "GIT_BRANCH=origin/main"},
		want: models.Build{ID: "jenkins-stack-main-5", Ref: "main", Time: testStart, CI: &models.CI{Engine: "jenkins", RunID: "stack-main-5"}},
	}, {
		name: "prow presubmit",
		env: []string{"PROW_JOB_ID=5b0b9a4e-0d8d-11ed-ab62-2ace146f4dd8", "BUILD_ID=1552222232225255424", "JOB_NAME=pull-stack-perf",
			"PULL_BASE_REF=main", "PULL_BASE_SHA=aaaa1111", "PULL_PULL_SHA=bbbb2222", "JENKINS_URL=https://not-this/"},
		want: models.Build{ID: "prow-pull-stack-perf-1552222232225255424", Commit: "bbbb2222", Ref: "main", Time: testStart,
			CI: &models.CI{Engine: "prow", RunID: "pull-stack-perf-1552222232225255424"}},
	}, {
		name: "prow periodic",
		env:  []string{"PROW_JOB_ID=5b0b9a4e-0d8d-11ed-ab62-2ace146f4dd8", "PULL_BASE_SHA=aaaa1111"},
		want: models.Build{ID: "prow-5b0b9a4e-0d8d-11ed-ab62-2ace146f4dd8", Commit: "aaaa1111", Time: testStart,
			CI: &models.CI{Engine: "prow", RunID: "5b0b9a4e-0d8d-11ed-ab62-2ace146f4dd8"}},
	}, {
		name:    "CI without a run id",
		env:     []string{"GITLAB_CI=true", "CI_COMMIT_SHA=fedcba987654"},
		want:    models.Build{ID: "fedcba987654", Commit: "fedcba987654", Time: testStart, CI: &models.CI{Engine: "gitlab"}},
		warning: "names no run",
	}, {
		name:    "bad run URL",
		env:     []string{"GITLAB_CI=true", "CI_PIPELINE_ID=9", "CI_PIPELINE_URL=pipelines/9"},
		want:    models.Build{ID: "gitlab-9", Time: testStart, CI: &models.CI{Engine: "gitlab", RunID: "9"}},
		warning: "not an absolute URL",
	}, {
		name: "credentials in the server URL are not written",
		env: []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=4242", "GITHUB_SERVER_URL=https://ci:hunter2@github.example",
			"GITHUB_REPOSITORY=acme/stack"},
		want: models.Build{ID: "github-4242", Time: testStart,
			CI: &models.CI{Engine: "github", RunID: "4242", URL: "https://github.example/acme/stack/actions/runs/4242"}},
	}, {
		name:    "a run URL that cannot be cleaned is left out, unshown",
		env:     []string{"JENKINS_URL=https://ci.example/", "BUILD_TAG=t", "BUILD_URL=https:ci:hunter2@ci.example/job/t/"},
		want:    models.Build{ID: "jenkins-t", Time: testStart, CI: &models.CI{Engine: "jenkins", RunID: "t"}},
		warning: "run URL https:<secret>@ci.example/job/t/",
	}, {
		name: "no CI",
		env:  []string{"GITHUB_ACTIONS=false", "GITLAB_CI=", "HOME=/home/x"},
		want: models.Build{ID: "run-" + testInvocation, Time: testStart},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, warns := DetectBuild(context.Background(), BuildSources{Environ: tt.env, Git: noGit(t), Invocation: testInvocation, Start: testStart})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("build\n got %s\nwant %s", show(got), show(tt.want))
			}
			switch {
			case tt.warning == "" && len(warns) > 0:
				t.Errorf("warnings %q, want none", warns)
			case tt.warning != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warning)):
				t.Errorf("warnings %q, want one containing %q", warns, tt.warning)
			}
			if err := models.Validate(&got); err != nil {
				t.Errorf("detected build is invalid: %v", err)
			}
		})
	}
}

func show(b models.Build) string {
	s := strings.Join([]string{b.ID, b.Commit, b.Ref, b.Time.Format(time.RFC3339)}, " | ")
	if b.CI != nil {
		s += " | " + b.CI.Engine + " " + b.CI.RunID + " " + b.CI.URL
	}
	return s
}

// TestDetectBuildPrecedence: flags > CI > git > invocation, field by field.
func TestDetectBuildPrecedence(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	head := gitOut(t, repo, "rev-parse", "HEAD")
	github := []string{"GITHUB_ACTIONS=true", "GITHUB_SHA=89abcdef0123", "GITHUB_REF_NAME=pr-branch", "GITHUB_RUN_ID=4242"}
	tests := []struct {
		name                string
		src                 BuildSources
		id, commit, ref     string
		engine              string
		commitTime, started bool
	}{{
		name: "flags win over CI and git",
		src:  BuildSources{ID: "nightly-12", Commit: "0123abcd", Ref: "v1.2", Environ: github},
		id:   "nightly-12", commit: "0123abcd", ref: "v1.2", engine: "github", started: true,
	}, {
		name: "CI wins over git",
		src:  BuildSources{Environ: github},
		id:   "github-4242", commit: "89abcdef0123", ref: "pr-branch", engine: "github", started: true,
	}, {
		name: "--commit alone: the id is that commit, ref and time from git when it is HEAD",
		src:  BuildSources{Commit: head[:10]},
		id:   head[:10], commit: head[:10], ref: "main", commitTime: true,
	}, {
		name: "--build-id alone: commit, ref and time still from git",
		src:  BuildSources{ID: "mine"},
		id:   "mine", commit: head, ref: "main", commitTime: true,
	}, {
		name: "git alone",
		id:   head, commit: head, ref: "main", commitTime: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := tt.src
			src.Dir, src.Invocation, src.Start = repo, testInvocation, testStart
			src.Environ = append(gitEnv(t), src.Environ...)
			b, warns := DetectBuild(context.Background(), src)
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			if b.ID != tt.id || b.Commit != tt.commit || b.Ref != tt.ref {
				t.Errorf("id, commit, ref = %q, %q, %q; want %q, %q, %q", b.ID, b.Commit, b.Ref, tt.id, tt.commit, tt.ref)
			}
			if got := ""; b.CI != nil {
				got = b.CI.Engine
				if got != tt.engine {
					t.Errorf("ci.engine %q, want %q", got, tt.engine)
				}
			} else if tt.engine != "" {
				t.Errorf("no ci, want engine %q", tt.engine)
			}
			switch {
			case tt.commitTime && !b.Time.Equal(commitTime):
				t.Errorf("time %s, want the commit's %s", b.Time, commitTime)
			case tt.started && !b.Time.Equal(testStart):
				t.Errorf("time %s, want the invocation's start %s", b.Time, testStart)
			}
		})
	}
}

// commitTime is the committer date of gitRepo's commit.
var commitTime = time.Date(2026, 2, 14, 10, 0, 0, 0, time.UTC)

// gitEnv keeps the user's git configuration out of the test repositories.
func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=" + commitTime.Format(time.RFC3339), "GIT_COMMITTER_DATE=" + commitTime.Format(time.RFC3339)}
}

// gitRepo makes a repository on branch main with one commit of file.txt.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "file.txt"}, {"commit", "-q", "-m", "one"}} {
		gitOut(t, dir, args...)
	}
	return dir
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDetectBuildGit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		// id is the expected id, with HEAD for the commit.
		id, ref string
	}{
		{name: "clean", id: "HEAD", ref: "main"},
		{name: "untracked files are not changes", change: func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "results", "expe"), 0o755)
			os.WriteFile(filepath.Join(dir, "results", "expe", "exit_code"), []byte("0\n"), 0o644)
		}, id: "HEAD", ref: "main"},
		{name: "dirty", change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "file.txt"), []byte("two\n"), 0o644)
		}, id: "HEAD-dirty-0f1e2d3c", ref: "main"},
		{name: "staged", change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644)
			gitOut(t, dir, "add", "new.txt")
		}, id: "HEAD-dirty-0f1e2d3c", ref: "main"},
		{name: "other branch", change: func(t *testing.T, dir string) {
			gitOut(t, dir, "checkout", "-q", "-b", "feature/x")
		}, id: "HEAD", ref: "feature/x"},
		{name: "detached HEAD has no ref", change: func(t *testing.T, dir string) {
			gitOut(t, dir, "checkout", "-q", "--detach")
		}, id: "HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := gitRepo(t)
			if tt.change != nil {
				tt.change(t, dir)
			}
			head := gitOut(t, dir, "rev-parse", "HEAD")
			b, warns := DetectBuild(context.Background(), BuildSources{Dir: dir, Environ: gitEnv(t), Invocation: testInvocation, Start: testStart})
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			want := models.Build{ID: strings.Replace(tt.id, "HEAD", head, 1), Commit: head, Ref: tt.ref, Time: commitTime}
			if !reflect.DeepEqual(b, want) {
				t.Errorf("build\n got %s\nwant %s", show(b), show(want))
			}
		})
	}
}

// TestDetectBuildNothingKnown: no git, not a repository, a repository
// without a commit: one id for the invocation, and nothing to warn about.
func TestDetectBuildNothingKnown(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	empty := t.TempDir()
	gitOut(t, empty, "init", "-q")
	tests := []struct {
		name string
		src  BuildSources
	}{
		{"no git", BuildSources{Git: noGit(t)}},
		{"not a repository", BuildSources{Dir: t.TempDir()}},
		{"no commit yet", BuildSources{Dir: empty}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := tt.src
			src.Environ = append(gitEnv(t), "GIT_CEILING_DIRECTORIES="+filepath.Dir(t.TempDir()))
			src.Invocation, src.Start = testInvocation, testStart.In(time.FixedZone("CET", 3600))
			b, warns := DetectBuild(context.Background(), src)
			want := models.Build{ID: "run-" + testInvocation, Time: testStart}
			if !reflect.DeepEqual(b, want) || len(warns) > 0 {
				t.Errorf("build %s, warnings %q; want %s and none", show(b), warns, show(want))
			}
			if b.Time.Location() != time.UTC {
				t.Errorf("time %s is not UTC", b.Time)
			}
		})
	}
	// Without an invocation id, each call makes one.
	a, _ := DetectBuild(context.Background(), BuildSources{Git: noGit(t)})
	b, _ := DetectBuild(context.Background(), BuildSources{Git: noGit(t)})
	if !strings.HasPrefix(a.ID, "run-") || a.ID == b.ID {
		t.Errorf("invocation ids %q and %q: want two different run-<uuid>", a.ID, b.ID)
	}
}

// TestDetectBuildGitFails: a git that answers with an error is a warning,
// and the build falls back.
func TestDetectBuildGitFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "git")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'fatal: detected dubious ownership in repository at /src' >&2\nexit 128\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, warns := DetectBuild(context.Background(), BuildSources{Git: fake, Invocation: testInvocation, Start: testStart})
	if b.ID != "run-"+testInvocation || len(warns) != 1 || !strings.Contains(warns[0], "dubious ownership") {
		t.Errorf("build %s, warnings %q; want the invocation's id and git's message", show(b), warns)
	}
	hang := filepath.Join(dir, "hang")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	b, warns = DetectBuild(context.Background(), BuildSources{Git: hang, GitTimeout: 100 * time.Millisecond, Invocation: testInvocation, Start: testStart})
	if b.ID != "run-"+testInvocation || len(warns) != 1 || !strings.Contains(warns[0], "no answer") {
		t.Errorf("build %s, warnings %q; want the invocation's id and a timeout", show(b), warns)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a hung git held detection for %s", d)
	}
}
