package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/seshat-bench/seshat/internal/fuzzing"
	"github.com/seshat-bench/seshat/models"
)

func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{"matrix_size=512", "k=v1:v2,k2=v", "a=1,", "=x", "a=[1", "a=null:~:", "x=1=2", " , "} {
		f.Add(s)
	}
	settings := models.Settings{"matrix_size": 512, "k": "v1", "a": nil, "x": []any{1}}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := ParseFilters(s)
		if err != nil {
			return
		}
		fs.Match(settings)
		// What String renders parses again (values may change type:
		// "\"1\"" renders as 1, so only the keys are compared).
		again, err := ParseFilters(fs.String())
		if err != nil && len(fs) > 0 {
			t.Fatalf("%q renders as %q, which does not parse: %v", s, fs.String(), err)
		}
		for k := range again {
			if _, ok := fs[k]; !ok {
				t.Fatalf("%q: key %q appeared in %q", s, k, fs.String())
			}
		}
	})
}

// packTree is a results directory with three parsed roots and an incomplete
// one, its valid pack and what a fresh parse makes of it.
type packTree struct {
	dir   string
	pack  []byte
	fresh map[string]*fakeResult
}

func newPackTree(f *testing.F) packTree {
	tr := packTree{dir: fuzzing.TempDir(f), fresh: map[string]*fakeResult{}} // in memory: each input writes the pack
	writeTree(f, tr.dir, cacheTreeFiles())
	// Old enough for their listings to be remembered in the pack too.
	time.Sleep(racyWindow + 100*time.Millisecond)
	m, err := Load(context.Background(), Options{ResultsDir: tr.dir, Lookup: lookup(newFake()), NoCache: true, Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range m.Entries {
		if r, ok := e.Results.(*fakeResult); ok {
			tr.fresh[e.Path] = r
		}
	}
	if tr.pack, err = os.ReadFile(filepath.Join(tr.dir, CacheFile)); err != nil {
		f.Fatal(err)
	}
	return tr
}

// The pack is read from disk: whatever bytes it holds, a parse never
// panics. Bytes changed behind the checksum's back are never trusted: the
// parse succeeds, every complete root is cached or parsed, and the results
// are exactly a fresh parse's. With the checksum recomputed (a file of other
// content, as if written so) only the first holds.
func FuzzPack(f *testing.F) {
	f.Add(uint32(0), []byte{}, false, false)
	f.Add(uint32(0), []byte{}, false, true)
	f.Add(uint32(9), []byte{0xff}, false, false)
	f.Add(uint32(60), []byte("garbage"), true, false)
	f.Add(uint32(200), []byte{0x00, 0x00, 0x00, 0x00}, true, true)
	tr := newPackTree(f) // one per process: fuzz inputs run one at a time in each
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, fixSum, truncate bool) {
		content := bytes.Clone(tr.pack)
		off := int(at % uint32(len(content)+1))
		if truncate {
			content = content[:off]
		} else {
			end := min(off+len(patch), len(content))
			content = append(content[:off:off], append(bytes.Clone(patch), tr.pack[end:]...)...)
		}
		if fixSum && len(content) >= 8 {
			binary.LittleEndian.PutUint64(content, xxhash.Sum64(content[8:]))
		}
		if err := os.WriteFile(filepath.Join(tr.dir, CacheFile), content, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(context.Background(), Options{ResultsDir: tr.dir, Lookup: lookup(newFake()), Workers: 1})
		if fixSum {
			// Well-formed content of its own: it is trusted (stamps hold),
			// and may even name another workload. Not panicking is all.
			return
		}
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		for _, e := range m.Entries {
			if e.Path == "d" {
				continue // incomplete
			}
			if e.State != StateCached && e.State != StateParsed {
				t.Fatalf("%s: %v, warnings %q", e.Path, e.State, e.Warnings)
			}
			if got := e.Results.(*fakeResult); !reflect.DeepEqual(got, tr.fresh[e.Path]) {
				t.Fatalf("%s (%v): %+v, fresh %+v", e.Path, e.State, got, tr.fresh[e.Path])
			}
		}
	})
}
