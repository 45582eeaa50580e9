package store

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/seshat-bench/seshat/models"
)

// canonical encodes v with its map keys sorted, so that two decodings are
// compared by what they hold (NaN included, which DeepEqual never equals).
var canonical = mustMode(cbor.EncOptions{Sort: cbor.SortCanonical, Time: cbor.TimeRFC3339Nano}.EncMode())

// headerSamples are headers as save writes them: a pi run's, and every
// field and kind of setting value set.
func headerSamples() []cacheHeader {
	stamp := func(p string) *FileStamp { return &FileStamp{Path: p, Size: 61, ModTime: 1795793613026351531} }
	built := time.Date(2026, 11, 27, 9, 30, 0, 123, time.FixedZone("CET", 3600))
	return []cacheHeader{
		{}, // every field at its zero value: null deps
		{
			Format: cacheFormat, Workload: "pi", ParserVersion: "8", Settings: "d6821bcf4bdafb91b9d068d2b800035b",
			Deps: []FileStamp{
				{Path: ".uuid", Size: 37, ModTime: 1795793613026351531}, {Path: "config.yaml", Size: 126, ModTime: 1},
				{Path: "pi.json", Size: 3615, ModTime: -5}, {Path: "late.txt", Absent: true}, {Path: "", Glob: "out-*"},
			},
			Warnings:       []string{},
			SettingsFile:   stamp("settings.yaml"),
			SettingsValues: map[string]any{"@repeat": 41, "dtype": "float32", "matrix_size": 512, "repetitions": 200},
			ExitCodeFile:   stamp("exit_code"),
			BuildFile:      &FileStamp{Path: "build.json", Absent: true},
			BuildDir:       &dirStamp{Mtime: 1795793613026351531, Ctime: 1795793613026351532},
		},
		{
			Format: -3, ExitCode: -1 << 40, Workload: "héllo ✓", Deps: []FileStamp{},
			Warnings: []string{"pi.json: rate missing", ""},
			SettingsValues: map[string]any{
				"neg": -7, "big": int64(math.MaxInt64), "small": int64(math.MinInt64), "f": 0.1, "inf": math.Inf(-1),
				"nan": math.NaN(), "whole": 3.0, "t": true, "no": false, "nil": nil, "empty": "",
				"list": []any{1, "a", []any{}}, "map": map[string]any{"x": map[string]any{"y": 1.5}},
			},
			BuildFile:    stamp("build.json"),
			Build:        &models.Build{ID: "b1", Commit: "abc", CI: &models.CI{Engine: "github", RunID: "7"}, Time: built},
			BuildWarning: "build.json: broken",
		},
	}
}

// TestDecodeHeaderAgreesWithLibrary: a header as save writes it is
// decoded by the fast path (not left to the library) into exactly what
// the library decodes, and the result that follows it is where the
// library says.
func TestDecodeHeaderAgreesWithLibrary(t *testing.T) {
	t.Parallel()
	for i, h := range headerSamples() {
		data, err := cacheEnc.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, 0xa1, 0x61, 'x', 0x01) // the result: {"x": 1}
		var fast cacheHeader
		rest, ok := decodeHeader(data, &fast)
		if !ok {
			t.Fatalf("header %d: left to the library: %x", i, data)
		}
		wantHeader(t, data, fast, rest)
	}
}

// wantHeader fails unless h and rest are what the library decodes of data.
func wantHeader(t *testing.T, data []byte, h cacheHeader, rest []byte) {
	t.Helper()
	var lib cacheHeader
	libRest, err := cacheDec.UnmarshalFirst(data, &lib)
	if err != nil {
		t.Fatalf("the fast path took what the library rejects (%v): %x", err, data)
	}
	got, err1 := canonical.Marshal(h)
	want, err2 := canonical.Marshal(lib)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(got, want) || len(rest) != len(libRest) {
		t.Fatalf("fast path %+v (%d bytes left), library %+v (%d left)", h, len(rest), lib, len(libRest))
	}
}

// TestDecodeHeaderLeavesOtherFormsToLibrary: what save never writes is
// not decoded by the fast path but left to the library, which decides
// (decodes it, or calls the record corrupt).
func TestDecodeHeaderLeavesOtherFormsToLibrary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a map", []byte{0x80}},
		{"indefinite-length map", []byte{0xbf, 0x01, 0x06, 0xff}},
		{"key twice", []byte{0xa2, 0x01, 0x06, 0x01, 0x07}},
		{"unknown key", []byte{0xa1, 0x0f, 0x00}},
		{"text key", []byte{0xa1, 0x61, 'a', 0x00}},
		{"format past int64", []byte{0xa1, 0x01, 0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"invalid UTF-8", []byte{0xa1, 0x02, 0x62, 0xff, 0xfe}},
		{"truncated text", []byte{0xa1, 0x02, 0x65, 'p'}},
		{"stamp of four fields", []byte{0xa1, 0x08, 0x84, 0x60, 0x00, 0x00, 0xf4}},
		{"count past the end", []byte{0xa1, 0x06, 0x9a, 0x7f, 0xff, 0xff, 0xff}},
		{"setting key twice", []byte{0xa1, 0x09, 0xa2, 0x61, 'f', 0x01, 0x61, 'f', 0x02}},
	} {
		var h cacheHeader
		if _, ok := decodeHeader(tt.data, &h); ok {
			t.Errorf("%s: decoded by the fast path: %+v", tt.name, h)
		}
	}
	// Values the fast path hands to the library inside a header it
	// decodes: a half-precision float, a list.
	for _, data := range [][]byte{
		{0xa1, 0x09, 0xa1, 0x61, 'f', 0xf9, 0x3c, 0x00},
		{0xa1, 0x09, 0xa1, 0x61, 'l', 0x82, 0x01, 0xf9, 0x3c, 0x00},
	} {
		var h cacheHeader
		rest, ok := decodeHeader(data, &h)
		if !ok {
			t.Fatalf("%x: left to the library", data)
		}
		wantHeader(t, data, h, rest)
	}
}

// TestDecodeHeaderOfDamagedRecords: a record cut short or with a byte
// changed is either left to the library or decoded as the library decodes
// it: the fast path never trusts what the library would reject.
func TestDecodeHeaderOfDamagedRecords(t *testing.T) {
	t.Parallel()
	for _, h := range headerSamples() {
		data, err := cacheEnc.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			for _, damaged := range [][]byte{data[:i], append(bytes.Clone(data[:i]), data[i]^0x20)} {
				var got cacheHeader
				if rest, ok := decodeHeader(damaged, &got); ok {
					wantHeader(t, damaged, got, rest)
				}
			}
		}
	}
}

func FuzzDecodeHeader(f *testing.F) {
	for _, h := range headerSamples() {
		data, err := cacheEnc.Marshal(h)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{0xa1, 0x09, 0xa1, 0x61, 'l', 0x82, 0x01, 0xf9, 0x3c, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		var h cacheHeader
		if rest, ok := decodeHeader(data, &h); ok {
			wantHeader(t, data, h, rest)
		}
	})
}

// BenchmarkDecodeHeader decodes a pi run's record header (bench/gen's
// tree) by the fast path and by the library.
func BenchmarkDecodeHeader(b *testing.B) {
	data, err := cacheEnc.Marshal(headerSamples()[1])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var h cacheHeader
			if _, ok := decodeHeader(data, &h); !ok {
				b.Fatal("left to the library")
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var h cacheHeader
			if _, err := cacheDec.UnmarshalFirst(data, &h); err != nil {
				b.Fatal(err)
			}
		}
	})
}
