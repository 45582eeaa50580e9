package models

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

func TestSamplesCBORRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		in   Samples
	}{
		{"nil", nil},
		{"empty", Samples{}},
		{"values", Samples{0.651, 0.649, 1e-300, -2, math.MaxFloat64, math.Inf(1), 0}},
		{"one", Samples{2}},
		{"23 bytes of head sizes", make(Samples, 3)}, // 24 bytes: one-byte length
		{"two-byte length", make(Samples, 40)},       // 320 bytes
		{"four-byte length", make(Samples, 10_000)},  // 80,000 bytes
		{"large", make(Samples, 100_000)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := cbor.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.in != nil { // the head is the shortest form, as the library writes it
				raw := make([]byte, 0, 8*len(tt.in))
				for _, f := range tt.in {
					raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(f))
				}
				if lib, err := cbor.Marshal(cbor.Tag{Number: 86, Content: raw}); err != nil || !bytes.Equal(lib, data) {
					t.Errorf("encoding differs from the library's (%v): % x... vs % x...", err, data[:min(12, len(data))], lib[:min(12, len(lib))])
				}
			}
			var got Samples
			if err := cbor.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.in) {
				t.Errorf("round trip: got %v, want %v", got, tt.in)
			}
		})
	}
}

// The typed array is the RFC 8746 one: another CBOR reader sees tag 86 over
// a byte string of little-endian float64s.
func TestSamplesCBORIsRFC8746(t *testing.T) {
	t.Parallel()
	data, err := cbor.Marshal(Samples{1, -0.5})
	if err != nil {
		t.Fatal(err)
	}
	var tag cbor.Tag
	if err := cbor.Unmarshal(data, &tag); err != nil {
		t.Fatal(err)
	}
	// The library's own encoding of that tag is byte for byte the same.
	if lib, err := cbor.Marshal(tag); err != nil || !reflect.DeepEqual(lib, data) {
		t.Errorf("encoded % x, the library encodes % x (%v)", data, lib, err)
	}
	want := []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xe0, 0xbf}
	if tag.Number != 86 || !reflect.DeepEqual(tag.Content, want) {
		t.Errorf("tag %d content % x, want tag 86 content % x", tag.Number, tag.Content, want)
	}
}

func TestSamplesCBORAcceptsOtherForms(t *testing.T) {
	t.Parallel()
	plain, _ := cbor.Marshal([]float64{1.5, 2})
	ints, _ := cbor.Marshal([]int{3, 4})
	null, _ := cbor.Marshal(nil)
	// Indefinite-length byte string inside the tag: not the fast path.
	indefinite := []byte{0xd8, 86, 0x5f, 0x48, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0xff}
	for _, tt := range []struct {
		name string
		data []byte
		want Samples
	}{
		{"plain array", plain, Samples{1.5, 2}},
		{"integers", ints, Samples{3, 4}},
		{"null", null, nil},
		{"indefinite byte string", indefinite, Samples{1}},
	} {
		var got Samples
		if err := cbor.Unmarshal(tt.data, &got); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSamplesCBORRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"another tag", []byte{0xd8, 85, 0x44, 0, 0, 0x80, 0x3f}, "tag 85"},
		{"ragged typed array", []byte{0xd8, 86, 0x43, 1, 2, 3}, "whole number"},
		{"a string", []byte{0x61, 'x'}, "samples"},
	} {
		var got Samples
		err := cbor.Unmarshal(tt.data, &got)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestFlagsCBORRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		in     Flags
		joined bool // encoded as one text string
	}{
		{"nil", nil, false},
		{"empty", Flags{}, true},
		{"cpuinfo", strings.Fields("fpu vme de pse tsc msr pae mce cx8 apic sse4_2 avx512f"), true},
		{"a flag with a space", Flags{"a b", "c"}, false},
		{"an empty flag", Flags{"x", ""}, false},
		{"unicode space", Flags{"x\u00a0y"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := cbor.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if isText := len(data) > 0 && data[0]>>5 == 3; isText != tt.joined {
				t.Errorf("encoded as text string: %v, want %v", isText, tt.joined)
			}
			var got Flags
			if err := cbor.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.in) {
				t.Errorf("round trip: got %q, want %q", got, tt.in)
			}
		})
	}
}

