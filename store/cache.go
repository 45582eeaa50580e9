package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/parsers"
)

// CacheFile is the name of the per-root parse cache.
const CacheFile = ".seshat_cache.json"

// cacheFormat changes when the cache document itself changes shape.
const cacheFormat = 1

type cacheDoc struct {
	Format        int             `json:"format"`
	Workload      string          `json:"workload"`
	ParserVersion string          `json:"parser_version"`
	Deps          []FileStamp     `json:"deps"`
	Warnings      []string        `json:"warnings,omitempty"`
	Result        json.RawMessage `json:"result"`
}

// loadCache returns the cached parse-once result of a root when it is still
// valid. ok is false on a miss; warning is set when the cache was present but
// unusable (corrupt), so the caller can report it before re-parsing.
func loadCache(dir string, p Parser) (result any, warnings []string, ok bool, warning string) {
	path := filepath.Join(dir, CacheFile)
	data, err := parsers.ReadLimited(path, parsers.DefaultLimit)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, false, ""
		}
		return nil, nil, false, fmt.Sprintf("%s: unreadable, re-parsing: %v", CacheFile, err)
	}
	var doc cacheDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt, re-parsing: %v", CacheFile, err)
	}
	if doc.Format != cacheFormat || doc.Workload != p.Name() || doc.ParserVersion != p.ParserVersion() {
		return nil, nil, false, ""
	}
	if !stillValid(dir, doc.Deps) {
		return nil, nil, false, ""
	}
	res, err := p.DecodeCached(doc.Result)
	if err != nil {
		return nil, nil, false, fmt.Sprintf("%s: corrupt result, re-parsing: %v", CacheFile, err)
	}
	return res, doc.Warnings, true, ""
}

// saveCache stores a parse-once result atomically. Durability is not needed
// (a lost cache is a re-parse), so the file is not synced.
func saveCache(dir string, p Parser, deps []FileStamp, warnings []string, result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	data, err := json.Marshal(cacheDoc{
		Format: cacheFormat, Workload: p.Name(), ParserVersion: p.ParserVersion(),
		Deps: deps, Warnings: warnings, Result: raw,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", CacheFile, err)
	}
	return atomicfile.WriteFileNoSync(filepath.Join(dir, CacheFile), data, 0o644)
}
