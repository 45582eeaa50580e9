package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Options control Load.
type Options struct {
	ResultsDir string
	// Workload, when set, parses every entry with that workload instead of
	// the one named by its `workload` setting.
	Workload string
	Filters  Filters
	// NoCache ignores existing caches (they are still rewritten).
	NoCache bool
	// BaseURL is handed to ParseAlways (where the results are published).
	BaseURL string
	// Lookup finds a workload's parser by name. When nil, entries are
	// discovered, filtered and checked for completion but not parsed.
	Lookup func(name string) (Parser, bool)
	// Workers bounds parallel parsing; 0 means GOMAXPROCS.
	Workers int
	Log     *slog.Logger
}

// Load discovers, filters and parses the results directory. Errors carry exit
// codes: a missing results directory is a Failure, no test root NoData, an
// unknown workload InvalidInput. Broken artifacts are entry warnings, also
// logged.
func Load(ctx context.Context, opts Options) (*Matrix, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	l := &loader{opts: opts, settingsCache: &sync.Map{}}
	// Each test root is loaded by the walker goroutine that found it, with
	// its directory still open: discovery and parsing share the workers.
	var (
		mu      sync.Mutex
		entries []*Entry
		n       int
	)
	w := &walker{workers: workers, packs: opts.Lookup != nil, noCache: opts.NoCache}
	w.visit = func(r Root, d *dir) {
		if ctx.Err() != nil {
			return
		}
		e := l.load(ctx, r, d)
		mu.Lock()
		entries = append(entries, e)
		n++
		mu.Unlock()
	}
	w.packError = func(err error) {
		// A read-only results tree still parses, every time.
		opts.logger().Debug("cache not written", "error", err)
	}
	warnings, err := discover(opts.ResultsDir, w)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		for _, w := range warnings {
			log.Warn(w)
		}
		return nil, exitcode.Errorf(exitcode.NoData, "no test roots (directories with settings.yaml) under %s", opts.ResultsDir)
	}
	selected := entries[:0]
	var unknown []string
	for _, e := range entries {
		if e == nil {
			continue // filtered out
		}
		if e.Workload != "" && opts.Lookup != nil && !l.known(e.Workload) {
			unknown = append(unknown, fmt.Sprintf("%s (in %s)", e.Workload, e.Path))
			continue
		}
		selected = append(selected, e)
	}
	if len(unknown) > 0 {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "unknown workload %s", unknown[0])
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	if len(selected) == 0 {
		return nil, exitcode.Errorf(exitcode.NoData, "no entries under %s match the filters %s", opts.ResultsDir, opts.Filters)
	}
	sort.Slice(selected, func(i, j int) bool { return selected[i].Path < selected[j].Path })
	m, dupWarnings := newMatrix(opts.ResultsDir, selected)
	for _, w := range dupWarnings {
		log.Warn(w)
	}
	m.Warnings = append(warnings, dupWarnings...)
	for _, e := range m.Entries {
		for _, w := range e.Warnings {
			log.Warn(e.Path + ": " + w)
		}
	}
	return m, nil
}

type loader struct {
	opts          Options
	settingsCache *sync.Map // settings file path -> settingsResult
}

type settingsResult struct {
	values map[string]any
	err    error
}

func (l *loader) known(name string) bool {
	_, ok := l.opts.Lookup(name)
	return ok
}

