package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// FileStamp records a file parse-once depended on: its size and mtime, or
// that it was absent, or which directory a dirname glob resolved to. The cache
// is valid while every stamp still holds.
type FileStamp struct {
	// The cache stores stamps as CBOR arrays, the most compact form to decode.
	_ struct{} `cbor:",toarray"`
	// Path is relative to the test root, slash-separated.
	Path    string `json:"path"`
	Size    int64  `json:"size,omitempty"`
	ModTime int64  `json:"mtime_ns,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
	// Glob, when set, means Path is what the glob resolved to ("" when none).
	Glob string `json:"glob,omitempty"`
}

// ParseContext gives a workload's ParseOnce access to one test root's files
// and records every file read for the cache.
type ParseContext struct {
	// Path is the root relative to the results directory; Settings its merged
	// settings; ExitCode its exit code.
	Path     string
	Settings models.Settings
	ExitCode int

	root      string
	dir       *dir // root, open
	dirnames  map[string]string
	important map[string]bool
	resolved  map[string]string
	deps      []FileStamp
	warnings  []string
	limit     int64
	// uncacheable is set when a read failed in a way the stamps cannot
	// detect the end of.
	uncacheable bool
}

func newParseContext(e *Entry, d *dir, p Parser) *ParseContext {
	c := &ParseContext{
		Path: e.Path, Settings: e.Settings, root: e.Dir, dir: d,
		dirnames: p.ArtifactDirnames(), important: map[string]bool{},
		resolved: map[string]string{}, limit: parsers.DefaultLimit,
	}
	if e.ExitCode != nil {
		c.ExitCode = *e.ExitCode
	}
	for _, f := range p.ImportantFiles() {
		c.important[f] = true
	}
	return c
}

// Warnf attaches a warning to the entry. Name the file, and the line or field
// where known.
func (c *ParseContext) Warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// ReadFile reads a file of the test root, whole, up to the artifact size
// limit. name is relative to the root and may start with "{dirname}/". A
// missing file returns an error wrapping fs.ErrNotExist; the caller decides
// whether that deserves a warning. Errors name the file relative to the
// root. Reading a file the workload did not declare important warns.
func (c *ParseContext) ReadFile(name string) ([]byte, error) {
	return c.read(name, func(rel string) ([]byte, fileStat, bool, error) { return c.dir.readFile(rel, c.limit) })
}

// ReadTail reads at most the last n bytes of a file (logs).
func (c *ParseContext) ReadTail(name string, n int64) ([]byte, error) {
	return c.read(name, func(rel string) ([]byte, fileStat, bool, error) {
		data, st, err := parsers.ReadTailStat(filepath.Join(c.root, filepath.FromSlash(rel)), n)
		if st == nil {
			return data, fileStat{}, false, err
		}
		return data, fileStat{size: st.Size(), mtime: st.ModTime().UnixNano()}, true, err
	})
}

func (c *ParseContext) read(name string, reader func(rel string) ([]byte, fileStat, bool, error)) ([]byte, error) {
	if !c.important[name] {
		c.Warnf("%s: read but not declared among the workload's important files", name)
	}
	rel, err := c.resolve(name)
	if err != nil {
		return nil, err
	}
	data, st, opened, err := reader(filepath.FromSlash(rel))
	switch {
	case opened:
		// The result depends on this file as it was opened (read whole,
		// too large, or not a regular file): stamp it.
		c.deps = append(c.deps, FileStamp{Path: rel, Size: st.size, ModTime: st.mtime})
	case errors.Is(err, fs.ErrNotExist):
		c.deps = append(c.deps, FileStamp{Path: rel, Absent: true})
	default:
		// Unreadable for a reason no stamp captures (permissions: chmod
		// does not change the mtime): do not cache a result built without it.
		c.uncacheable = true
	}
	if err != nil {
		if opened && !errors.Is(err, parsers.ErrTooLarge) && !errors.Is(err, parsers.ErrNotRegular) {
			c.uncacheable = true // an I/O error while reading
		}
		// Name the file relative to the root, not the absolute path.
		return nil, fmt.Errorf("%s: %w", rel, unwrapPath(err))
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolve replaces a leading "{dirname}/" by the directory its glob matches.
func (c *ParseContext) resolve(name string) (string, error) {
	if !strings.HasPrefix(name, "{") {
		return name, nil
	}
	end := strings.Index(name, "}")
	if end < 0 {
		return "", fmt.Errorf("%s: unterminated {dirname}", name)
	}
	key, rest := name[1:end], strings.TrimPrefix(name[end+1:], "/")
	dir, ok := c.resolved[key]
	if !ok {
		glob, declared := c.dirnames[key]
		if !declared {
			return "", fmt.Errorf("%s: unknown artifact dirname %q", name, key)
		}
		dir = resolveGlob(c.root, glob)
		c.resolved[key] = dir
		c.deps = append(c.deps, FileStamp{Path: dir, Glob: glob})
		if dir == "" {
			c.Warnf("artifact directory %s (%s): not found", key, glob)
		}
	}
	if dir == "" {
		return "", fmt.Errorf("%s: artifact directory %s: %w", name, key, fs.ErrNotExist)
	}
	return path.Join(dir, rest), nil
}

// resolveGlob returns the directory matching glob under root: the exact path
// when it exists, else the last match in sorted order, else "".
func resolveGlob(root, glob string) string {
	if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(glob))); err == nil && st.IsDir() {
		return glob
	}
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
	sort.Strings(matches)
	for i := len(matches) - 1; i >= 0; i-- {
		if st, err := os.Stat(matches[i]); err == nil && st.IsDir() {
			rel, err := filepath.Rel(root, matches[i])
			if err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return ""
}

// AlwaysContext gives ParseAlways what depends on where and when the parse
// runs.
type AlwaysContext struct {
	// ResultsDir is the results directory as given; Dir the root's directory;
	// Path the root relative to ResultsDir.
	ResultsDir string
	Dir        string
	Path       string
	Settings   models.Settings
	// BaseURL, when set, is where the results directory is published (CI
	// artifacts): Path appended to it locates the entry.
	BaseURL  string
	warnings []string
}

// Warnf attaches a warning to the entry.
func (c *AlwaysContext) Warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// stillValid reports whether every stamp matches the files as they are now.
func stillValid(dir *dir, deps []FileStamp) bool {
	for _, d := range deps {
		if d.Glob != "" {
			if resolveGlob(dir.path, d.Glob) != d.Path {
				return false
			}
			continue
		}
		st, err := dir.stat(filepath.FromSlash(d.Path))
		if d.Absent {
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			continue
		}
		if err != nil || st.size != d.Size || st.mtime != d.ModTime {
			return false
		}
	}
	return true
}
