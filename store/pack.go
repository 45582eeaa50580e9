package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/seshat-bench/seshat/internal/atomicfile"
)

// packFormat changes when the pack container changes shape; the records in
// it carry their own cacheFormat.
const packFormat = 4

// packLimit bounds a pack file read whole: 1 GiB is some 250,000 runs in
// one directory.
const packLimit = 1 << 30

// The parse cache of the test roots that sit side by side in one directory
// is one file in that directory, CacheFile, holding one record per root
// (keyed by the root's name there): each record is what a per-root cache
// file would hold, and is used, rewritten and invalidated root by root. One
// file per directory instead of one per root because creating a file is
// the dearest thing a parse does (about 200 µs of kernel time each on the
// reference VM, two thirds of a cold parse of 10,000 runs) and reading 10,000
// small files costs three system calls each. A test root that is the results
// directory itself keeps its record under "." in its own directory.
//
// packFile is a pack's content; encodePack gives its layout on disk.
type packFile struct {
	Format   int
	Records  map[string][]byte
	Listings map[string]rootListing
}

// rootListing is what the walk needs of a test root's directory listing,
// with the stamp of the directory it was taken from. While the directory's
// mtime and ctime are unchanged no entry was added, removed or renamed in
// it, and a cached parse skips listing it again.
type rootListing struct {
	_     struct{} `cbor:",toarray"`
	YAML  bool     // settings.yaml is present
	YML   bool     // settings.yml is present
	Own   []string // settings.*.yaml files, in name order
	Mtime int64
	Ctime int64
}

// racyWindow is how long before a listing a directory must have last
// changed for the listing to be remembered: timestamps are taken from a
// coarse clock, so a change made just after the listing could carry the
// same stamp as one made just before it.
const racyWindow = time.Second

// A pack file is the xxHash64 of the rest (8 bytes, little-endian), then a
// CBOR packHeader, then the records one after the other, where the
// header's index says. The records are used in place, slices of the file
// as mapped (dir.mapFile): decoding the header copies no record. The file
// is only ever replaced whole, so the sum is not there for torn writes but
// for what else changes bytes on a disk: a damaged record whose stamps
// still hold would otherwise be trusted. It costs 1.5-3.5% of the CPU of a
// cached parse of 10,000 pi runs on the 2-core VM (perf record, 2026-11-27:
// 37 MB summed, 2-4 ms per thousand runs).
type packHeader struct {
	Format   int                    `cbor:"1,keyasint"`
	Index    map[string]packSpan    `cbor:"2,keyasint"`
	Listings map[string]rootListing `cbor:"3,keyasint,omitempty"`
}

// packSpan is where a record lies after the header.
type packSpan struct {
	_        struct{} `cbor:",toarray"`
	Off, Len uint64
}

func encodePack(f packFile) ([]byte, error) {
	names := make([]string, 0, len(f.Records))
	size := 0
	for name, r := range f.Records {
		names = append(names, name)
		size += len(r)
	}
	sort.Strings(names)
	h := packHeader{Format: f.Format, Index: make(map[string]packSpan, len(names)), Listings: f.Listings}
	off := uint64(0)
	for _, name := range names {
		h.Index[name] = packSpan{Off: off, Len: uint64(len(f.Records[name]))}
		off += uint64(len(f.Records[name]))
	}
	head, err := cacheEnc.Marshal(h)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 8, 8+len(head)+size)
	out = append(out, head...)
	for _, name := range names {
		out = append(out, f.Records[name]...)
	}
	binary.LittleEndian.PutUint64(out, xxhash.Sum64(out[8:]))
	return out, nil
}

func decodePack(data []byte) (packFile, error) {
	var f packFile
	if len(data) < 8 {
		return f, fmt.Errorf("%d bytes, too short", len(data))
	}
	if sum := binary.LittleEndian.Uint64(data); sum != xxhash.Sum64(data[8:]) {
		return f, fmt.Errorf("checksum mismatch")
	}
	var h packHeader
	blob, err := cacheDec.UnmarshalFirst(data[8:], &h)
	if err != nil {
		return f, err
	}
	f.Format, f.Listings = h.Format, h.Listings
	f.Records = make(map[string][]byte, len(h.Index))
	for name, sp := range h.Index {
		if sp.Off > uint64(len(blob)) || sp.Len > uint64(len(blob))-sp.Off {
			return packFile{}, fmt.Errorf("record of %s at %d+%d, past the end (%d bytes)", name, sp.Off, sp.Len, len(blob))
		}
		end := sp.Off + sp.Len
		f.Records[name] = blob[sp.Off:end:end]
	}
	return f, nil
}

