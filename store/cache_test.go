package store

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cacheTree is three complete runs and an incomplete one.
func cacheTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, cacheTreeFiles())
	return dir
}

func cacheTreeFiles() map[string]string {
	return merge(
		run("a", "size: 1\n", "0", nil),
		run("b", "size: 2\n", "1", nil),
		run("c", "size: 3\n", "0", nil),
		run("d", "size: 4\n", "", nil),
	)
}

func wantStates(t *testing.T, m *Matrix, want map[string]string) {
	t.Helper()
	if got := states(m); !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
}

var (
	allParsed = map[string]string{"a": "parsed", "b": "parsed", "c": "parsed", "d": "incomplete"}
	allCached = map[string]string{"a": "cached", "b": "cached", "c": "cached", "d": "incomplete"}
)

func TestCacheHitAndInvalidation(t *testing.T) {
	t.Parallel()
	later := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		name   string
		change func(t *testing.T, dir string, p *fakeParser)
		want   map[string]string
	}{
		{"nothing changed", func(*testing.T, string, *fakeParser) {}, allCached},
		{"mtime of a file read", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.Chtimes(filepath.Join(dir, "b", "result.txt"), later, later))
		}, map[string]string{"a": "cached", "b": "parsed", "c": "cached", "d": "incomplete"}},
		{"size of a file read", func(t *testing.T, dir string, _ *fakeParser) {
			p := filepath.Join(dir, "c", "result.txt")
			st, err := os.Stat(p)
			must(t, err)
			must(t, os.WriteFile(p, []byte("longer result of c"), 0o644))
			must(t, os.Chtimes(p, st.ModTime(), st.ModTime())) // size alone tells
		}, map[string]string{"a": "cached", "b": "cached", "c": "parsed", "d": "incomplete"}},
		{"a file read rewritten in place, same size", func(t *testing.T, dir string, _ *fakeParser) {
			p := filepath.Join(dir, "b", "result.txt")
			old, err := os.ReadFile(p)
			must(t, err)
			f, err := os.OpenFile(p, os.O_WRONLY, 0) // the same inode, as an editor saving in place
			must(t, err)
			_, err = f.Write(bytes.ToUpper(old))
			must(t, errors.Join(err, f.Close()))
			must(t, os.Chtimes(p, later, later)) // a clock coarser than the test could leave the mtime
		}, map[string]string{"a": "cached", "b": "parsed", "c": "cached", "d": "incomplete"}},
		{"a run directory renamed", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.Rename(filepath.Join(dir, "c"), filepath.Join(dir, "e")))
		}, map[string]string{"a": "cached", "b": "cached", "e": "parsed", "d": "incomplete"}},
		{"a file that was absent appears", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.WriteFile(filepath.Join(dir, "a", "late.txt"), []byte("late"), 0o644))
		}, map[string]string{"a": "parsed", "b": "cached", "c": "cached", "d": "incomplete"}},
		{"a file read disappears", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.Remove(filepath.Join(dir, "a", "result.txt")))
		}, map[string]string{"a": "parsed", "b": "cached", "c": "cached", "d": "incomplete"}},
		{"a file not read changes", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.WriteFile(filepath.Join(dir, "a", "stdout.log"), []byte("noise"), 0o644))
		}, allCached},
		{"settings change", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.WriteFile(filepath.Join(dir, "b", "settings.yaml"), []byte("workload: fake\nsize: 20\n"), 0o644))
		}, map[string]string{"a": "cached", "b": "parsed", "c": "cached", "d": "incomplete"}},
		{"exit code changes", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.WriteFile(filepath.Join(dir, "c", "exit_code"), []byte("2\n"), 0o644))
		}, map[string]string{"a": "cached", "b": "cached", "c": "parsed", "d": "incomplete"}},
		{"the run completes", func(t *testing.T, dir string, _ *fakeParser) {
			must(t, os.WriteFile(filepath.Join(dir, "d", "exit_code"), []byte("0\n"), 0o644))
		}, map[string]string{"a": "cached", "b": "cached", "c": "cached", "d": "parsed"}},
		{"parser version bumped", func(_ *testing.T, _ string, p *fakeParser) { p.version = "2" }, allParsed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := cacheTree(t)
			p := newFake()
			p.reads = []string{"result.txt", "late.txt"}
			p.important = p.reads
			m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			wantStates(t, m, allParsed)
			tt.change(t, dir, p)
			m = mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			wantStates(t, m, tt.want)
			// What was re-parsed is current, and cached again next time.
			e := entry(t, m, "a")
			if e.State == StateParsed || e.State == StateCached {
				r := e.Results.(*fakeResult)
				_, statErr := os.Stat(filepath.Join(dir, "a", "late.txt"))
				if _, ok := r.Files["late.txt"]; ok != (statErr == nil) {
					t.Errorf("a: stale result %+v", r)
				}
			}
			m = mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			for _, e := range m.Entries {
				if e.State == StateParsed {
					t.Errorf("%s: parsed again on a third load", e.Path)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCachedResultsAndWarnings(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	writeTree(t, dir, map[string]string{"a/undeclared.txt": "x"})
	p := newFake()
	p.extra = []string{"undeclared.txt"}
	opts := Options{ResultsDir: dir, BaseURL: "https://ci.example/run/", Lookup: lookup(p)}
	first := mustLoad(t, opts)
	second := mustLoad(t, opts)
	wantStates(t, second, allCached)
	for _, path := range []string{"a", "b", "c"} {
		e1, e2 := entry(t, first, path), entry(t, second, path)
		r1, r2 := e1.Results.(*fakeResult), e2.Results.(*fakeResult)
		if !reflect.DeepEqual(r1, r2) {
			t.Errorf("%s: cached result %+v differs from parsed %+v", path, r2, r1)
		}
		// ParseAlways ran on the cached result too.
		if r2.Always != "https://ci.example/run/"+path {
			t.Errorf("%s: ParseAlways did not run: %q", path, r2.Always)
		}
		if !reflect.DeepEqual(e1.Warnings, e2.Warnings) {
			t.Errorf("%s: warnings %q then %q", path, e1.Warnings, e2.Warnings)
		}
	}
	// Reading an undeclared file warns, whether it exists or not, cached or not.
	wantWarning(t, entry(t, second, "a").Warnings, "undeclared.txt: read but not declared")
	wantWarning(t, entry(t, second, "b").Warnings, "undeclared.txt: read but not declared")
	wantWarning(t, entry(t, second, "b").Warnings, "undeclared.txt: no such file")
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func TestNoCache(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	p := newFake()
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, NoCache: true, Lookup: lookup(p)}), allParsed)
	// NoCache ignores caches but still rewrites them.
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), allCached)
}

func TestCorruptCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		corrupt func(valid []byte) []byte
		warning string // "" : a silent miss
	}{
		{"garbage", func([]byte) []byte { return []byte("\x00\xffnot cbor at all") }, "corrupt"},
		{"empty", func([]byte) []byte { return nil }, "corrupt"},
		{"truncated header", func(v []byte) []byte { return v[:20] }, "corrupt"},
		{"truncated result", func(v []byte) []byte { return v[:len(v)-8] }, "corrupt result"},
		{"header of the wrong shape", func([]byte) []byte { return cborSeq(t, []int{1, 2}, map[string]any{}) }, "corrupt"},
		{"field of the wrong type", func([]byte) []byte {
			return cborSeq(t, map[int]any{1: "three"} /* 1: format */, map[string]any{})
		}, "corrupt"},
		{"deps of the wrong shape", func(v []byte) []byte {
			h, body := splitCache(t, v)
			h[6] = []any{7} // 6: deps
			return append(cborSeq(t, h), body...)
		}, "corrupt"},
		{"result of the wrong shape", func(v []byte) []byte {
			h, _ := splitCache(t, v)
			return cborSeq(t, h, []string{"not", "a", "result"})
		}, "corrupt result"},
		{"older format: a plain miss", func(v []byte) []byte {
			h, body := splitCache(t, v)
			h[1] = 2 // 1: format
			return append(cborSeq(t, h), body...)
		}, ""},
		{"header only", func(v []byte) []byte { h, _ := splitCache(t, v); return cborSeq(t, h) }, "no result"},
		{"another format number", func(v []byte) []byte {
			h, body := splitCache(t, v)
			h[1] = 99
			return append(cborSeq(t, h), body...)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := cacheTree(t)
			p := newFake()
			mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			editRecord(t, dir, "b", tt.corrupt)
			m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			wantStates(t, m, map[string]string{"a": "cached", "b": "parsed", "c": "cached", "d": "incomplete"})
			b := entry(t, m, "b")
			if tt.warning == "" {
				if hasWarning(b.Warnings, CacheFile) {
					t.Errorf("warnings %q", b.Warnings)
				}
			} else {
				wantWarning(t, b.Warnings, CacheFile, tt.warning, "re-parsing")
			}
			if b.Results.(*fakeResult).Files["result.txt"] != "result of b" {
				t.Errorf("result %+v", b.Results)
			}
			// The re-parse rewrote the cache.
			wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), allCached)
		})
	}
}

