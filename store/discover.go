package store

import (
	"fmt"
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
func Discover(resultsDir string) (roots []Root, warnings []string, err error) {
	st, err := os.Stat(resultsDir)
	if err != nil {
		return nil, nil, fmt.Errorf("results directory: %w", err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("results directory %s: not a directory", resultsDir)
	}
	w := &walker{base: resultsDir, seen: map[fileID]string{}}
	w.visit(resultsDir, ".", nil, st)
	sort.Slice(w.roots, func(i, j int) bool { return w.roots[i].Path < w.roots[j].Path })
	return w.roots, w.warnings, nil
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
	base     string
	seen     map[fileID]string // directories already walked -> their path
	roots    []Root
	warnings []string
}

func (w *walker) warnf(format string, args ...any) {
	w.warnings = append(w.warnings, fmt.Sprintf(format, args...))
}

func (w *walker) visit(dir, rel string, inherited []string, st os.FileInfo) {
	if id, ok := idOf(st); ok {
		if prev, dup := w.seen[id]; dup {
			w.warnf("%s: same directory as %s (symlink loop or alias), skipped", rel, prev)
			return
		}
		w.seen[id] = rel
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.warnf("%s: cannot read directory: %v", rel, err)
		return
	}
	var settingsYAML, settingsYML bool
	var own []string // settings.*.yaml of this directory, sorted
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "skip":
			return
		case name == "settings.yaml":
			settingsYAML = true
		case name == "settings.yml":
			settingsYML = true
		case strings.HasPrefix(name, "settings.") && strings.HasSuffix(name, ".yaml"):
			own = append(own, filepath.Join(dir, name))
		}
	}
	files := append(append([]string{}, inherited...), own...)
	if settingsYAML || settingsYML {
		r := Root{Dir: dir, Path: rel}
		switch {
		case settingsYAML:
			files = append(files, filepath.Join(dir, "settings.yaml"))
			if settingsYML {
				r.Warnings = append(r.Warnings, "settings.yml ignored: settings.yaml is present")
			}
		default:
			files = append(files, filepath.Join(dir, "settings.yml"))
			r.Warnings = append(r.Warnings, "settings.yml: accepted, but settings.yaml is the expected name")
		}
		r.SettingsFiles = files
		w.roots = append(w.roots, r)
		return // roots nested in a root are ignored
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // caches and VCS directories
		}
		child := filepath.Join(dir, name)
		childRel := name
		if rel != "." {
			childRel = rel + "/" + name
		}
		if e.Type()&os.ModeSymlink == 0 && !e.IsDir() {
			continue
		}
		cst, err := os.Stat(child) // follows symlinks
		if err != nil {
			if e.Type()&os.ModeSymlink != 0 {
				w.warnf("%s: broken symlink: %v", childRel, err)
			} else {
				w.warnf("%s: %v", childRel, err)
			}
			continue
		}
		if !cst.IsDir() {
			continue
		}
		w.visit(child, childRel, files, cst)
	}
}
