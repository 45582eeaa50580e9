package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// fakeParser is a small workload for the store tests: ParseOnce reads the
// files it is told to and records their content; ParseAlways stamps the
// result with where the parse ran.
type fakeParser struct {
	name      string
	version   string
	dirnames  map[string]string
	important []string
	// reads are the files ParseOnce reads; extra are read without being
	// declared important.
	reads, extra []string
}

type fakeResult struct {
	Files    map[string]string `json:"files"`
	Missing  []string          `json:"missing,omitempty"`
	Setting  string            `json:"setting,omitempty"`
	ExitCode int               `json:"exit_code"`
	// Always is set by ParseAlways: never cached.
	Always string `json:"-"`
}

func newFake() *fakeParser {
	return &fakeParser{name: "fake", version: "1", important: []string{"result.txt"}, reads: []string{"result.txt"}}
}

func (p *fakeParser) Name() string                        { return p.name }
func (p *fakeParser) ParserVersion() string               { return p.version }
func (p *fakeParser) ArtifactDirnames() map[string]string { return p.dirnames }
func (p *fakeParser) ImportantFiles() []string            { return p.important }

func (p *fakeParser) ParseOnce(ctx *ParseContext) (any, error) {
	if ctx.Settings["panic"] == true {
		panic("boom")
	}
	if ctx.Settings["fail"] == true {
		return nil, errors.New("result.txt: parser gave up")
	}
	r := &fakeResult{Files: map[string]string{}, Setting: fmt.Sprint(ctx.Settings["size"]), ExitCode: ctx.ExitCode}
	for _, name := range append(append([]string{}, p.reads...), p.extra...) {
		data, err := ctx.ReadFile(name)
		if err != nil {
			ctx.Warnf("%v", err)
			r.Missing = append(r.Missing, name)
			continue
		}
		r.Files[name] = string(data)
	}
	return r, nil
}

func (p *fakeParser) NewResult() any { return &fakeResult{} }

func (p *fakeParser) ParseAlways(ctx *AlwaysContext, result any) error {
	r := result.(*fakeResult)
	r.Always = ctx.BaseURL + ctx.Path
	return nil
}

// lookup returns a Lookup serving the given parsers.
func lookup(ps ...Parser) func(string) (Parser, bool) {
	return func(name string) (Parser, bool) {
		for _, p := range ps {
			if p.Name() == name {
				return p, true
			}
		}
		return nil, false
	}
}

// symlinkPrefix in a tree value makes the path a symlink to the rest.
const symlinkPrefix = "->"

// fifo, as the content of a tree's file, makes it a FIFO (no writer ever
// comes: opening it for reading, blocking, would wait forever).
const fifo = "<fifo>"

// writeTree creates files under dir: a value starting with "->" makes a
// symlink, a key ending in "/" a directory.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		v := files[k]
		switch {
		case strings.HasSuffix(k, "/"):
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(v, symlinkPrefix):
			if err := os.Symlink(strings.TrimPrefix(v, symlinkPrefix), p); err != nil {
				t.Fatal(err)
			}
		case v == fifo:
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
		default:
			if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// run is one complete fake run directory.
func run(dir, settings, exitCode string, extra map[string]string) map[string]string {
	m := map[string]string{dir + "/settings.yaml": "workload: fake\n" + settings}
	if exitCode != "" {
		m[dir+"/exit_code"] = exitCode
	}
	m[dir+"/result.txt"] = "result of " + dir
	for k, v := range extra {
		m[dir+"/"+k] = v
	}
	return m
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func mustLoad(t testing.TB, opts Options) *Matrix {
	t.Helper()
	m, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

func entryPaths(m *Matrix) []string {
	out := make([]string, len(m.Entries))
	for i, e := range m.Entries {
		out[i] = e.Path
	}
	return out
}

func entry(t testing.TB, m *Matrix, path string) *Entry {
	t.Helper()
	for _, e := range m.Entries {
		if e.Path == path {
			return e
		}
	}
	t.Fatalf("no entry %s among %v", path, entryPaths(m))
	return nil
}

func states(m *Matrix) map[string]string {
	out := map[string]string{}
	for _, e := range m.Entries {
		out[e.Path] = e.State.String()
	}
	return out
}

func hasWarning(ws []string, fragments ...string) bool {
	for _, w := range ws {
		all := true
		for _, f := range fragments {
			if !strings.Contains(w, f) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func wantWarning(t testing.TB, ws []string, fragments ...string) {
	t.Helper()
	if !hasWarning(ws, fragments...) {
		t.Errorf("no warning with %q among:\n%s", fragments, strings.Join(ws, "\n"))
	}
}

// tempFiles lists leftovers of atomic writes under dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(info.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fmtStates(m *Matrix) string { return fmt.Sprint(states(m)) }
