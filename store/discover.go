package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
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

	dirStat fileStat // the directory as opened by the walk (Load only)
	pack    *pack    // the parse cache holding this root's record (Load only)
	key     string   // the root's name in pack
}

// Discover finds the test roots under resultsDir, sorted by path. Problems
// that concern no single root (unreadable directories, symlink loops) are
// returned as warnings, sorted; the walk goes on.
//
// A directory is a test root when it holds settings.yaml (or settings.yml,
// with a warning); the roots below it are ignored. A directory holding a
// file named skip is excluded with everything below it. Hidden directories
// (caches, VCS) are not walked. Symlinked directories are followed; a
// directory reached a second time (a loop, or two links to one place) is
// walked once and warned about: real directories win over links, and links
// are taken in path order.
func Discover(resultsDir string) (roots []Root, warnings []string, err error) {
	var mu sync.Mutex
	warnings, err = discover(resultsDir, &walker{visit: func(r Root, _ *dir) {
		mu.Lock()
		roots = append(roots, r)
		mu.Unlock()
	}})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].Path < roots[j].Path })
	return roots, warnings, nil
}

// discover walks resultsDir with up to w.workers goroutines (0: GOMAXPROCS)
// and hands each test root to w.visit, in the goroutine that found it, with
// the root's directory open: the caller reads the root's files relative to
// it. Roots come in no particular order.
//
// Real directories are walked in parallel: they cannot be reached twice
// (no hard links to directories). Symlinked directories are set aside and
// followed afterwards, one at a time in path order, so which of two ways to
// one directory is walked does not depend on timing.
func discover(resultsDir string, w *walker) (warnings []string, err error) {
	st, err := os.Stat(resultsDir)
	if err != nil {
		return nil, exitcode.Input(fmt.Errorf("results directory: %w", err))
	}
	if !st.IsDir() {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "results directory %s: not a directory", resultsDir)
	}
	if w.workers <= 0 {
		w.workers = runtime.GOMAXPROCS(0)
	}
	w.seen = map[fileID]string{}
	w.run(walkTask{dir: resultsDir, rel: "."})
	for len(w.links) > 0 {
		sort.Slice(w.links, func(i, j int) bool { return w.links[i].rel < w.links[j].rel })
		link := w.links[0]
		w.links = w.links[1:]
		w.run(link)
	}
	sort.Strings(w.warnings)
	return w.warnings, nil
}

// walkTask is a directory to visit.
type walkTask struct {
	dir, rel  string
	inherited []string // settings.*.yaml files of the ancestors, in merge order
	link      bool     // reached through a symlink
	pack      *pack    // the parse cache of the directory holding this one
	key       string   // this directory's name in pack
	// parent is the directory holding this one, retained for it: the
	// directory is reached from it (openChild) rather than by its path.
	// nil for the results directory and symlinks.
	parent *dir
}

type walker struct {
	visit   func(Root, *dir)
	workers int
	// packs: open each directory's parse cache for its roots, and write it
	// back when they are done (Load); packError hears of failed writes.
	packs     bool
	noCache   bool // do not trust the listings packs remember
	packError func(error)

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []walkTask
	active   int               // tasks queued or running
	seen     map[fileID]string // directories already walked -> their path
	links    []walkTask        // symlinked directories, followed after the real ones
	warnings []string
}

func (w *walker) warnf(format string, args ...any) {
	w.mu.Lock()
	w.warnings = append(w.warnings, fmt.Sprintf(format, args...))
	w.mu.Unlock()
}

