package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/models"
)

// BuildSources is everything DetectBuild looks at, given as data: nothing
// here reads the process environment.
type BuildSources struct {
	// ID, Commit and Ref are --build-id, --commit and --ref ("": not given).
	ID, Commit, Ref string
	// Environ is the environment the CI's variables are read from, in
	// os.Environ's form (later entries win). git runs with it too.
	Environ []string
	// Dir is the working directory git is asked about ("": this process's).
	Dir string
	// Git is the git executable ("": git, found in PATH).
	Git string
	// GitTimeout bounds each git command (0: DefaultGitTimeout).
	GitTimeout time.Duration
	// Invocation is the id of this `seshat run`, a UUID ("": a new one);
	// Start is when it started (the build's time when nothing else tells).
	Invocation string
	Start      time.Time
}

// DefaultGitTimeout bounds each git command of DetectBuild: a hung network
// filesystem must not hold up a benchmark run for long.
const DefaultGitTimeout = 5 * time.Second

// DetectBuild tells what is under test, for build.json, from the flags,
// the CI's environment (GitHub Actions, GitLab CI, Prow, Jenkins), git in
// the working directory and this invocation, in that order of precedence.
//
// The id is --build-id when given; else, in CI, "<engine>-<run id>", with
// "-<attempt>" when GitHub Actions re-runs a workflow (attempt 2 and
// later); else the commit: --commit or the CI's as given, else git's HEAD,
// suffixed "-dirty-<the first 8 characters of the invocation id>" when
// tracked files have uncommitted changes (untracked files do not count: a
// results directory inside the working tree must not make every run
// dirty); else "run-<invocation id>". Commit, ref and time are taken
// from the best source that knows them, whatever gave the id: the commit
// from --commit, the CI or git; the ref from --ref, the CI or git's branch
// (none on a detached HEAD); the time is the commit's (the CI's commit
// timestamp, else git's committer date of that commit), else the
// invocation's start.
//
// Nothing is an error: no git, no repository, no CI leave those sources
// out silently; a source that is there but answers badly (a git that fails,
// a malformed CI variable) is a warning.
func DetectBuild(ctx context.Context, src BuildSources) (models.Build, []string) {
	var warns []string
	warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	inv := src.Invocation
	if inv == "" {
		inv = uuid.NewString()
	}
	env := envMap(src.Environ)
	ci, ciWarns := detectCI(env)
	warns = append(warns, ciWarns...)
	g := gitRunner{bin: src.Git, dir: src.Dir, env: src.Environ, timeout: src.GitTimeout}
	head := g.head(ctx, warn)

	b := models.Build{Commit: strings.TrimSpace(src.Commit), Ref: strings.TrimSpace(src.Ref)}
	fromGit := false
	if b.Commit == "" {
		b.Commit = ci.commit
	}
	if b.Commit == "" && head.commit != "" {
		b.Commit, fromGit = head.commit, true
	}
	if b.Ref == "" {
		b.Ref = ci.ref
	}
	if b.Ref == "" && head.commit != "" && sameCommit(b.Commit, head.commit) {
		b.Ref = head.branch
	}
	if ci.engine != "" {
		b.CI = &models.CI{Engine: ci.engine, RunID: ci.runID, URL: ci.url}
	}

	switch {
	case sameCommit(b.Commit, ci.commit) && !ci.time.IsZero():
		b.Time = ci.time
	case b.Commit != "" && sameCommit(b.Commit, head.commit) && !head.time.IsZero():
		b.Time = head.time
	case b.Commit != "" && head.commit != "" && hexCommit.MatchString(b.Commit):
		// Another commit than HEAD: the repository may still know it. A
		// commit it does not know is no news.
		if out, err := g.run(ctx, "log", "-1", "--format=%cI", b.Commit, "--"); err == nil {
			if t, err := time.Parse(time.RFC3339, out); err == nil {
				b.Time = t
			}
		}
	}
	if b.Time.IsZero() {
		b.Time = src.Start
	}
	b.Time = b.Time.UTC()

	switch {
	case strings.TrimSpace(src.ID) != "":
		b.ID = strings.TrimSpace(src.ID)
	case ci.engine != "" && ci.runID != "":
		b.ID = ci.engine + "-" + ci.runID
		if ci.attempt > 1 {
			b.ID += "-" + strconv.Itoa(ci.attempt)
		}
	case b.Commit != "":
		b.ID = b.Commit
		if fromGit && head.dirty {
			b.ID += "-dirty-" + prefix(inv, 8)
		}
	default:
		b.ID = "run-" + inv
	}
	return b, warns
}