func TestCacheNotWritable(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	p := newFake()
	// A directory where the cache file goes: it can be neither read nor
	// replaced (what a read-only tree looks like, even to root).
	must(t, os.Mkdir(filepath.Join(dir, CacheFile), 0o755))
	for range 2 {
		m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
		a := entry(t, m, "a")
		if a.State != StateParsed || a.Results.(*fakeResult).Files["result.txt"] != "result of a" {
			t.Errorf("a: %v %+v", a.State, a.Results)
		}
		wantWarning(t, a.Warnings, CacheFile, "unreadable")
	}
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func TestReadOnlyTree(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	for _, r := range []string{"a", "b", "c", "d"} {
		must(t, os.Chmod(filepath.Join(dir, r), 0o555))
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, r), 0o755) })
	}
	if f, err := os.Create(filepath.Join(dir, "a", "probe")); err == nil {
		f.Close()
		t.Skip("directory writable after chmod 555 (running as root?)")
	}
	p := newFake()
	for range 2 {
		wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), allParsed)
	}
}

func TestUnreadableArtifactIsNotCached(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	p := newFake()
	res := filepath.Join(dir, "a", "result.txt")
	must(t, os.Chmod(res, 0))
	t.Cleanup(func() { os.Chmod(res, 0o644) })
	if _, err := os.ReadFile(res); err == nil {
		t.Skip("file readable after chmod 000 (running as root?)")
	}
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantWarning(t, entry(t, m, "a").Warnings, "result.txt", "permission denied")
	// Fixing the permission does not change the mtime: the result must not
	// have been cached.
	must(t, os.Chmod(res, 0o644))
	m = mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	if a := entry(t, m, "a"); a.State != StateParsed || a.Results.(*fakeResult).Files["result.txt"] == "" {
		t.Errorf("a: %v %+v", a.State, a.Results)
	}
}

func TestArtifactDirnames(t *testing.T) {
	t.Parallel()
	p := newFake()
	p.dirnames = map[string]string{"logs": "artifacts/*__logs", "exact": "out/run*", "none": "nothing/*"}
	p.reads = []string{"{logs}/log.txt", "{exact}/x.txt", "{none}/y.txt"}
	p.important = p.reads
	dir := t.TempDir()
	writeTree(t, dir, run("r", "", "0", map[string]string{
		"artifacts/001__logs/log.txt": "first",
		"artifacts/002__logs/log.txt": "second",
		"artifacts/003__logs":         "a file, not a directory",
		"out/run/x.txt":               "exact",
		"out/run2/x.txt":              "later match",
	}))
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	r := entry(t, m, "r")
	got := r.Results.(*fakeResult).Files
	want := map[string]string{"{logs}/log.txt": "second", "{exact}/x.txt": "later match"}
	// "out/run*" is not an existing path itself: the last match wins.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	wantWarning(t, r.Warnings, "artifact directory none (nothing/*): not found")

	// A new matching directory invalidates the cache.
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"r": "cached"})
	writeTree(t, dir, map[string]string{"r/artifacts/004__logs/log.txt": "fourth"})
	m = mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	r = entry(t, m, "r")
	if r.State != StateParsed || r.Results.(*fakeResult).Files["{logs}/log.txt"] != "fourth" {
		t.Errorf("after a new logs directory: %v %+v", r.State, r.Results)
	}
	// So does the directory that was missing appearing.
	writeTree(t, dir, map[string]string{"r/nothing/here/y.txt": "y"})
	m = mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	if r = entry(t, m, "r"); r.State != StateParsed || r.Results.(*fakeResult).Files["{none}/y.txt"] != "y" {
		t.Errorf("after the missing directory appeared: %v %+v", r.State, r.Results)
	}
}

