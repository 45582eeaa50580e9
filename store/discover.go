package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Root is a test root found by Discover.
type Root struct {
	// Dir is the root's directory as reached from the results directory
	// (symlinks not resolved).
	Dir string
	// Path is Dir relative to the results directory, slash-separated.
	Path string
	// SettingsFiles are the files whose mappings merge into the root's
	// settings, in merge order: later files win.
	SettingsFiles []string
	// Warnings found while discovering this root (settings.yml used...).
	Warnings []string
}

// Discover finds the test roots under resultsDir, sorted by path. Problems
// that concern no single root (unreadable directories, symlink loops) are
// returned as warnings; the walk goes on.
//
// A directory is a test root when it holds settings.yaml (or settings.yml,
// with a warning); the roots below it are ignored. A directory holding a
// file named skip is excluded with everything below it. Hidden directories
// (caches, VCS) are not walked. Symlinked directories are followed; a
// directory reached a second time (a loop, or two links to one place) is
// walked once and warned about.
func Discover(resultsDir string) (roots []Root, warnings []string, err error) {
	warnings, err = discover(resultsDir, func(r Root) { roots = append(roots, r) })
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].Path < roots[j].Path })
	return roots, warnings, nil
}

// discover walks resultsDir and hands each test root to emit as soon as it
// is found (in walk order), so that parsing can start while the walk goes
// on.
func discover(resultsDir string, emit func(Root)) (warnings []string, err error) {
	st, err := os.Stat(resultsDir)
	if err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("results directory %s: not a directory", resultsDir)
	}
	w := &walker{seen: map[fileID]string{}, emit: emit}
	w.visit(resultsDir, ".", nil, st)
	return w.warnings, nil
}

type fileID struct{ dev, ino uint64 }

func idOf(st os.FileInfo) (fileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(sys.Dev), uint64(sys.Ino)}, true
}

type walker struct {
	seen     map[fileID]string // directories already walked -> their path
	emit     func(Root)
	warnings []string
}

func (w *walker) warnf(format string, args ...any) {
	w.warnings = append(w.warnings, fmt.Sprintf(format, args...))
}

// fileLike tells whether a directory entry may be read as a settings file:
// a regular file, or a symlink (resolved, and checked, when read).
func fileLike(e fs.DirEntry) bool {
	return e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
}

func (w *walker) visit(dir, rel string, inherited []string, st os.FileInfo) {
	if id, ok := idOf(st); ok {
		if prev, dup := w.seen[id]; dup {
			w.warnf("%s: same directory as %s (symlink loop or second link), skipped", rel, prev)
			return
		}
		w.seen[id] = rel
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.warnf("%s: cannot read directory: %v", rel, unwrapPath(err))
		return
	}
	var settingsYAML, settingsYML bool
	var own []string // settings.*.yaml of this directory, in name order (ReadDir sorts)
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "skip":
			return
		case !fileLike(e):
		case name == "settings.yaml":
			settingsYAML = true
		case name == "settings.yml":
			settingsYML = true
		case strings.HasPrefix(name, "settings.") && strings.HasSuffix(name, ".yaml"):
			own = append(own, filepath.Join(dir, name))
		}
	}
	files := inherited
	if len(own) > 0 {
		files = append(append(make([]string, 0, len(inherited)+len(own)+1), inherited...), own...)
	}
	if settingsYAML || settingsYML {
		r := Root{Dir: dir, Path: rel}
		name := "settings.yaml"
		switch {
		case settingsYAML && settingsYML:
			r.Warnings = append(r.Warnings, "settings.yml: ignored, settings.yaml is present")
		case settingsYML:
			name = "settings.yml"
			r.Warnings = append(r.Warnings, "settings.yml: accepted, but settings.yaml is the expected name")
		}
		r.SettingsFiles = append(append(make([]string, 0, len(files)+1), files...), filepath.Join(dir, name))
		w.emit(r)
		return // roots nested in a root are ignored
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // caches and VCS directories
		}
		isLink := e.Type()&fs.ModeSymlink != 0
		if !isLink && !e.IsDir() {
			continue
		}
		child := filepath.Join(dir, name)
		childRel := name
		if rel != "." {
			childRel = rel + "/" + name
		}
		cst, err := os.Stat(child) // follows symlinks
		if err != nil {
			if isLink {
				w.warnf("%s: broken symlink: %v", childRel, unwrapPath(err))
			} else {
				w.warnf("%s: %v", childRel, unwrapPath(err))
			}
			continue
		}
		if !cst.IsDir() {
			continue
		}
		w.visit(child, childRel, files, cst)
	}
}