// InvocationBuild is the build of an invocation that knows nothing of what
// it runs: "run-<invocation id>" at its start (a new id when inv is "").
func InvocationBuild(inv string, start time.Time) models.Build {
	if inv == "" {
		inv = uuid.NewString()
	}
	return models.Build{ID: "run-" + inv, Time: start.UTC()}
}

// ciBuild is what a CI's environment says of the build.
type ciBuild struct {
	engine, runID, url string
	attempt            int
	commit, ref        string
	time               time.Time
}

// detectCI reads the variables of the first CI engine that claims the
// environment. Prow is asked before Jenkins: both set BUILD_ID.
func detectCI(env map[string]string) (ciBuild, []string) {
	var warns []string
	get := func(k string) string { return strings.TrimSpace(env[k]) }
	var c ciBuild
	switch {
	case get("GITHUB_ACTIONS") == "true":
		c = ciBuild{engine: "github", runID: get("GITHUB_RUN_ID"), commit: get("GITHUB_SHA"), ref: get("GITHUB_REF_NAME")}
		if s := get("GITHUB_RUN_ATTEMPT"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				warns = append(warns, fmt.Sprintf("GITHUB_RUN_ATTEMPT=%q is not a positive integer; ignored", s))
			} else {
				c.attempt = n
			}
		}
		if server, repo := get("GITHUB_SERVER_URL"), get("GITHUB_REPOSITORY"); server != "" && repo != "" && c.runID != "" {
			c.url = strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + c.runID
		}
	case get("GITLAB_CI") == "true":
		c = ciBuild{engine: "gitlab", runID: get("CI_PIPELINE_ID"), url: get("CI_PIPELINE_URL"),
			commit: get("CI_COMMIT_SHA"), ref: get("CI_COMMIT_REF_NAME")}
		if s := get("CI_COMMIT_TIMESTAMP"); s != "" {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				warns = append(warns, fmt.Sprintf("CI_COMMIT_TIMESTAMP=%q is not an RFC 3339 time; ignored", s))
			} else {
				c.time = t
			}
		}
	case get("PROW_JOB_ID") != "":
		// Prow's BUILD_ID numbers the runs of a job: the job's name makes
		// it unique.
		c = ciBuild{engine: "prow", runID: joinNonEmpty("-", get("JOB_NAME"), get("BUILD_ID")), ref: get("PULL_BASE_REF")}
		if get("BUILD_ID") == "" {
			c.runID = get("PROW_JOB_ID")
		}
		if c.commit = get("PULL_PULL_SHA"); c.commit == "" {
			c.commit = get("PULL_BASE_SHA")
		}
	case get("JENKINS_URL") != "":
		// BUILD_NUMBER numbers the runs of a job; BUILD_TAG is
		// "jenkins-<job>-<number>", unique on the server.
		c = ciBuild{engine: "jenkins", url: get("BUILD_URL"), commit: get("GIT_COMMIT")}
		switch tag := get("BUILD_TAG"); {
		case strings.HasPrefix(tag, "jenkins-"):
			c.runID = strings.TrimPrefix(tag, "jenkins-")
		case tag != "":
			c.runID = tag
		default:
			c.runID = joinNonEmpty("-", strings.ReplaceAll(get("JOB_NAME"), "/", "-"), get("BUILD_NUMBER"))
		}
		if c.ref = get("BRANCH_NAME"); c.ref == "" {
			c.ref = strings.TrimPrefix(get("GIT_BRANCH"), "origin/")
		}
	default:
		return ciBuild{}, nil
	}
	if c.runID == "" {
		warns = append(warns, fmt.Sprintf("running in %s CI, but its environment names no run (the build id falls back to the commit)", c.engine))
	}
	if c.url != "" {
		// Written into build.json and every payload: never with the
		// credentials a server URL may carry.
		clean, err := redact.StripUserinfo(c.url)
		switch {
		case err != nil:
			warns = append(warns, fmt.Sprintf("%s CI: run URL %s: %v; left out", c.engine, redact.URL(c.url), err))
			c.url = ""
		case !validURL(clean):
			warns = append(warns, fmt.Sprintf("%s CI: run URL %q is not an absolute URL; left out", c.engine, clean))
			c.url = ""
		default:
			c.url = clean
		}
	}
	return c, warns
}