// Runs with the same flags share one decoded list; appending to one run's
// flags must not show in another's.
func TestFlagsSharedListIsCopiedOnAppend(t *testing.T) {
	t.Parallel()
	data, err := cbor.Marshal(Flags{"sse", "avx", "shared-list-test"})
	if err != nil {
		t.Fatal(err)
	}
	var a, b Flags
	if err := cbor.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if err := cbor.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	a = append(a, "extra")
	if len(b) != 3 || b[2] != "shared-list-test" {
		t.Errorf("b = %q after appending to a", b)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Fatal(err)
	}
}

func TestFlagsCBORInvalidUTF8IsReplaced(t *testing.T) {
	t.Parallel()
	data := []byte{0x65, 'a', ' ', 0xff, 'b', 'c'} // text "a \xffbc": not UTF-8
	var got Flags
	if err := cbor.Unmarshal(data, &got); err != nil {
		return // refusing it is fine too
	}
	if want := (Flags{"a", "\uFFFDbc"}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Both JSON forms are plain arrays: the named types change nothing there.
func TestSamplesAndFlagsJSON(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(CPUInfo{Flags: Flags{"a", "b"}})
	if err != nil || !strings.Contains(string(data), `"flags":["a","b"]`) {
		t.Errorf("CPUInfo JSON %s, %v", data, err)
	}
	data, err = json.Marshal(PIMeasurement{SamplesMs: Samples{1.5, 2}})
	if err != nil || !strings.Contains(string(data), `"samples_ms":[1.5,2]`) {
		t.Errorf("PIMeasurement JSON %s, %v", data, err)
	}
}

// The parse cache hands UnmarshalCBOR whatever a damaged file holds: it
// errors or decodes, never panics, and what it decodes encodes again.
func FuzzSamplesFlagsCBOR(f *testing.F) {
	for _, v := range []any{Samples{1, 2.5}, Samples(nil), []float64{3}, Flags{"sse", "avx"}, Flags{"a b"}, Flags(nil)} {
		data, err := cbor.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{0xd8, 86, 0x5f, 0x48, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0xff})
	f.Add([]byte{0xd8, 86, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Samples
		if s.UnmarshalCBOR(data) == nil {
			if _, err := cbor.Marshal(s); err != nil {
				t.Errorf("decoded samples do not encode: %v", err)
			}
		}
		var fl Flags
		if fl.UnmarshalCBOR(data) == nil {
			if _, err := cbor.Marshal(fl); err != nil {
				t.Errorf("decoded flags do not encode: %v", err)
			}
		}
	})
}

func TestFlagsShared(t *testing.T) {
	t.Parallel()
	a := Flags{"fpu", "vme", "shared-test"}.Shared()
	b := Flags{"fpu", "vme", "shared-test"}.Shared()
	if !reflect.DeepEqual(a, Flags{"fpu", "vme", "shared-test"}) || &a[0] != &b[0] {
		t.Errorf("two equal lists are not one shared list: %q %q", a, b)
	}
	if c := append(a, "x"); &c[0] == &b[0] {
		t.Error("appending to a shared list wrote into it")
	}
	odd := Flags{"a b"}
	if got := odd.Shared(); &got[0] != &odd[0] {
		t.Error("a list that cannot be joined was copied")
	}
	if Flags(nil).Shared() != nil {
		t.Error("nil did not stay nil")
	}
}

// BenchmarkCBORDecode measures what the compact forms of Samples and Flags
// buy when the parse cache decodes a run: a run of the pi workload (100
// samples, this machine's /proc/cpuinfo flags, 94 of them on the VM the
// figures in the package comment come from), decoded with the compact
// forms and as the plain arrays the library writes without them.
func BenchmarkCBORDecode(b *testing.B) {
	samples := make([]float64, 100)
	for i := range samples {
		samples[i] = 0.65 + float64(i%7)*0.001
	}
	flags := strings.Fields(strings.Repeat("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx ", 4))
	type compact struct {
		Samples Samples
		Flags   Flags
	}
	type plain struct {
		Samples []float64
		Flags   []string
	}
	for _, c := range []struct {
		name string
		in   any
		out  func() any
	}{
		{"compact", compact{samples, flags}, func() any { return new(compact) }},
		{"plain", plain{samples, flags}, func() any { return new(plain) }},
	} {
		data, err := cbor.Marshal(c.in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := cbor.Unmarshal(data, c.out()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
