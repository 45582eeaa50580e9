package store

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// TestEntryBuild: build.json is read for every workload; missing is an
// older run (silent), broken is a warning naming the file and the entry is
// parsed all the same; a cached parse gives the same.
func TestEntryBuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// build is build.json's content ("": none); dir makes it a directory.
		build    string
		dir      bool
		want     *models.Build
		warnings []string
	}{
		{name: "none: an older run"},
		{name: "as seshat run writes it",
			build: `{"id": "gitlab-777", "commit": "fedcba98", "ref": "main", "ci": {"engine": "gitlab", "run_id": "777"}, "time": "2026-02-27T08:30:00Z"}`,
			want: &models.Build{ID: "gitlab-777", Commit: "fedcba98", Ref: "main", CI: &models.CI{Engine: "gitlab", RunID: "777"},
				Time: time.Date(2026, 2, 27, 8, 30, 0, 0, time.UTC)}},
		{name: "without an id", build: `{"commit": "0123abc", "ref": "main"}`, want: &models.Build{ID: "0123abc", Commit: "0123abc", Ref: "main"}},
		{name: "bad JSON", build: `{"id": "b", "commit": `, warnings: []string{"build.json", "truncated", "its own build"}},
		{name: "wrong type", build: `{"id": "b", "ci": {"engine": 7}}`, warnings: []string{"build.json", "field ci.engine"}},
		{name: "bad time", build: `{"id": "b", "time": "tuesday"}`, warnings: []string{"build.json", "field time", "tuesday"}},
		{name: "binary", build: "\x89PNG\r\n\x1a\n\x00\x00", warnings: []string{"build.json", "binary"}},
		{name: "huge", build: `{"id": "` + strings.Repeat("x", 1<<20) + `"}`, warnings: []string{"build.json", "too large"}},
		{name: "a directory", dir: true, warnings: []string{"build.json", "not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			extra := map[string]string{}
			switch {
			case tt.dir:
				extra["build.json/"] = ""
			case tt.build != "":
				extra["build.json"] = tt.build
			}
			writeTree(t, dir, merge(run("a", "size: 1\n", "0", extra), run("b", "size: 2\n", "0", nil)))
			opts := Options{ResultsDir: dir, Lookup: lookup(newFake())}
			for i, want := range []string{"parsed", "cached"} {
				m := mustLoad(t, opts)
				e := entry(t, m, "a")
				if e.State.String() != want || e.Results == nil {
					t.Errorf("load %d: state %s, results %v; want %s with results", i+1, e.State, e.Results, want)
				}
				if !reflect.DeepEqual(e.Build, tt.want) {
					t.Errorf("load %d: build %+v, want %+v", i+1, e.Build, tt.want)
				}
				if tt.warnings == nil && len(e.Warnings) > 0 {
					t.Errorf("load %d: warnings %q, want none", i+1, e.Warnings)
				}
				if tt.warnings != nil {
					wantWarning(t, e.Warnings, tt.warnings...)
				}
				if b := entry(t, m, "b"); b.Build != nil || len(b.Warnings) > 0 {
					t.Errorf("load %d: entry b without build.json: build %+v, warnings %q", i+1, b.Build, b.Warnings)
				}
			}
		})
	}
}