// pack is one directory's cache file while its roots load. It is written
// back, atomically, once every root under it is done, and only when a
// record changed.
type pack struct {
	dir string // where the file goes
	rel string // the file as named in messages (relative to the results directory)

	mu       sync.Mutex
	records  map[string][]byte
	listings map[string]rootListing // of the roots, by name
	changed  bool
	names    map[string]bool // entries of the directory: records of others are dropped on write
	pending  int             // roots (and directories) still to load under this pack
	warning  string          // the file was there but unusable
	unmap    func()
}

// openPack reads the pack of directory d (rel from the results directory),
// whose listing is entries. A missing file is an empty pack.
func openPack(d *dir, rel string, entries []dirEntry) *pack {
	p := &pack{dir: d.path, rel: CacheFile, records: map[string][]byte{}, listings: map[string]rootListing{}, names: map[string]bool{}}
	if rel != "." {
		p.rel = rel + "/" + CacheFile
	}
	present := false
	for _, e := range entries {
		p.names[e.name] = true
		present = present || e.name == CacheFile
	}
	if !present {
		return p
	}
	data, unmap, err := d.mapFile(CacheFile, packLimit)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.warning = fmt.Sprintf("%s: unreadable, re-parsing: %v", p.rel, unwrapPath(err))
		}
		return p
	}
	p.unmap = unmap
	var f packFile
	err = faultSafe(func() (err error) {
		f, err = decodePack(data)
		return err
	})
	if err != nil {
		p.warning = fmt.Sprintf("%s: corrupt, re-parsing: %v", p.rel, err)
		p.changed = true // rewrite it, whatever else happens
		return p
	}
	if f.Format != packFormat {
		p.changed = true // another format: a plain miss, and replaced
		return p
	}
	if f.Records != nil {
		p.records = f.Records
	}
	if f.Listings != nil {
		p.listings = f.Listings
	}
	return p
}

// record returns the cached record of the root named name; ok is false
// when there is none.
func (p *pack) record(name string) (record []byte, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	record, ok = p.records[name]
	return record, ok
}

// put stores (or, with nil, removes) the record of the root named name.
func (p *pack) put(name string, record []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, had := p.records[name]; record == nil && !had {
		return
	}
	if record == nil {
		delete(p.records, name)
	} else {
		p.records[name] = record
	}
	p.changed = true
}

// listing returns the remembered listing of the root named name when the
// directory, as st describes it now, has not changed since.
func (p *pack) listing(name string, st fileStat) (rootListing, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.listings[name]
	return l, ok && l.Mtime == st.mtime && l.Ctime == st.ctime
}

// rememberListing keeps the listing of the root named name, taken at
// listedAt from a directory that st describes, when the directory had not
// changed for racyWindow before.
func (p *pack) rememberListing(name string, st fileStat, listedAt time.Time, l rootListing) {
	limit := listedAt.Add(-racyWindow).UnixNano()
	if st.mtime >= limit || st.ctime >= limit {
		return
	}
	l.Mtime, l.Ctime = st.mtime, st.ctime
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.listings[name]; ok && reflect.DeepEqual(old, l) {
		return
	}
	p.listings[name] = l
	p.changed = true
}

// add counts n more roots or directories loading under the pack.
func (p *pack) add(n int) {
	p.mu.Lock()
	p.pending += n
	p.mu.Unlock()
}

// done counts one of them finished; the last one writes the pack back when
// it changed, dropping the records of names the directory no longer holds.
// Durability is not needed (a lost cache is a re-parse), so it is not synced.
// A write that fails (a read-only tree) is returned; the next parse simply
// parses again.
func (p *pack) done() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending--
	if p.pending > 0 || !p.changed {
		if p.pending <= 0 {
			p.records, p.listings = nil, nil
			p.release()
		}
		return nil
	}
	for name := range p.records {
		if !p.names[name] && name != "." {
			delete(p.records, name)
		}
	}
	for name := range p.listings {
		if !p.names[name] {
			delete(p.listings, name)
		}
	}
	var data []byte
	err := faultSafe(func() (err error) {
		data, err = encodePack(packFile{Format: packFormat, Records: p.records, Listings: p.listings})
		return err
	})
	if err == nil {
		err = atomicfile.WriteFileNoSync(filepath.Join(p.dir, CacheFile), data, 0o644)
	}
	p.records, p.listings, p.changed = nil, nil, false
	p.release()
	if err != nil {
		return fmt.Errorf("%s: %w", p.rel, err)
	}
	return nil
}

// release unmaps the pack file once no record of it is used.
func (p *pack) release() {
	if p.unmap != nil {
		p.unmap()
		p.unmap = nil
	}
}

// faultSafe runs f, which reads a mapped pack file, with a memory fault or
// a panic turned into an error: a file truncated while mapped (by another
// program: seshat replaces packs whole) faults when read past its new end,
// and a damaged cache must cost a re-parse, not the process.
func faultSafe(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v", r) // a fault: "unexpected fault address"
		}
	}()
	return f()
}