func TestArtifactDirnameExactPathWins(t *testing.T) {
	t.Parallel()
	p := newFake()
	p.dirnames = map[string]string{"logs": "logs*"}
	p.reads = []string{"{logs}/x.txt"}
	p.important = p.reads
	dir := t.TempDir()
	writeTree(t, dir, run("r", "", "0", map[string]string{"logs*/x.txt": "exact", "logsB/x.txt": "glob"}))
	r := entry(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), "r")
	if got := r.Results.(*fakeResult).Files["{logs}/x.txt"]; got != "exact" {
		t.Errorf("read %q, want the exact path's file", got)
	}
	if strings.Contains(strings.Join(r.Warnings, "\n"), "not found") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// cborSeq encodes values as a CBOR sequence, the cache file's shape.
func cborSeq(t *testing.T, values ...any) []byte {
	t.Helper()
	var out []byte
	for _, v := range values {
		b, err := cacheEnc.Marshal(v)
		must(t, err)
		out = append(out, b...)
	}
	return out
}

// splitCache decodes a valid cache file's header generically and returns the
// raw result that follows it.
func splitCache(t *testing.T, data []byte) (map[int]any, []byte) {
	t.Helper()
	var h map[int]any // the header's keys are integers
	rest, err := cacheDec.UnmarshalFirst(data, &h)
	must(t, err)
	return h, rest
}

// TestCachedSettingsEqualFresh: a cached load takes the root's settings and
// exit code from the cache; they must be the very values a fresh load reads,
// Go types included.
func TestCachedSettingsEqualFresh(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		map[string]string{"settings.top.yaml": "image: ubi9\n"},
		run("a", "size: 512\nratio: 0.5\nfast: true\nname: x\nlist: [1, two, 3.5]\nnested: {k: 7}\n\"@repeat\": 2\n", "3", nil),
	))
	p := newFake()
	fresh := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantStates(t, fresh, map[string]string{"a": "parsed"})
	cached := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantStates(t, cached, map[string]string{"a": "cached"})
	f, c := entry(t, fresh, "a"), entry(t, cached, "a")
	if !reflect.DeepEqual(f.Settings, c.Settings) {
		t.Errorf("settings changed through the cache:\nfresh  %#v\ncached %#v", f.Settings, c.Settings)
	}
	if *f.ExitCode != 3 || *c.ExitCode != 3 {
		t.Errorf("exit codes %d, %d, want 3", *f.ExitCode, *c.ExitCode)
	}
	// The parent's settings file is not cached per root: editing it shows.
	must(t, os.WriteFile(filepath.Join(dir, "settings.top.yaml"), []byte("image: ubi10\n"), 0o644))
	again := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	if got := entry(t, again, "a").Settings["image"]; got != "ubi10" {
		t.Errorf("image = %v after editing the parent settings, want ubi10", got)
	}
}

// A cache file larger than the read buffer the loader starts with is read
// whole, and cached results come back equal to fresh ones.
func TestLargeCacheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 16<<10) // 256 KiB
	writeTree(t, dir, merge(
		run("a", "size: 1\n", "0", map[string]string{"result.txt": big}),
		run("b", "size: 2\n", "0", map[string]string{"result.txt": "small"}),
	))
	p := newFake()
	fresh := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p), Workers: 1})
	cached := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p), Workers: 1})
	wantStates(t, cached, map[string]string{"a": "cached", "b": "cached"})
	for _, path := range []string{"a", "b", "a"} {
		f, c := entry(t, fresh, path).Results.(*fakeResult), entry(t, cached, path).Results.(*fakeResult)
		if !reflect.DeepEqual(f.Files, c.Files) {
			t.Errorf("%s: cached files differ from fresh ones (%d bytes vs %d)", path, len(c.Files["result.txt"]), len(f.Files["result.txt"]))
		}
	}
}

// readPack decodes the pack file of directory dir.
func readPack(t *testing.T, dir string) packFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, CacheFile))
	must(t, err)
	f, err := decodePack(data)
	must(t, err)
	return f
}