// TestBuildCacheInvalidation: editing, adding or removing build.json
// re-parses the entry; the other entries stay cached.
func TestBuildCacheInvalidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		before string // "": no build.json
		after  string // "": removed
		want   *models.Build
	}{
		{"edited", `{"id": "one"}`, `{"id": "two", "commit": "0123abc"}`, &models.Build{ID: "two", Commit: "0123abc"}},
		{"edited, same size and time", `{"id": "one"}`, `{"id": "six"}`, &models.Build{ID: "six"}},
		{"added", "", `{"id": "one"}`, &models.Build{ID: "one"}},
		{"removed", `{"id": "one"}`, "", nil},
		{"broken", `{"id": "one"}`, `{"id": 1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			extra := map[string]string{}
			if tt.before != "" {
				extra["build.json"] = tt.before
			}
			writeTree(t, dir, merge(run("a", "size: 1\n", "0", extra), run("b", "size: 2\n", "0", nil)))
			opts := Options{ResultsDir: dir, Lookup: lookup(newFake())}
			mustLoad(t, opts)
			path := filepath.Join(dir, "a", "build.json")
			st, statErr := os.Stat(path)
			if tt.after == "" {
				must(t, os.Remove(path))
			} else {
				must(t, os.WriteFile(path, []byte(tt.after), 0o644))
			}
			if strings.Contains(tt.name, "same size") {
				// Only the mtime a write leaves tells: keep it distinct from
				// the first's even on a coarse clock.
				later := st.ModTime().Add(time.Second)
				must(t, os.Chtimes(path, later, later))
			} else if statErr != nil && tt.before != "" {
				t.Fatal(statErr)
			}
			m := mustLoad(t, opts)
			wantStates(t, m, map[string]string{"a": "parsed", "b": "cached"})
			if got := entry(t, m, "a").Build; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("build %+v, want %+v", got, tt.want)
			}
			m = mustLoad(t, opts)
			wantStates(t, m, map[string]string{"a": "cached", "b": "cached"})
			if got := entry(t, m, "a").Build; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cached build %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRunsOfBuildsAreNotDuplicates: a nightly job's results tree holds one
// run of each point every night, with the same settings: runs of two
// builds are all kept; the same settings twice in one build (a copied run
// directory) are still a duplicate.
func TestRunsOfBuildsAreNotDuplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	build := func(id string) map[string]string { return map[string]string{"build.json": `{"id": "` + id + `"}`} }
	writeTree(t, dir, merge(
		run("night1/r0", "size: 512\n", "0", build("nightly-1")),
		run("night2/r0", "size: 512\n", "0", build("nightly-2")),
		run("night2/copy", "size: 512\n", "0", build("nightly-2")),
	))
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake())})
	if got := entryPaths(m); strings.Join(got, " ") != "night1/r0 night2/copy" {
		t.Errorf("entries %v, want night1/r0 and night2/copy (night2/r0 its duplicate)", got)
	}
	if len(m.Warnings) != 1 || !hasWarning(m.Warnings, "night2/r0", "night2/copy", "duplicate") {
		t.Errorf("warnings %q", m.Warnings)
	}
}

// TestBuildAbsentRemembered: a record remembers that build.json was absent
// with the stamp of the root's directory (written at once, or on the first
// cached parse when the directory was still changing), so cached parses
// stop looking for the file; a build.json added later is still read, even
// with the directory's mtime set back (its ctime cannot be).
func TestBuildAbsentRemembered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(run("a", "size: 1\n", "0", nil), run("b", "size: 2\n", "0", map[string]string{"build.json": `{"id": "b"}`})))
	opts := Options{ResultsDir: dir, Lookup: lookup(newFake())}
	buildDir := func(name string) *dirStamp {
		t.Helper()
		var h cacheHeader
		if _, err := cacheDec.UnmarshalFirst(readPack(t, dir).Records[name], &h); err != nil {
			t.Fatal(err)
		}
		return h.BuildDir
	}
	wantStates(t, mustLoad(t, opts), map[string]string{"a": "parsed", "b": "parsed"})
	if s := buildDir("a"); s != nil {
		t.Errorf("a directory written just now remembered as quiet: %+v", s)
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	wantStates(t, mustLoad(t, opts), map[string]string{"a": "cached", "b": "cached"})
	if buildDir("a") == nil {
		t.Error("a: the cached parse did not remember the directory stamp of an absent build.json")
	}
	if s := buildDir("b"); s != nil {
		t.Errorf("b has a build.json, yet a directory stamp %+v", s)
	}
	m := mustLoad(t, opts)
	wantStates(t, m, map[string]string{"a": "cached", "b": "cached"})
	if a, b := entry(t, m, "a"), entry(t, m, "b"); a.Build != nil || b.Build == nil || b.Build.ID != "b" {
		t.Errorf("builds %+v and %+v, want none and b", a.Build, b.Build)
	}
	st, err := os.Stat(filepath.Join(dir, "a"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "a", "build.json"), []byte(`{"id": "late"}`), 0o644))
	must(t, os.Chtimes(filepath.Join(dir, "a"), st.ModTime(), st.ModTime()))
	m = mustLoad(t, opts)
	wantStates(t, m, map[string]string{"a": "parsed", "b": "cached"})
	if got := entry(t, m, "a").Build; got == nil || got.ID != "late" {
		t.Errorf("a: build %+v after build.json was added, want late", got)
	}
}

// TestBuildAbsentRestamped: a record whose directory stamp no longer holds
// (the tree was copied, restored or downloaded: every directory has a new
// ctime) is stamped again by the cached parse that found build.json still
// absent, so the next ones skip the stat again.
func TestBuildAbsentRestamped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, run("a", "size: 1\n", "0", nil))
	opts := Options{ResultsDir: dir, Lookup: lookup(newFake())}
	buildDir := func() dirStamp {
		t.Helper()
		var h cacheHeader
		if _, err := cacheDec.UnmarshalFirst(readPack(t, dir).Records["a"], &h); err != nil {
			t.Fatal(err)
		}
		if h.BuildDir == nil {
			t.Fatal("no directory stamp for the absent build.json")
		}
		return *h.BuildDir
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	wantStates(t, mustLoad(t, opts), map[string]string{"a": "parsed"})
	before := buildDir()
	st, err := os.Stat(filepath.Join(dir, "a"))
	must(t, err)
	must(t, os.Chtimes(filepath.Join(dir, "a"), st.ModTime(), st.ModTime())) // a new ctime, as a copy has
	time.Sleep(racyWindow + 100*time.Millisecond)
	wantStates(t, mustLoad(t, opts), map[string]string{"a": "cached"})
	after := buildDir()
	if after == before || after.Mtime != before.Mtime || after.Ctime <= before.Ctime {
		t.Errorf("directory stamp %+v after the ctime changed, was %+v: want the new ctime", after, before)
	}
}
