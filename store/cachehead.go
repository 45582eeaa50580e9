package store

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/internal/cborhead"
	"github.com/seshat-bench/seshat/models"
)

// decodeHeader decodes a record's cacheHeader as save writes it, without
// reflection, and returns the rest of the record (the result); ok is false
// for anything else it meets (a form or a field save does not write,
// indefinite lengths, a key twice, text that is not UTF-8, a tag), which
// the caller then decodes with the library, as if this did not exist: what
// it accepts, it decodes exactly as cacheDec does (FuzzDecodeHeader checks
// both agree). The header is decoded on every cached parse of every run:
// BenchmarkDecodeHeader, a pi run's header (bench/gen's tree), 1.8-2.3 µs
// and 24 allocations by this path against 4.9-5.4 µs and 28 by the library
// (6 runs each at a load of 3.5-4 on the 2-core VM), about 35 ms of the
// CPU a cached parse of 10,000 runs costs. The build, when there is one,
// is left to the library. CBOR as RFC 8949 defines it.
func decodeHeader(data []byte, h *cacheHeader) (rest []byte, ok bool) {
	d := headDecoder{data: data}
	n, ok := d.length(5)
	if !ok {
		return nil, false
	}
	var seen uint32
	for range n {
		key, ok := d.uint()
		if !ok || key == 0 || key > 14 || seen&(1<<key) != 0 {
			return nil, false
		}
		seen |= 1 << key
		switch key {
		case 1:
			h.Format, ok = d.int()
		case 2:
			h.Workload, ok = d.text()
		case 3:
			h.ParserVersion, ok = d.text()
		case 4:
			h.Settings, ok = d.text()
		case 5:
			h.ExitCode, ok = d.int()
		case 6:
			h.Deps, ok = array(&d, d.stamp)
		case 7:
			h.Warnings, ok = array(&d, d.textTo)
		case 8:
			h.SettingsFile, ok = d.stampPtr()
		case 9:
			h.SettingsValues, ok = d.settings()
		case 10:
			h.ExitCodeFile, ok = d.stampPtr()
		case 11:
			h.BuildFile, ok = d.stampPtr()
		case 12:
			if d.null() {
				continue
			}
			var b models.Build
			rest, err := cacheDec.UnmarshalFirst(d.data, &b)
			d.data, h.Build, ok = rest, &b, err == nil
		case 13:
			h.BuildWarning, ok = d.text()
		case 14:
			h.BuildDir, ok = d.dirStamp()
		}
		if !ok {
			return nil, false
		}
	}
	return d.data, true
}

// headDecoder reads CBOR data items off the front of data.
type headDecoder struct{ data []byte }

// head reads an item's head: its major type and argument. Indefinite
// lengths and reserved values are not taken.
func (d *headDecoder) head() (major byte, arg uint64, ok bool) {
	major, arg, rest, ok := cborhead.Head(d.data)
	if ok {
		d.data = rest
	}
	return major, arg, ok
}

// null consumes a CBOR null if one is next.
func (d *headDecoder) null() bool {
	if len(d.data) > 0 && d.data[0] == 0xf6 {
		d.data = d.data[1:]
		return true
	}
	return false
}

// length reads the head of an array (major 4) or a map (major 5) and
// returns its count, bounded by what is left so that a damaged count does
// not make a huge allocation.
func (d *headDecoder) length(major byte) (int, bool) {
	m, n, ok := d.head()
	if !ok || m != major || n > uint64(len(d.data)) {
		return 0, false
	}
	return int(n), true
}

func (d *headDecoder) uint() (uint64, bool) {
	m, n, ok := d.head()
	return n, ok && m == 0
}

// int reads an integer that fits an int64, as IntDecConvertSigned does.
func (d *headDecoder) int() (int, bool) {
	v, ok := d.int64()
	return int(v), ok && v == int64(int(v))
}

func (d *headDecoder) int64() (int64, bool) {
	m, n, ok := d.head()
	if !ok || n > math.MaxInt64 {
		return 0, false
	}
	switch m {
	case 0:
		return int64(n), true
	case 1:
		return -1 - int64(n), true
	}
	return 0, false
}

func (d *headDecoder) text() (string, bool) {
	m, n, ok := d.head()
	if !ok || m != 3 || n > uint64(len(d.data)) {
		return "", false
	}
	b := d.data[:n]
	d.data = d.data[n:]
	if !utf8.Valid(b) {
		return "", false // the library's error to give
	}
	return string(b), true
}

func (d *headDecoder) bool() (v, ok bool) {
	if len(d.data) == 0 || d.data[0]&^1 != 0xf4 {
		return false, false
	}
	v = d.data[0] == 0xf5
	d.data = d.data[1:]
	return v, true
}

// array reads an array whose elements elem reads, or a null (nil).
func array[T any](d *headDecoder, elem func(*T) bool) ([]T, bool) {
	if d.null() {
		return nil, true
	}
	n, ok := d.length(4)
	if !ok {
		return nil, false
	}
	out := make([]T, n)
	for i := range out {
		if !elem(&out[i]) {
			return nil, false
		}
	}
	return out, true
}

func (d *headDecoder) textTo(s *string) (ok bool) {
	*s, ok = d.text()
	return ok
}

// stamp reads a FileStamp: an array of its five fields.
func (d *headDecoder) stamp(s *FileStamp) bool {
	n, ok := d.length(4)
	if !ok || n != 5 {
		return false
	}
	var ok1, ok2, ok3, ok4, ok5 bool
	s.Path, ok1 = d.text()
	s.Size, ok2 = d.int64()
	s.ModTime, ok3 = d.int64()
	s.Absent, ok4 = d.bool()
	s.Glob, ok5 = d.text()
	return ok1 && ok2 && ok3 && ok4 && ok5
}

func (d *headDecoder) stampPtr() (*FileStamp, bool) {
	if d.null() {
		return nil, true
	}
	s := &FileStamp{}
	return s, d.stamp(s)
}

func (d *headDecoder) dirStamp() (*dirStamp, bool) {
	if d.null() {
		return nil, true
	}
	n, ok := d.length(4)
	if !ok || n != 2 {
		return nil, false
	}
	s := &dirStamp{}
	var ok1, ok2 bool
	s.Mtime, ok1 = d.int64()
	s.Ctime, ok2 = d.int64()
	return s, ok1 && ok2
}

// settings reads a root's own settings: a map of text keys to values,
// scalars decoded here as cacheDec decodes them into an interface (int64,
// float64, string, bool, nil), anything else by the library.
func (d *headDecoder) settings() (map[string]any, bool) {
	if d.null() {
		return nil, true
	}
	n, ok := d.length(5)
	if !ok {
		return nil, false
	}
	out := make(map[string]any, n)
	for range n {
		k, ok := d.text()
		if !ok {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		if out[k], ok = d.value(); !ok {
			return nil, false
		}
	}
	return out, true
}

func (d *headDecoder) value() (any, bool) {
	if len(d.data) == 0 {
		return nil, false
	}
	switch b := d.data[0]; {
	case b>>5 <= 1:
		return d.int64()
	case b>>5 == 3:
		return d.text()
	case b == 0xf4 || b == 0xf5:
		return d.bool()
	case b == 0xf6:
		d.data = d.data[1:]
		return nil, true
	case b == 0xfb && len(d.data) >= 9:
		f := math.Float64frombits(binary.BigEndian.Uint64(d.data[1:9]))
		d.data = d.data[9:]
		return f, true
	}
	var v any
	rest, err := cacheDec.UnmarshalFirst(d.data, &v)
	d.data = rest
	return v, err == nil
}
