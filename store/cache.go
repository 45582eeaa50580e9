package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/seshat-bench/seshat/models"
)

// CacheFile is the name of the parse cache: one in each directory that
// holds test roots, with a record per root (see pack).
const CacheFile = ".seshat_cache.cbor"

// cacheFormat changes when a root's record changes shape (6: BuildDir).
const cacheFormat = 6

// The cache is a CBOR sequence: a cacheHeader, then the parse-once result.
// CBOR rather than JSON because a cached parse is mostly decoding: binary
// floats and lengths decode several times faster than JSON text (see
// bench/run.sh), and the result is never read by people.
type cacheHeader struct {
	// Integer keys: the header is decoded on every cached parse of every
	// entry, and small integers decode faster than names.
	Format        int    `cbor:"1,keyasint"`
	Workload      string `cbor:"2,keyasint"`
	ParserVersion string `cbor:"3,keyasint"`
	// Settings is a digest of the entry's merged settings and ExitCode its
	// exit code: ParseOnce sees both, so a change to either re-parses.
	Settings string      `cbor:"4,keyasint"`
	ExitCode int         `cbor:"5,keyasint"`
	Deps     []FileStamp `cbor:"6,keyasint"`
	Warnings []string    `cbor:"7,keyasint,omitempty"`
	// The root's own settings file and exit_code with their stamps: while
	// the stamps hold, a cached parse reads neither file.
	SettingsFile   *FileStamp     `cbor:"8,keyasint,omitempty"`
	SettingsValues map[string]any `cbor:"9,keyasint,omitempty"`
	ExitCodeFile   *FileStamp     `cbor:"10,keyasint,omitempty"`
	// The root's build.json: its stamp (Absent when there is none) and
	// what it gave, a build or a warning. The record holds while the stamp
	// does, so editing build.json re-parses the entry.
	BuildFile    *FileStamp    `cbor:"11,keyasint,omitempty"`
	Build        *models.Build `cbor:"12,keyasint,omitempty"`
	BuildWarning string        `cbor:"13,keyasint,omitempty"`
	// BuildDir, set when build.json was absent, is the stamp of the root's
	// directory then, taken more than racyWindow after its last change:
	// while the directory keeps it, no file was added to it, so build.json
	// is still absent and a cached parse does not look for it (the stat
	// that fails is one of eleven system calls per cached run).
	BuildDir *dirStamp `cbor:"14,keyasint,omitempty"`
}

// dirStamp is a directory's mtime and ctime: both change when an entry is
// added, removed or renamed in it.
type dirStamp struct {
	_     struct{} `cbor:",toarray"`
	Mtime int64
	Ctime int64
}

// quietDirStamp is the stamp of a directory stated before now, or nil when
// it changed within racyWindow of now: timestamps come from a coarse clock,
// so a change made just after could carry the same stamp.
func quietDirStamp(st fileStat, now time.Time) *dirStamp {
	limit := now.Add(-racyWindow).UnixNano()
	if st.mtime >= limit || st.ctime >= limit {
		return nil
	}
	return &dirStamp{Mtime: st.mtime, Ctime: st.ctime}
}

// holds reports whether the directory stated as st still has the stamp.
func (s *dirStamp) holds(st fileStat) bool {
	return s != nil && s.Mtime == st.mtime && s.Ctime == st.ctime
}

// rootCache is one root's cache file as read at the start of its load, and
// the stamps of the files read since, for the next save.
type rootCache struct {
	header  cacheHeader
	body    []byte
	present bool   // a header was decoded
	warning string // the file was there but unusable

	settingsStamp  *FileStamp
	settingsValues map[string]any
	exitCodeStamp  *FileStamp
	// The build as read for this load; buildRead is set when build.json
	// was read (its stamp did not hold), which makes the record stale.
	buildStamp   *FileStamp
	build        *models.Build
	buildWarning string
	buildDir     *dirStamp
	buildRead    bool
}

var (
	cacheEnc = mustMode(cbor.EncOptions{
		Time: cbor.TimeRFC3339Nano, // keeps sub-second precision and the zone
	}.EncMode())
	cacheDec = mustMode(cbor.DecOptions{
		DefaultMapType:   reflect.TypeOf(map[string]any(nil)),
		IntDec:           cbor.IntDecConvertSigned,
		MaxArrayElements: 1 << 30, // auto repetitions may keep many samples
		MaxMapPairs:      1 << 24,
		MaxNestedLevels:  1024,
	}.DecMode())
)