// load builds one entry; nil means the filters rejected it.
func (l *loader) load(ctx context.Context, r Root, d *dir) (e *Entry) {
	e = &Entry{Path: r.Path, Dir: r.Dir, Warnings: append([]string{}, r.Warnings...)}
	defer func() {
		// A parser bug must not stop the other entries.
		if p := recover(); p != nil {
			e.Results = nil
			e.State = StateFailed
			e.Warnings = append(e.Warnings, fmt.Sprintf("internal error in the %s parser: %v", e.Workload, p))
		}
	}()
	// The cache is read first: besides the parse-once result it remembers
	// the root's own settings file and exit_code with their stamps, which
	// saves reading and decoding both on a cached parse.
	rc := &rootCache{}
	if !l.opts.NoCache && r.pack != nil {
		rc = readCache(r.pack, r.key)
	}
	// Read first, merged then into a map made to size: a map grown one
	// setting at a time past eight is rebuilt on the way.
	var buf [4]settingsResult
	files, size := buf[:0], 0
	for i, f := range r.SettingsFiles {
		var s settingsResult
		if i == len(r.SettingsFiles)-1 {
			s = l.readOwnSettings(d, f, rc)
		} else {
			s = l.readSettings(f)
		}
		files, size = append(files, s), size+len(s.values)
	}
	e.Settings = make(models.Settings, size)
	settingsOK := true
	for _, s := range files {
		if s.err != nil {
			e.Warnings = append(e.Warnings, s.err.Error())
			settingsOK = false
			continue
		}
		for k, v := range s.values {
			e.Settings[k] = v
		}
	}
	if !l.opts.Filters.Match(e.Settings) {
		return nil
	}
	e.identity = e.Settings.Identity()
	if !settingsOK {
		e.State = StateFailed
		e.settingsBroken = true
		return e
	}
	e.Workload = l.opts.Workload
	if e.Workload == "" {
		name, ok := e.Settings["workload"].(string)
		if !ok || name == "" {
			e.State = StateFailed
			e.Warnings = append(e.Warnings, "settings: no `workload` setting naming the workload (or give --workload)")
			return e
		}
		e.Workload = name
	}
	code, present, err := l.readExitCode(d, rc)
	switch {
	case err != nil:
		e.State = StateFailed
		e.Warnings = append(e.Warnings, err.Error())
		return e
	case !present:
		e.State = StateIncomplete
		e.Warnings = append(e.Warnings, "exit_code: missing, the run did not finish; not parsed")
		return e
	}
	e.ExitCode, e.Complete = &code, true
	if l.opts.Lookup == nil {
		return e
	}
	p, ok := l.opts.Lookup(e.Workload)
	if !ok {
		return e // reported as an unknown workload by Load
	}
	if ctx.Err() != nil {
		return e
	}
	e.Build = l.readBuild(e, d, r.dirStat, rc)
	l.parse(e, r, d, p, rc)
	return e
}

// readBuild reads the root's build.json (DESIGN §4), or takes what it gave
// from the cache while its stamp holds. A missing file is an older run,
// nothing to report; a broken one is a warning naming it, and no build.
// dirSt is the root directory as opened for this load.
func (l *loader) readBuild(e *Entry, d *dir, dirSt fileStat, rc *rootCache) *models.Build {
	h := &rc.header
	switch s := h.BuildFile; {
	case s != nil && s.Absent && h.BuildDir.holds(dirSt):
		// No file added to the directory since build.json was absent.
		rc.buildStamp, rc.buildDir = s, h.BuildDir
	case s != nil && stillValid(d, []FileStamp{*s}):
		rc.buildStamp, rc.build, rc.buildWarning = s, h.Build, h.BuildWarning
		if s.Absent {
			rc.buildDir = quietDirStamp(dirSt, time.Now())
		}
	default:
		now := time.Now()
		rc.buildRead = true
		rc.build, rc.buildWarning, rc.buildStamp = readBuildFile(d)
		if rc.buildStamp != nil && rc.buildStamp.Absent {
			rc.buildDir = quietDirStamp(dirSt, now)
		}
	}
	if rc.buildWarning != "" {
		e.Warnings = append(e.Warnings, rc.buildWarning)
	}
	if rc.build == nil {
		return nil
	}
	b := *rc.build // the entry's own: the cache's record is not shared
	if b.CI != nil {
		ci := *b.CI
		b.CI = &ci
	}
	return &b
}

// readBuildFile reads and decodes build.json: the build or a warning, and
// the stamp that tells when to read it again (nil when it could not be
// opened for a reason no stamp captures, such as permissions).
func readBuildFile(d *dir) (*models.Build, string, *FileStamp) {
	const name = "build.json"
	data, st, opened, err := d.readFile(name, parsers.BuildLimit)
	var stamp *FileStamp
	switch {
	case opened:
		stamp = stampOf(name, st)
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", &FileStamp{Path: name, Absent: true}
	}
	if err != nil {
		return nil, fmt.Sprintf("%s: unreadable: %v; the run is its own build", name, unwrapPath(err)), stamp
	}
	b, err := parsers.Build(name, data)
	if err != nil {
		return nil, err.Error() + "; the run is its own build", stamp
	}
	return b, "", stamp
}