// editRecord replaces the record of root name in its directory's pack by
// what edit makes of it.
func editRecord(t *testing.T, root, name string, edit func(valid []byte) []byte) {
	t.Helper()
	f := readPack(t, root)
	valid, ok := f.Records[name]
	if !ok {
		t.Fatalf("no record of %s in the pack (%d records)", name, len(f.Records))
	}
	f.Records[name] = edit(valid)
	data, err := encodePack(f)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, CacheFile), data, 0o644))
}

// One cache file per directory holding test roots, with one record per
// root: none inside the roots.
func TestOnePackPerDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("x/a", "size: 1\n", "0", nil),
		run("x/b", "size: 2\n", "0", nil),
		run("y/deep/c", "size: 3\n", "0", nil),
		run("y/d", "size: 4\n", "", nil), // incomplete: no record
	))
	p := newFake()
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	var files []string
	must(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == CacheFile {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	if want := []string{"x/" + CacheFile, "y/deep/" + CacheFile}; !reflect.DeepEqual(files, want) {
		t.Errorf("cache files %q, want %q", files, want)
	}
	if f := readPack(t, filepath.Join(dir, "x")); len(f.Records) != 2 || f.Records["a"] == nil || f.Records["b"] == nil {
		t.Errorf("x's pack holds %d records", len(f.Records))
	}
}

// A cached parse writes nothing; a parse that changes one record rewrites
// its directory's pack and no other.
func TestPackWrittenOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("x/a", "size: 1\n", "0", nil),
		run("y/b", "size: 2\n", "0", nil),
	))
	p := newFake()
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []string{"x", "y"} {
		must(t, os.Chtimes(filepath.Join(dir, d, CacheFile), past, past))
	}
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"x/a": "cached", "y/b": "cached"})
	must(t, os.WriteFile(filepath.Join(dir, "y/b/result.txt"), []byte("changed"), 0o644))
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"x/a": "cached", "y/b": "parsed"})
	for d, rewritten := range map[string]bool{"x": false, "y": true} {
		st, err := os.Stat(filepath.Join(dir, d, CacheFile))
		must(t, err)
		if got := !st.ModTime().Equal(past); got != rewritten {
			t.Errorf("%s's pack rewritten: %v, want %v", d, got, rewritten)
		}
	}
}

// Records of roots the parse did not load (filtered out) are kept; records
// of roots that are gone are dropped when the pack is next written.
func TestPackKeepsFilteredDropsRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("a", "size: 1\n", "0", nil),
		run("b", "size: 2\n", "0", nil),
		run("c", "size: 3\n", "0", nil),
	))
	p := newFake()
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	must(t, os.RemoveAll(filepath.Join(dir, "c")))
	must(t, os.WriteFile(filepath.Join(dir, "b/result.txt"), []byte("changed"), 0o644))
	filters, err := ParseFilters("size=2")
	must(t, err)
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p), Filters: filters}), map[string]string{"b": "parsed"})
	f := readPack(t, dir)
	if _, ok := f.Records["c"]; ok {
		t.Error("the record of removed root c is still in the pack")
	}
	if _, ok := f.Records["a"]; !ok {
		t.Error("the record of filtered-out root a was dropped")
	}
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"a": "cached", "b": "cached"})
}

// A results directory that is itself a test root keeps its record in its
// own directory.
func TestPackOfTopLevelRoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, run(".", "size: 1\n", "0", nil))
	p := newFake()
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{".": "parsed"})
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{".": "cached"})
	if f := readPack(t, dir); f.Records["."] == nil {
		t.Errorf("records %v, want one under \".\"", f.Records)
	}
}

