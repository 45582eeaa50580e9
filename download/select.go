package download

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
)

// Mode says which files a download fetches.
type Mode string

// The modes, as matbench names them.
const (
	// CacheOnly fetches nothing: it says which of the files Important
	// would fetch are present in the results directory and which are not.
	CacheOnly Mode = "cache-only"
	// PreferCache fetches what Important does, except the files already
	// present with the size the listing gives (any size when it gives
	// none): it resumes an interrupted download.
	PreferCache Mode = "prefer-cache"
	// Important fetches the files each run's workload declares, and the
	// files every run has (settings, exit_code, build.json).
	Important Mode = "important"
	// All fetches every file of the tree.
	All Mode = "all"
)

// Modes lists the modes.
var Modes = []Mode{CacheOnly, PreferCache, Important, All}

// ModeNames lists the modes' names, for the flag's help and completion.
func ModeNames() []string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return names
}

// ParseMode reads a --mode value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown mode %q (want one of: %s)", s, strings.Join(ModeNames(), ", "))
}

// Pattern is a file a workload declares, relative to a test root: Name in
// the directory Dir matches (a glob, "" for the root itself).
type Pattern struct {
	Dir  string
	Name string
}

// Patterns are the files a workload's parser declares important, its
// "{dirname}/" prefixes replaced by the globs of its artifact dirnames.
func Patterns(p store.Parser) []Pattern {
	dirnames := p.ArtifactDirnames()
	var out []Pattern
	for _, f := range p.ImportantFiles() {
		if strings.HasPrefix(f, "{") {
			key, rest, ok := strings.Cut(f[1:], "}")
			glob, declared := dirnames[key]
			if !ok || !declared {
				continue
			}
			rest = strings.TrimPrefix(rest, "/")
			dir, name := path.Split(rest)
			out = append(out, Pattern{Dir: path.Join(glob, dir), Name: name})
			continue
		}
		dir, name := path.Split(f)
		out = append(out, Pattern{Dir: strings.TrimSuffix(dir, "/"), Name: name})
	}
	return out
}

// match tells whether rel (relative to the test root) is one of ps.
func match(ps []Pattern, rel string) bool {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	for _, p := range ps {
		if p.Name != name {
			continue
		}
		if p.Dir == dir {
			return true
		}
		if ok, _ := path.Match(p.Dir, dir); ok {
			return true
		}
	}
	return false
}

// FileSet says which files a test root's workload declares, from the
// root's merged settings. An error is a warning (an unknown workload): the
// patterns returned are fetched all the same.
type FileSet func(settings models.Settings) ([]Pattern, error)

// Files every run has, whatever its workload.
const (
	settingsFile    = "settings.yaml"
	settingsFileAlt = "settings.yml"
	exitCodeFile    = "exit_code"
	buildFile       = "build.json"
	skipFile        = "skip"
	workloadFile    = "workload.yaml"
)

// always tells whether a file is fetched in every mode: the settings files
// (settings.*.yaml of the parents too), exit_code, build.json, skip, and
// the workload.yaml at the top of the tree.
func always(rel string) bool {
	name := path.Base(rel)
	switch {
	case name == settingsFile, name == settingsFileAlt, name == exitCodeFile, name == buildFile, name == skipFile:
		return true
	case strings.HasPrefix(name, "settings.") && strings.HasSuffix(name, ".yaml"):
		return true
	}
	return rel == workloadFile
}

// testRoots are the directories of t holding settings.yaml (or .yml),
// outermost first: a root below another is not one (as in store.Discover).
func testRoots(files []remoteFile) []string {
	var dirs []string
	for _, f := range files {
		dir, name := path.Split(f.rel)
		if name == settingsFile || name == settingsFileAlt {
			dirs = append(dirs, strings.TrimSuffix(dir, "/"))
		}
	}
	sort.Strings(dirs)
	var roots []string
	for _, d := range dirs {
		if n := len(roots); n > 0 && (roots[n-1] == d || within(d, roots[n-1])) {
			continue
		}
		roots = append(roots, d)
	}
	return roots
}

// within tells whether rel is below dir ("" is the top).
func within(rel, dir string) bool {
	return dir == "" || strings.HasPrefix(rel, dir+"/")
}

// rootOf returns the test root holding rel, false when none does.
func rootOf(roots []string, rel string) (string, bool) {
	// roots is sorted and none is inside another: the holder is the last
	// root sorting before rel.
	i := sort.SearchStrings(roots, rel)
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(roots) && within(rel, roots[j]) {
			return roots[j], true
		}
	}
	return "", false
}

// settingsOf merges, as the store does, the settings of a root from the
// files in the results directory: the settings.*.yaml of its parents and
// its own (extra, by directory, sorted), parent first, then its
// settings.yaml (or settings.yml when the tree has no settings.yaml).
// Files absent locally are skipped; a broken one is an error naming it,
// and the merge goes on without it.
func settingsOf(root *os.Root, rootRel string, extra map[string][]string, yml bool) (models.Settings, []error) {
	var files []string
	files = append(files, extra[""]...)
	if rootRel != "" {
		parts := strings.Split(rootRel, "/")
		for i := range parts {
			files = append(files, extra[strings.Join(parts[:i+1], "/")]...)
		}
	}
	if yml {
		files = append(files, join(rootRel, settingsFileAlt))
	} else {
		files = append(files, join(rootRel, settingsFile))
	}
	merged := models.Settings{}
	var errs []error
	for _, f := range files {
		data, err := readLocal(root, f, 1<<20)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("%s: %w", f, err))
			}
			continue
		}
		values, err := parsers.Settings(f, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for k, v := range values {
			merged[k] = v
		}
	}
	return merged, errs
}

// extraSettings are the settings.*.yaml files of the tree by directory,
// sorted: what settingsOf merges under a root's settings.yaml.
func extraSettings(files []remoteFile) map[string][]string {
	out := map[string][]string{}
	for _, f := range files {
		dir, name := path.Split(f.rel)
		if name != settingsFile && strings.HasPrefix(name, "settings.") && strings.HasSuffix(name, ".yaml") {
			d := strings.TrimSuffix(dir, "/")
			out[d] = append(out[d], f.rel)
		}
	}
	for _, list := range out {
		sort.Strings(list)
	}
	return out
}

// readLocal reads a file of the results directory, at most limit bytes.
func readLocal(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = parsers.ErrTooLarge
	}
	return data, err
}
