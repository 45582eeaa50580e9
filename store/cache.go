package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/fxamacker/cbor/v2"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/parsers"
)

// CacheFile is the name of the per-root parse cache.
const CacheFile = ".seshat_cache.cbor"

// cacheFormat changes when the cache document itself changes shape.
const cacheFormat = 3

// The cache is a CBOR sequence: a cacheHeader, then the parse-once result.
// CBOR rather than JSON because a cached parse is mostly decoding: binary
// floats and lengths decode several times faster than JSON text (see
// bench/run.sh), and the result is never read by people.
type cacheHeader struct {
	Format        int    `cbor:"format"`
	Workload      string `cbor:"workload"`
	ParserVersion string `cbor:"parser_version"`
	// Settings is a digest of the entry's merged settings and ExitCode its
	// exit code: ParseOnce sees both, so a change to either re-parses.
	Settings string      `cbor:"settings"`
	ExitCode int         `cbor:"exit_code"`
	Deps     []FileStamp `cbor:"deps"`
	Warnings []string    `cbor:"warnings,omitempty"`
	// The root's own settings file and exit_code with their stamps: while
	// the stamps hold, a cached parse reads neither file.
	SettingsFile   *FileStamp     `cbor:"settings_file,omitempty"`
	SettingsValues map[string]any `cbor:"settings_values,omitempty"`
	ExitCodeFile   *FileStamp     `cbor:"exit_code_file,omitempty"`
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

// readCache reads a root's cache file and decodes its header. A missing
// file is a plain miss; an unusable one leaves a warning for the entry.
func readCache(dir string) *rootCache {
	rc := &rootCache{}
	data, err := parsers.ReadLimited(filepath.Join(dir, CacheFile), parsers.DefaultLimit)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			rc.warning = fmt.Sprintf("%s: unreadable, re-parsing: %v", CacheFile, unwrapPath(err))
		}
		return rc
	}
	body, err := cacheDec.UnmarshalFirst(data, &rc.header)
	if err != nil {
		rc.header = cacheHeader{}
		rc.warning = fmt.Sprintf("%s: corrupt, re-parsing: %v", CacheFile, err)
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
func (rc *rootCache) result(dir string, p Parser, key cacheKey) (result any, warnings []string, ok bool, warning string) {
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
	if !stillValid(dir, h.Deps) {
		return nil, nil, false, ""
	}
	res, err := decodeCached(p, rc.body)
	if err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt result, re-parsing: %v", CacheFile, err)
	}
	return res, h.Warnings, true, ""
}

// decodeCached decodes a result into the workload's type, turning a panic
// (a workload's custom decoding on a damaged cache) into an error: a bad
// cache must cost a re-parse, not the entry.
func decodeCached(p Parser, raw []byte) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("decoder panicked: %v", r)
		}
	}()
	res = p.NewResult()
	if err := cacheDec.Unmarshal(raw, res); err != nil {
		return nil, err
	}
	return res, nil
}

// save stores a parse-once result atomically (temp file + rename), with
// the stamps of the root's settings file and exit_code read during this load.
// Durability is not needed (a lost cache is a re-parse), so it is not synced.
func (rc *rootCache) save(dir string, key cacheKey, deps []FileStamp, warnings []string, result any) error {
	head, err := cacheEnc.Marshal(cacheHeader{
		Format: cacheFormat, Workload: key.workload, ParserVersion: key.parserVersion,
		Settings: key.settings, ExitCode: key.exitCode, Deps: deps, Warnings: warnings,
		SettingsFile: rc.settingsStamp, SettingsValues: rc.settingsValues, ExitCodeFile: rc.exitCodeStamp,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	body, err := cacheEnc.Marshal(result)
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	return atomicfile.WriteFileNoSync(filepath.Join(dir, CacheFile), append(head, body...), 0o644)
}

// stampOf records a file's size and mtime under its root-relative name.
func stampOf(name string, st fs.FileInfo) *FileStamp {
	return &FileStamp{Path: name, Size: st.Size(), ModTime: st.ModTime().UnixNano()}
}

// stampHolds reports whether the file at path still has the stamp's size
// and mtime.
func stampHolds(path string, s FileStamp) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() == s.Size && st.ModTime().UnixNano() == s.ModTime
}

// normalizeDecoded gives values decoded from the cache the Go types the YAML
// decoder gives (int, not int64), so a cached entry equals a fresh one.
func normalizeDecoded(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeDecoded(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeDecoded(e)
		}
		return out
	case nil:
		return nil
	default:
		return v
	}
}

// removeCache deletes a root's cache, best effort.
func removeCache(dir string) { _ = os.Remove(filepath.Join(dir, CacheFile)) }

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