// A pack file that is garbage, or of another container format, costs a
// re-parse of every root in its directory (with a warning for garbage),
// and is replaced.
func TestCorruptPack(t *testing.T) {
	t.Parallel()
	other, err := encodePack(packFile{Format: 99, Records: map[string][]byte{"a": []byte("x")}})
	must(t, err)
	for name, tt := range map[string]struct {
		content []byte
		warning string
	}{
		"garbage":         {[]byte("\xff\x00 not a pack"), "corrupt"},
		"empty":           {nil, "corrupt"},
		"one bit flipped": {nil, "checksum"}, // filled below
		"other format":    {other, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := cacheTree(t)
			p := newFake()
			mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			content := tt.content
			if name == "one bit flipped" {
				valid, err := os.ReadFile(filepath.Join(dir, CacheFile))
				must(t, err)
				// "result of b" -> "result of c": well-formed, stamps intact.
				i := bytes.Index(valid, []byte("result of b"))
				if i < 0 {
					t.Fatal("no result of b in the pack")
				}
				content = bytes.Clone(valid)
				content[i+len("result of ")] ^= 'b' ^ 'c'
			}
			must(t, os.WriteFile(filepath.Join(dir, CacheFile), content, 0o644))
			m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
			wantStates(t, m, allParsed)
			for _, path := range []string{"a", "b", "c"} {
				if tt.warning == "" {
					if hasWarning(entry(t, m, path).Warnings, CacheFile) {
						t.Errorf("%s: warnings %q", path, entry(t, m, path).Warnings)
					}
				} else {
					wantWarning(t, entry(t, m, path).Warnings, CacheFile, tt.warning, "re-parsing")
				}
			}
			wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), allCached)
		})
	}
}

// A cached parse takes a root's listing from its pack while the root's
// directory is unchanged; any entry added or removed there shows at once.
func TestRememberedListings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		map[string]string{"settings.top.yaml": "image: ubi9\n"},
		run("a", "size: 1\n", "0", nil),
		run("b", "size: 2\n", "0", nil),
		run("c", "size: 3\n", "0", nil),
	))
	// Listings are remembered only of directories that had not changed
	// for a second: timestamps come from a coarse clock.
	time.Sleep(racyWindow + 100*time.Millisecond)
	p := newFake()
	fresh := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	if f := readPack(t, dir); len(f.Listings) != 3 {
		t.Fatalf("%d listings remembered, want 3", len(f.Listings))
	}
	cached := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantStates(t, cached, map[string]string{"a": "cached", "b": "cached", "c": "cached"})
	for _, path := range []string{"a", "b", "c"} {
		if f, c := entry(t, fresh, path), entry(t, cached, path); !reflect.DeepEqual(f.Settings, c.Settings) {
			t.Errorf("%s: settings %v from a remembered listing, %v fresh", path, c.Settings, f.Settings)
		}
	}
	// A skip file, an extra settings file: both change the directory.
	must(t, os.WriteFile(filepath.Join(dir, "b", "skip"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "c", "settings.extra.yaml"), []byte("extra: 7\n"), 0o644))
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	wantStates(t, m, map[string]string{"a": "cached", "c": "parsed"})
	if got := entry(t, m, "c").Settings["extra"]; got != 7 {
		t.Errorf("c: extra = %v, want 7 from settings.extra.yaml", got)
	}
	// --no-cache lists every directory again.
	must(t, os.Remove(filepath.Join(dir, "b", "skip")))
	time.Sleep(racyWindow + 100*time.Millisecond)
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	// A change whose mtime was set back to the remembered one still shows:
	// the ctime cannot be set back.
	st, err := os.Stat(filepath.Join(dir, "a"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "a", "skip"), nil, 0o644))
	must(t, os.Chtimes(filepath.Join(dir, "a"), st.ModTime(), st.ModTime()))
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p), NoCache: true}), map[string]string{"b": "parsed", "c": "parsed"})
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"b": "cached", "c": "cached"})
}

// Seshat kept one cache file per root before packs: a parse removes those
// leftovers (the pack holds the records now), and parses as usual.
func TestOldPerRootCacheFilesRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("x/a", "size: 1\n", "0", map[string]string{CacheFile: "an old per-root cache"}),
		run("x/b", "size: 2\n", "0", nil),
	))
	p := newFake()
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"x/a": "parsed", "x/b": "parsed"})
	if _, err := os.Stat(filepath.Join(dir, "x/a", CacheFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old cache file of x/a is still there (%v)", err)
	}
	wantStates(t, mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)}), map[string]string{"x/a": "cached", "x/b": "cached"})
	// Discover alone (no parse) leaves files as they are.
	must(t, os.WriteFile(filepath.Join(dir, "x/b", CacheFile), []byte("x"), 0o644))
	if _, _, err := Discover(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x/b", CacheFile)); err != nil {
		t.Errorf("Discover removed a file: %v", err)
	}
}