// validURL tells whether s passes the payload's check of ci.url.
func validURL(s string) bool { return models.ValidateValue("ci.url", s, "url") == nil }

// gitHead is what git says of the working directory.
type gitHead struct {
	commit, branch string
	time           time.Time
	dirty          bool
}

type gitRunner struct {
	bin, dir string
	env      []string
	timeout  time.Duration
}

var (
	// errNoRepo is git's answer outside a repository, or a machine
	// without git: nothing to report.
	errNoRepo = errors.New("not in a git repository")
	// errQuiet is a git that failed without a word: `rev-parse --verify
	// -q` in a repository with no commit yet.
	errQuiet = errors.New("git failed without a message")
)

// run runs one git command and returns its output, trimmed.
func (g gitRunner) run(ctx context.Context, args ...string) (string, error) {
	timeout := g.timeout
	if timeout <= 0 {
		timeout = DefaultGitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bin := g.bin
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = g.dir
	// English messages (told apart below), and no lock taken on the index
	// by `git status` while a concurrent git works in the same tree.
	cmd.Env = append(append([]string(nil), g.env...), "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second // a child git left holding the pipes
	err := cmd.Run()
	if err == nil {
		return strings.TrimSpace(stdout.String()), nil
	}
	msg := strings.TrimSpace(stderr.String())
	var ee *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return "", errNoRepo
	case strings.Contains(msg, "not a git repository"):
		return "", errNoRepo
	case ctx.Err() != nil:
		return "", fmt.Errorf("no answer in %s", timeout)
	case errors.As(err, &ee) && msg == "":
		return "", errQuiet
	case errors.As(err, &ee):
		first, _, _ := strings.Cut(msg, "\n")
		return "", errors.New(first)
	}
	return "", err
}

// head asks git about HEAD: its commit, branch and committer date, and
// whether tracked files differ from it. Outside a repository, or without
// git, it is empty and nothing is reported.
func (g gitRunner) head(ctx context.Context, warn func(string, ...any)) gitHead {
	var h gitHead
	commit, err := g.run(ctx, "rev-parse", "--verify", "-q", "HEAD")
	switch {
	case errors.Is(err, errNoRepo):
		return h
	case errors.Is(err, errQuiet):
		return h // a repository without a commit yet
	case err != nil:
		warn("git rev-parse HEAD: %v", err)
		return h
	}
	h.commit = commit
	if branch, err := g.run(ctx, "rev-parse", "--abbrev-ref", "HEAD"); err != nil {
		warn("git rev-parse --abbrev-ref HEAD: %v", err)
	} else if branch != "HEAD" { // detached
		h.branch = branch
	}
	if out, err := g.run(ctx, "log", "-1", "--format=%cI", "HEAD"); err != nil {
		warn("git log -1 --format=%%cI: %v", err)
	} else if h.time, err = time.Parse(time.RFC3339, out); err != nil {
		warn("git log -1 --format=%%cI: %q is not a time", out)
	}
	if out, err := g.run(ctx, "status", "--porcelain", "--untracked-files=no"); err != nil {
		warn("git status: %v", err)
	} else {
		h.dirty = out != ""
	}
	return h
}

// hexCommit is what a commit given as data must look like before it is
// handed to git (never an option).
var hexCommit = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

// sameCommit tells whether two commit names (full or abbreviated) name
// the same commit.
func sameCommit(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, b = strings.ToLower(a), strings.ToLower(b)
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
