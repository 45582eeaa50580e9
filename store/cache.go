package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/parsers"
)

// CacheFile is the name of the per-root parse cache.
const CacheFile = ".seshat_cache.json"

// cacheFormat changes when the cache document itself changes shape.
const cacheFormat = 2

// cacheHeader is the first line of a cache file; the parse-once result
// follows on the next line. Keeping the result out of the header lets a hit
// decode the (large) result once, by the workload, instead of scanning it a
// second time as a raw field.
type cacheHeader struct {
	Format        int    `json:"format"`
	Workload      string `json:"workload"`
	ParserVersion string `json:"parser_version"`
	// Settings is a digest of the entry's merged settings and ExitCode its
	// exit code: ParseOnce sees both, so a change to either re-parses.
	Settings string      `json:"settings"`
	ExitCode int         `json:"exit_code"`
	Deps     []FileStamp `json:"deps"`
	Warnings []string    `json:"warnings,omitempty"`
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

// loadCache returns the cached parse-once result of a root when it is still
// valid. ok is false on a miss; warning is set when the cache was present but
// unusable (corrupt, unreadable), so the caller can report it and re-parse.
func loadCache(dir string, p Parser, key cacheKey) (result any, warnings []string, ok bool, warning string) {
	data, err := parsers.ReadLimited(filepath.Join(dir, CacheFile), parsers.DefaultLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, false, ""
		}
		return nil, nil, false, fmt.Sprintf("%s: unreadable, re-parsing: %v", CacheFile, unwrapPath(err))
	}
	head, body, found := bytes.Cut(data, []byte("\n"))
	var h cacheHeader
	if err := json.Unmarshal(head, &h); err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt, re-parsing: %v", CacheFile, err)
	}
	if h.Format != cacheFormat || h.Workload != key.workload || h.ParserVersion != key.parserVersion ||
		h.Settings != key.settings || h.ExitCode != key.exitCode {
		// Another format, parser or settings: a plain miss.
		return nil, nil, false, ""
	}
	if !found {
		return nil, nil, false, CacheFile + ": corrupt (no result), re-parsing"
	}
	if !stillValid(dir, h.Deps) {
		return nil, nil, false, ""
	}
	res, err := decodeCached(p, body)
	if err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt result, re-parsing: %v", CacheFile, err)
	}
	return res, h.Warnings, true, ""
}

// decodeCached calls the workload's decoder, turning a panic on a damaged
// cache into an error: a bad cache must cost a re-parse, not the entry.
func decodeCached(p Parser, raw []byte) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("decoder panicked: %v", r)
		}
	}()
	return p.DecodeCached(json.RawMessage(bytes.TrimSpace(raw)))
}

// saveCache stores a parse-once result atomically (temp file + rename).
// Durability is not needed (a lost cache is a re-parse), so it is not synced.
func saveCache(dir string, key cacheKey, deps []FileStamp, warnings []string, result any) error {
	body, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	head, err := json.Marshal(cacheHeader{
		Format: cacheFormat, Workload: key.workload, ParserVersion: key.parserVersion,
		Settings: key.settings, ExitCode: key.exitCode, Deps: deps, Warnings: warnings,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	data := make([]byte, 0, len(head)+len(body)+2)
	data = append(append(append(append(data, head...), '\n'), body...), '\n')
	return atomicfile.WriteFileNoSync(filepath.Join(dir, CacheFile), data, 0o644)
}

// removeCache deletes a root's cache, best effort.
func removeCache(dir string) { _ = os.Remove(filepath.Join(dir, CacheFile)) }