// run visits first and every real directory below it with the worker pool,
// and returns when all are done. Tasks are taken last in, first out: depth
// first, so test roots reach the parsers early and the queue stays short.
func (w *walker) run(first walkTask) {
	w.cond = sync.NewCond(&w.mu)
	w.queue, w.active = []walkTask{first}, 1
	var wg sync.WaitGroup
	for range w.workers {
		wg.Go(func() {
			for {
				w.mu.Lock()
				for len(w.queue) == 0 && w.active > 0 {
					w.cond.Wait()
				}
				if w.active == 0 {
					w.mu.Unlock()
					return
				}
				t := w.queue[len(w.queue)-1]
				w.queue = w.queue[:len(w.queue)-1]
				w.mu.Unlock()
				w.walk(t)
				if t.pack != nil {
					if err := t.pack.done(); err != nil && w.packError != nil {
						w.packError(err)
					}
				}
				w.mu.Lock()
				w.active--
				if w.active == 0 {
					w.cond.Broadcast()
				}
				w.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// push queues a directory's subdirectories at once (one lock, one wake-up
// of the idle workers rather than one per directory), last first, so that
// they are taken in name order.
func (w *walker) push(ts []walkTask) {
	if len(ts) == 0 {
		return
	}
	w.mu.Lock()
	for i := len(ts) - 1; i >= 0; i-- {
		w.queue = append(w.queue, ts[i])
	}
	w.active += len(ts)
	w.mu.Unlock()
	w.cond.Broadcast()
}

// fileLike tells whether a directory entry named as a settings file makes
// its directory a test root: anything but a directory. A regular file is
// read; a symlink is resolved, and checked, when read; a FIFO, a socket or
// a device is never opened (an open FIFO waits for a writer) but named in
// the root's failure, as a dangling symlink is: a run is never dropped
// without a word because its settings file is not a file.
func fileLike(e dirEntry) bool { return e.typ != fs.ModeDir }

func hasFile(entries []dirEntry, name string) bool {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].name >= name })
	return i < len(entries) && entries[i].name == name && entries[i].typ == 0
}

// scanListing reads what makes a directory a test root out of its listing;
// skip is set when it holds a file named skip.
func scanListing(entries []dirEntry) (l rootListing, skip bool) {
	for _, e := range entries {
		switch name := e.name; {
		case name == "skip":
			return rootListing{}, true
		case !fileLike(e):
		case name == "settings.yaml":
			l.YAML = true
		case name == "settings.yml":
			l.YML = true
		case strings.HasPrefix(name, "settings.") && strings.HasSuffix(name, ".yaml"):
			l.Own = append(l.Own, name) // in name order: the listing is sorted
		}
	}
	return l, false
}

func (w *walker) walk(t walkTask) {
	var d *dir
	var st fileStat
	var err error
	if t.parent != nil {
		defer t.parent.close()
		d, st, err = openChild(t.parent, t.key)
	} else {
		d, st, err = openDir(t.dir)
	}
	if err != nil {
		switch {
		case t.link && (os.IsNotExist(err) || errors.Is(err, syscall.ELOOP)):
			w.warnf("%s: broken symlink: %v", t.rel, unwrapPath(err))
		case t.link && isNotDir(err):
			// A symlink to a file: nothing to walk.
		default:
			w.warnf("%s: cannot read directory: %v", t.rel, unwrapPath(err))
		}
		return
	}
	defer d.close()
	w.mu.Lock()
	prev, dup := w.seen[st.id]
	if !dup {
		w.seen[st.id] = t.rel
	}
	w.mu.Unlock()
	if dup {
		w.warnf("%s: same directory as %s (symlink loop or second link), skipped", t.rel, prev)
		return
	}
	// A root the pack remembers, in a directory unchanged since: no need
	// to list it again.
	var l rootListing
	var entries []dirEntry
	known := false
	if t.pack != nil && !w.noCache {
		l, known = t.pack.listing(t.key, st)
	}
	if !known {
		listedAt := time.Now()
		entries, err = d.readDir()
		if err != nil {
			w.warnf("%s: cannot read directory: %v", t.rel, unwrapPath(err))
			return
		}
		var skip bool
		if l, skip = scanListing(entries); skip {
			return
		}
		if (l.YAML || l.YML) && t.pack != nil {
			if hasFile(entries, CacheFile) {
				// The cache file of seshat before packs, one per root: its
				// records now live in the parent directory's pack. The
				// directory changes, so its listing is not remembered now.
				d.remove(CacheFile)
			} else {
				t.pack.rememberListing(t.key, st, listedAt, l)
			}
		}
	}
	files := t.inherited
	if len(l.Own) > 0 {
		files = append(make([]string, 0, len(t.inherited)+len(l.Own)+1), t.inherited...)
		for _, name := range l.Own {
			files = append(files, filepath.Join(t.dir, name))
		}
	}
	if l.YAML || l.YML {
		r := Root{Dir: t.dir, Path: t.rel, dirStat: st}
		name := "settings.yaml"
		switch {
		case l.YAML && l.YML:
			r.Warnings = append(r.Warnings, "settings.yml: ignored, settings.yaml is present")
		case l.YML:
			name = "settings.yml"
			r.Warnings = append(r.Warnings, "settings.yml: accepted, but settings.yaml is the expected name")
		}
		r.SettingsFiles = append(append(make([]string, 0, len(files)+1), files...), filepath.Join(t.dir, name))
		r.pack, r.key = t.pack, t.key
		if w.packs && r.pack == nil { // the results directory is the root
			r.pack, r.key = openPack(d, t.rel, entries), "."
			r.pack.add(1)
			defer func() {
				if err := r.pack.done(); err != nil && w.packError != nil {
					w.packError(err)
				}
			}()
		}
		w.visit(r, d)
		return // roots nested in a root are ignored
	}
	var pk *pack
	if w.packs {
		// Count the children before any is pushed: the last one done
		// writes the pack (and unmaps it). Without children it is not
		// opened at all.
		n := 0
		for _, e := range entries {
			if !strings.HasPrefix(e.name, ".") && (e.typ == fs.ModeDir || e.typ == fs.ModeSymlink) {
				n++
			}
		}
		if n > 0 {
			pk = openPack(d, t.rel, entries)
			pk.add(n)
		}
	}
	var dirs []walkTask
	for _, e := range entries {
		if strings.HasPrefix(e.name, ".") {
			continue // caches and VCS directories
		}
		child := walkTask{dir: filepath.Join(t.dir, e.name), rel: e.name, inherited: files, pack: pk, key: e.name}
		if t.rel != "." {
			child.rel = t.rel + "/" + e.name
		}
		switch e.typ {
		case fs.ModeDir:
			d.retain()
			child.parent = d
			dirs = append(dirs, child)
		case fs.ModeSymlink:
			child.link = true
			w.mu.Lock()
			w.links = append(w.links, child)
			w.mu.Unlock()
		}
	}
	w.push(dirs)
}