func (l *loader) readSettings(path string) settingsResult {
	if v, ok := l.settingsCache.Load(path); ok {
		return v.(settingsResult)
	}
	name := l.relName(path)
	var res settingsResult
	data, err := parsers.ReadLimited(path, 1<<20)
	if err != nil {
		res.err = fmt.Errorf("%s: %w", name, unwrapPath(err))
	} else {
		res.values, res.err = parsers.Settings(name, data)
	}
	l.settingsCache.Store(path, res)
	return res
}

// relName names a file relative to the results directory for messages.
func (l *loader) relName(path string) string {
	if rel, err := filepath.Rel(l.opts.ResultsDir, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// readExitCode reads a root's exit_code, or takes it from the cache when the
// file's stamp is unchanged.
func (l *loader) readExitCode(d *dir, rc *rootCache) (code int, present bool, err error) {
	if rc.header.ExitCodeFile != nil && stampHolds(d, "exit_code", *rc.header.ExitCodeFile) {
		rc.exitCodeStamp = rc.header.ExitCodeFile
		return rc.header.ExitCode, true, nil
	}
	data, st, _, err := d.readFile("exit_code", 4096)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("exit_code: unreadable: %w", unwrapPath(err))
	}
	code, err = parsers.ExitCode("exit_code", data)
	if err != nil {
		return 0, false, err
	}
	rc.exitCodeStamp = stampOf("exit_code", st)
	return code, true, nil
}

// readOwnSettings reads the root's own settings file (never shared with
// another root, so not kept in settingsCache), or takes its values from the
// cache when its stamp is unchanged.
func (l *loader) readOwnSettings(d *dir, path string, rc *rootCache) settingsResult {
	base := filepath.Base(path)
	if rc.header.SettingsFile != nil && rc.header.SettingsFile.Path == base && stampHolds(d, base, *rc.header.SettingsFile) {
		rc.settingsStamp, rc.settingsValues = rc.header.SettingsFile, rc.header.SettingsValues
		return settingsResult{values: normalizeDecoded(rc.header.SettingsValues).(map[string]any)}
	}
	name := l.relName(path)
	var res settingsResult
	// The mode first: a FIFO is not opened at all.
	if st, err := d.stat(base); err == nil && !st.mode.IsRegular() {
		res.err = fmt.Errorf("%s: %w", name, parsers.ErrNotRegular)
		return res
	}
	data, st, _, err := d.readFile(base, 1<<20)
	if err != nil {
		res.err = fmt.Errorf("%s: %w", name, unwrapPath(err))
		return res
	}
	res.values, res.err = parsers.Settings(name, data)
	if res.err == nil {
		rc.settingsStamp, rc.settingsValues = stampOf(base, st), res.values
	}
	return res
}

// parse fills e.Results: from the cache when valid, else by ParseOnce (and
// the cache is rewritten); then ParseAlways.
func (l *loader) parse(e *Entry, r Root, d *dir, p Parser, rc *rootCache) {
	var result any
	cached := false
	key := newCacheKey(p, e)
	if !l.opts.NoCache {
		res, warnings, ok, warning := rc.result(d, p, key)
		if warning != "" {
			e.Warnings = append(e.Warnings, warning)
		}
		if ok {
			result, cached = res, true
			e.Warnings = append(e.Warnings, warnings...)
			if r.pack != nil {
				rc.restamp(r.pack, r.key)
			}
		}
	}
	if !cached {
		pc := newParseContext(e, d, p)
		res, err := p.ParseOnce(pc)
		e.Warnings = append(e.Warnings, pc.warnings...)
		if err != nil {
			e.State = StateFailed
			e.Warnings = append(e.Warnings, err.Error())
			return
		}
		result = res
		switch {
		case r.pack == nil:
		case pc.uncacheable:
			r.pack.put(r.key, nil) // an older record must not outlive this parse
		default:
			if err := rc.save(r.pack, r.key, key, pc.deps, pc.warnings, res); err != nil {
				l.opts.logger().Debug("cache not written", "entry", e.Path, "error", err)
			}
		}
	}
	ac := &AlwaysContext{ResultsDir: l.opts.ResultsDir, Dir: e.Dir, Path: e.Path, Settings: e.Settings, BaseURL: l.opts.BaseURL}
	err := p.ParseAlways(ac, result)
	e.Warnings = append(e.Warnings, ac.warnings...)
	if err != nil {
		e.State = StateFailed
		e.Warnings = append(e.Warnings, err.Error())
		return
	}
	e.Results = result
	if cached {
		e.State = StateCached
	} else {
		e.State = StateParsed
	}
}

func (o Options) logger() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}
