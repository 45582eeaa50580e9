package store

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDiscover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tree  map[string]string
		roots map[string][]string // root path -> settings files relative to the results dir
		warns []string            // fragments of warnings (root or walk), one per expected warning
		under string              // results directory inside the tree ("" for the tree itself)
	}{
		{
			name: "settings.yaml makes roots",
			tree: map[string]string{"a/settings.yaml": "", "b/c/settings.yaml": "", "b/notes.txt": "", "d/": ""},
			roots: map[string][]string{
				"a":   {"a/settings.yaml"},
				"b/c": {"b/c/settings.yaml"},
			},
		},
		{
			name:  "settings.yml accepted with a warning",
			tree:  map[string]string{"a/settings.yml": ""},
			roots: map[string][]string{"a": {"a/settings.yml"}},
			warns: []string{"settings.yml: accepted"},
		},
		{
			name:  "settings.yaml wins over settings.yml",
			tree:  map[string]string{"a/settings.yaml": "", "a/settings.yml": ""},
			roots: map[string][]string{"a": {"a/settings.yaml"}},
			warns: []string{"settings.yml: ignored"},
		},
		{
			name:  "skip excludes a subtree",
			tree:  map[string]string{"x/skip": "", "x/r/settings.yaml": "", "x/y/r/settings.yaml": "", "r/settings.yaml": ""},
			roots: map[string][]string{"r": {"r/settings.yaml"}},
		},
		{
			name:  "skip in a root excludes it",
			tree:  map[string]string{"r/settings.yaml": "", "r/skip": "", "s/settings.yaml": ""},
			roots: map[string][]string{"s": {"s/settings.yaml"}},
		},
		{
			name:  "nested roots are ignored",
			tree:  map[string]string{"a/settings.yaml": "", "a/b/settings.yaml": "", "a/b/c/settings.yaml": ""},
			roots: map[string][]string{"a": {"a/settings.yaml"}},
		},
		{
			name: "parent settings.*.yaml merged parent first, in name order, settings.yaml last",
			tree: map[string]string{
				"settings.top.yaml":     "",
				"e/settings.b.yaml":     "",
				"e/settings.a.yaml":     "",
				"e/r/settings.z.yaml":   "",
				"e/r/settings.yaml":     "",
				"e/r/settings.yaml.bak": "",
				"f/settings.f.yaml":     "",
				"f/g/h/settings.yaml":   "",
			},
			roots: map[string][]string{
				"e/r":   {"settings.top.yaml", "e/settings.a.yaml", "e/settings.b.yaml", "e/r/settings.z.yaml", "e/r/settings.yaml"},
				"f/g/h": {"settings.top.yaml", "f/settings.f.yaml", "f/g/h/settings.yaml"},
			},
		},
		{
			name:  "a parent with a plain settings.yaml is the root and hides those below",
			tree:  map[string]string{"e/settings.yaml": "", "e/settings.m.yaml": "", "e/r1/settings.yaml": "", "e/r2/settings.yaml": ""},
			roots: map[string][]string{"e": {"e/settings.m.yaml", "e/settings.yaml"}},
		},
		{
			name:  "the results directory itself can be a root",
			tree:  map[string]string{"settings.yaml": "", "r/settings.yaml": ""},
			roots: map[string][]string{".": {"settings.yaml"}},
		},
		{
			name:  "hidden directories are skipped",
			tree:  map[string]string{".git/r/settings.yaml": "", ".cache/settings.yaml": "", "r/settings.yaml": ""},
			roots: map[string][]string{"r": {"r/settings.yaml"}},
		},
		{
			name:  "a directory named settings.yaml is not a settings file",
			tree:  map[string]string{"a/settings.yaml/": "", "a/settings.x.yaml/": "", "b/settings.yaml": ""},
			roots: map[string][]string{"b": {"b/settings.yaml"}},
		},
		{
			name:  "symlinked settings files count",
			tree:  map[string]string{"shared.yaml": "", "a/settings.yaml": "->../shared.yaml"},
			roots: map[string][]string{"a": {"a/settings.yaml"}},
		},
		{
			name:  "symlinked directories are followed",
			tree:  map[string]string{"store/run1/settings.yaml": "", "res/exp/latest": "->../../store/run1"},
			roots: map[string][]string{"exp/latest": {"exp/latest/settings.yaml"}},
			under: "res",
		},
		{
			name:  "symlink loop is walked once, with a warning",
			tree:  map[string]string{"a/loop": "->..", "a/r/settings.yaml": "", "a/b/up": "->../.."},
			roots: map[string][]string{"a/r": {"a/r/settings.yaml"}},
			warns: []string{"a/b/up: same directory as .", "a/loop: same directory as ."},
		},
		{
			name:  "two links to one directory: the first is walked",
			tree:  map[string]string{"res/x/one": "->../../real", "res/x/two": "->../../real", "real/r/settings.yaml": ""},
			roots: map[string][]string{"x/one/r": {"x/one/r/settings.yaml"}},
			warns: []string{"x/two: same directory as x/one"},
			under: "res",
		},
		{
			// Real directories are walked first: the link sorts before the
			// directory it points to, and still is the one skipped.
			name:  "a real directory wins over a link to it",
			tree:  map[string]string{"a/link": "->../b", "b/r/settings.yaml": ""},
			roots: map[string][]string{"b/r": {"b/r/settings.yaml"}},
			warns: []string{"a/link: same directory as b"},
		},
		{
			name:  "a link to a file is not walked",
			tree:  map[string]string{"notes.txt": "x", "x/link": "->../notes.txt", "r/settings.yaml": ""},
			roots: map[string][]string{"r": {"r/settings.yaml"}},
		},
		{
			// Read, and named, by the parse: never dropped without a word.
			name:  "a settings file that is a FIFO or a dangling symlink makes a root",
			tree:  map[string]string{"p/settings.yaml": fifo, "d/settings.yaml": "->nowhere", "e/settings.x.yaml": fifo, "e/r/settings.yaml": ""},
			roots: map[string][]string{"p": {"p/settings.yaml"}, "d": {"d/settings.yaml"}, "e/r": {"e/settings.x.yaml", "e/r/settings.yaml"}},
		},
		{
			name:  "self-referencing and dangling symlinks warn",
			tree:  map[string]string{"self": "->self", "gone": "->nowhere", "r/settings.yaml": ""},
			roots: map[string][]string{"r": {"r/settings.yaml"}},
			warns: []string{"gone: broken symlink", "self: broken symlink: too many levels"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeTree(t, dir, tt.tree)
			dir = filepath.Join(dir, tt.under)
			roots, warnings, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, r := range roots {
				var files []string
				for _, f := range r.SettingsFiles {
					rel, err := filepath.Rel(dir, f)
					if err != nil {
						t.Fatal(err)
					}
					files = append(files, filepath.ToSlash(rel))
				}
				got[r.Path] = files
				if r.Dir != filepath.Join(dir, filepath.FromSlash(r.Path)) {
					t.Errorf("root %s: Dir %s", r.Path, r.Dir)
				}
				warnings = append(warnings, r.Warnings...)
			}
			if !reflect.DeepEqual(got, tt.roots) {
				t.Errorf("roots:\n got %v\nwant %v", got, tt.roots)
			}
			for i := 1; i < len(roots); i++ {
				if roots[i-1].Path >= roots[i].Path {
					t.Errorf("roots not sorted: %s before %s", roots[i-1].Path, roots[i].Path)
				}
			}
			if len(warnings) != len(tt.warns) {
				t.Errorf("warnings %q, want %d", warnings, len(tt.warns))
			}
			for _, w := range tt.warns {
				wantWarning(t, warnings, w)
			}
		})
	}
}

func TestDiscoverUnreadableDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"locked/r/settings.yaml": "", "open/settings.yaml": ""})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("directory still readable after chmod 000 (running as root?)")
	}
	roots, warnings, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) != 1 || roots[0].Path != "open" {
		t.Errorf("roots %v, want [open]", roots)
	}
	wantWarning(t, warnings, "locked: cannot read directory", "permission denied")
	if hasWarning(warnings, dir) {
		t.Errorf("warnings name the absolute path: %q", warnings)
	}
}

func TestDiscoverErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeTree(t, dir, map[string]string{"file": ""})
	for _, p := range []string{filepath.Join(dir, "missing"), file} {
		if _, _, err := Discover(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Discover(%s): error %v, want one naming the path", p, err)
		}
	}
}

// The walk is parallel; what it finds must not depend on timing: the same
// roots and the same warnings, in the same order, every time.
func TestDiscoverIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := map[string]string{}
	for i := range 40 {
		for j := range 25 {
			tree[fmt.Sprintf("e%02d/r%02d/settings.yaml", i, j)] = ""
		}
		// Links in both directions between experiments, and to the top.
		tree[fmt.Sprintf("e%02d/next", i)] = fmt.Sprintf("->../e%02d", (i+1)%40)
		tree[fmt.Sprintf("e%02d/top", i)] = "->.."
	}
	tree["outside/r/settings.yaml"] = ""
	tree["e00/out"] = "->../outside"
	tree["e01/out"] = "->../outside"
	writeTree(t, dir, tree)
	first, firstWarnings, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 40*25+1 {
		t.Fatalf("%d roots, want %d", len(first), 40*25+1)
	}
	for range 20 {
		roots, warnings, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(roots, first) || !reflect.DeepEqual(warnings, firstWarnings) {
			t.Fatalf("a second walk differs:\n%d roots, warnings %q\nfirst %d roots, warnings %q", len(roots), warnings, len(first), firstWarnings)
		}
	}
	// outside is a real directory: the links to it are the ones skipped.
	wantWarning(t, firstWarnings, "e00/out: same directory as outside")
	wantWarning(t, firstWarnings, "e01/out: same directory as outside")
}