func mustMode[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// cacheKey is what a cached result must have been parsed with.
type cacheKey struct {
	workload, parserVersion, settings string
	exitCode                          int
}

func newCacheKey(p Parser, e *Entry) cacheKey {
	sum := sha256.Sum256([]byte(e.identity))
	k := cacheKey{workload: p.Name(), parserVersion: p.ParserVersion(), settings: hex.EncodeToString(sum[:16])}
	if e.ExitCode != nil {
		k.exitCode = *e.ExitCode
	}
	return k
}

// readCache takes a root's record from its directory's pack and decodes
// its header. No record is a plain miss; an unusable pack or record leaves a
// warning for the entry.
func readCache(p *pack, name string) *rootCache {
	rc := &rootCache{warning: p.warning}
	data, ok := p.record(name)
	if !ok {
		return rc
	}
	var body []byte
	err := faultSafe(func() (err error) {
		body, err = cacheDec.UnmarshalFirst(data, &rc.header)
		return err
	})
	if err != nil {
		rc.header = cacheHeader{}
		rc.warning = fmt.Sprintf("%s: record of %s corrupt, re-parsing: %v", p.rel, name, err)
		return rc
	}
	if rc.header.Format != cacheFormat {
		rc.header = cacheHeader{} // another format: a plain miss, and no stamps to trust
		return rc
	}
	rc.body, rc.present = body, true
	return rc
}

// result returns the cached parse-once result when it is still valid. ok is
// false on a miss; warning is set when the cache was present but unusable
// (corrupt, unreadable), so the caller can report it and re-parse.
func (rc *rootCache) result(d *dir, p Parser, key cacheKey) (result any, warnings []string, ok bool, warning string) {
	if !rc.present {
		return nil, nil, false, rc.warning
	}
	h := rc.header
	if h.Workload != key.workload || h.ParserVersion != key.parserVersion ||
		h.Settings != key.settings || h.ExitCode != key.exitCode {
		// Another parser or settings: a plain miss.
		return nil, nil, false, ""
	}
	if len(rc.body) == 0 {
		return nil, nil, false, CacheFile + ": corrupt (no result), re-parsing"
	}
	if rc.buildRead || !stillValid(d, h.Deps) {
		return nil, nil, false, ""
	}
	res, err := decodeCached(p, rc.body)
	if err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt result, re-parsing: %v", CacheFile, err)
	}
	return res, h.Warnings, true, ""
}

// decodeCached decodes a result into the workload's type, turning a panic
// (a workload's custom decoding on a damaged cache, a pack truncated while
// mapped) into an error: a bad cache must cost a re-parse, not the entry.
func decodeCached(p Parser, raw []byte) (res any, err error) {
	res = p.NewResult()
	err = faultSafe(func() error { return cacheDec.Unmarshal(raw, res) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// save stores a parse-once result as the root's record in its pack, with
// the stamps of the root's settings file and exit_code read during this
// load. The pack is written when all its roots are done.
func (rc *rootCache) save(p *pack, name string, key cacheKey, deps []FileStamp, warnings []string, result any) error {
	head, err := cacheEnc.Marshal(cacheHeader{
		Format: cacheFormat, Workload: key.workload, ParserVersion: key.parserVersion,
		Settings: key.settings, ExitCode: key.exitCode, Deps: deps, Warnings: warnings,
		SettingsFile: rc.settingsStamp, SettingsValues: rc.settingsValues, ExitCodeFile: rc.exitCodeStamp,
		BuildFile: rc.buildStamp, Build: rc.build, BuildWarning: rc.buildWarning, BuildDir: rc.buildDir,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	body, err := cacheEnc.Marshal(result)
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	p.put(name, append(head, body...))
	return nil
}

// restamp rewrites a still valid record whose header lacks the directory
// stamp this load found for an absent build.json, or holds another (a
// record written while the directory was changing; a tree copied, restored
// or downloaded, whose directories all have new ctimes), so that later
// cached parses skip the stat.
func (rc *rootCache) restamp(p *pack, name string) {
	if rc.buildDir == nil || !rc.present || rc.header.BuildDir != nil && *rc.header.BuildDir == *rc.buildDir {
		return
	}
	h := rc.header
	h.BuildDir = rc.buildDir
	head, err := cacheEnc.Marshal(h)
	if err != nil {
		return // the record stays as it was, still valid
	}
	record := head
	if faultSafe(func() error { record = append(record, rc.body...); return nil }) == nil {
		p.put(name, record)
	}
}

// stampOf records a file's size and mtime under its root-relative name.
func stampOf(name string, st fileStat) *FileStamp {
	return &FileStamp{Path: name, Size: st.size, ModTime: st.mtime}
}

// stampHolds reports whether the file rel (relative to d) still has the
// stamp's size and mtime.
func stampHolds(d *dir, rel string, s FileStamp) bool {
	st, err := d.stat(rel)
	return err == nil && st.mode.IsRegular() && st.size == s.Size && st.mtime == s.ModTime
}

// normalizeDecoded gives values decoded from the cache the Go types the YAML
// decoder gives (int, not int64), so a cached entry equals a fresh one. Maps
// and lists are changed in place: they were just decoded and are not shared.
func normalizeDecoded(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case map[string]any:
		for k, e := range x {
			switch e.(type) {
			case int64, map[string]any, []any:
				x[k] = normalizeDecoded(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeDecoded(e)
		}
	}
	return v
}

// CacheRoundTrip encodes a parse-once result as the cache does and decodes
// it back, so a workload's tests can check that its results survive the
// cache unchanged.
func CacheRoundTrip(p Parser, result any) (any, error) {
	body, err := cacheEnc.Marshal(result)
	if err != nil {
		return nil, err
	}
	return decodeCached(p, body)
}
