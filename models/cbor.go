package models

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// The parse cache (package store) keeps every run's parse-once result in
// CBOR, and a cached parse of a large results tree is mostly decoding. The
// two bulkiest fields of an artifact, the timing samples and the CPU flags,
// therefore get compact CBOR forms. JSON is unaffected: both types are plain
// arrays there.
//
// What it buys (BenchmarkCBORDecode, a pi run's 100 samples and 94 CPU
// flags, on the 2-core VM): 2.0-3.0 µs and 2 allocations a run against
// 15.4-17.0 µs and 105 allocations for the plain arrays, about 0.13 s of the
// 1.3-1.5 CPU-seconds a cached parse of 10,000 runs costs. The codec stays
// beside its types, not in package store that alone decodes the cache: a
// Go type's methods live in its package, and the workloads' typed results
// (decoded by reflection) hold these types.

// tagFloat64LE is the RFC 8746 typed-array tag for little-endian IEEE 754
// binary64 values: a byte string of 8-byte floats.
const tagFloat64LE = 86

// Samples are timed repetitions, in order. In CBOR they are an RFC 8746
// typed array (tag 86 over a byte string), decoded with one copy instead of
// one reflective store per number; a plain CBOR array of numbers is accepted
// too.
type Samples []float64

// MarshalCBOR implements cbor.Marshaler.
func (s Samples) MarshalCBOR() ([]byte, error) {
	if s == nil {
		return cbor.Marshal(nil)
	}
	// Written directly, in one allocation: tag 86, the byte string's head,
	// the floats.
	out := make([]byte, 0, 2+9+8*len(s))
	out = append(out, 0xd8, tagFloat64LE) // major type 6, one-byte tag number
	out = appendHead(out, 2, uint64(8*len(s)))
	for _, f := range s {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(f))
	}
	return out, nil
}

// appendHead appends the head of a CBOR data item of major type major with
// argument arg (a length), in its shortest form, as RFC 8949 prescribes.
func appendHead(out []byte, major byte, arg uint64) []byte {
	m := major << 5
	switch {
	case arg < 24:
		return append(out, m|byte(arg))
	case arg <= math.MaxUint8:
		return append(out, m|24, byte(arg))
	case arg <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(out, m|25), uint16(arg))
	case arg <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(out, m|26), uint32(arg))
	default:
		return binary.BigEndian.AppendUint64(append(out, m|27), arg)
	}
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (s *Samples) UnmarshalCBOR(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("samples: empty CBOR item")
	}
	// The form MarshalCBOR writes: tag 86, then a definite-length byte
	// string ending the item. Decoded straight from the item, one copy.
	if major, num, rest, ok := cborHead(data); ok && major == 6 && num == tagFloat64LE {
		if major, n, raw, ok := cborHead(rest); ok && major == 2 && n == uint64(len(raw)) && n%8 == 0 {
			out := make(Samples, n/8)
			for i := range out {
				out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
			*s = out
			return nil
		}
	}
	switch data[0] >> 5 {
	case 6: // a tag: must be the typed array
		var t cbor.RawTag
		if err := t.UnmarshalCBOR(data); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		if t.Number != tagFloat64LE {
			return fmt.Errorf("samples: CBOR tag %d, want %d (float64 little-endian typed array)", t.Number, tagFloat64LE)
		}
		var raw []byte
		if err := cbor.Unmarshal(t.Content, &raw); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		if len(raw)%8 != 0 {
			return fmt.Errorf("samples: typed array of %d bytes is not a whole number of float64s", len(raw))
		}
		out := make(Samples, len(raw)/8)
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		*s = out
		return nil
	default: // null or a plain array of numbers
		var plain []float64
		if err := cbor.Unmarshal(data, &plain); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		*s = plain
		return nil
	}
}

// Flags are CPU feature flags as /proc/cpuinfo lists them. In CBOR they are
// one space-separated text string, decoded with two allocations instead of
// one per flag; a list holding a flag that is empty or contains white space
// (never seen in /proc/cpuinfo, but hwinfo.json is input) stays an array.
type Flags []string

// MarshalCBOR implements cbor.Marshaler.
func (f Flags) MarshalCBOR() ([]byte, error) {
	if f == nil {
		return cbor.Marshal(nil)
	}
	for _, flag := range f {
		if flag == "" || strings.IndexFunc(flag, unicode.IsSpace) >= 0 {
			return cbor.Marshal([]string(f))
		}
	}
	return cbor.Marshal(strings.Join(f, " "))
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (f *Flags) UnmarshalCBOR(data []byte) error {
	if major, n, text, ok := cborHead(data); ok && major == 3 && n == uint64(len(text)) {
		*f = splitFlags(text)
		return nil
	}
	if len(data) > 0 && data[0]>>5 == 3 { // a text string of another form
		var joined string
		if err := cbor.Unmarshal(data, &joined); err != nil {
			return fmt.Errorf("flags: %w", err)
		}
		*f = splitFlags([]byte(joined))
		return nil
	}
	var list []string
	if err := cbor.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("flags: %w", err)
	}
	*f = list
	return nil
}

// flagSets remembers the flag lists already split: a results tree holds
// thousands of runs from a handful of machines, so each distinct list is
// split once and the runs with that list share it, like interned strings.
// The shared slice has its capacity cut to its length, so an append copies;
// decoded Flags are read-only.
var flagSets = struct {
	sync.RWMutex
	m map[string]Flags
}{m: map[string]Flags{}}

// maxFlagSets bounds flagSets; past it lists are split every time.
const maxFlagSets = 256

// Shared returns the list of runs with these same flags, which the parse
// cache hands out, so that runs parsed fresh share their flags too; a list
// that cannot be joined losslessly is returned as it is. Read-only, as
// decoded Flags are.
func (f Flags) Shared() Flags {
	for _, flag := range f {
		if flag == "" || strings.IndexFunc(flag, unicode.IsSpace) >= 0 || !utf8.ValidString(flag) {
			return f
		}
	}
	if f == nil {
		return nil
	}
	return splitFlags([]byte(strings.Join(f, " ")))
}

func splitFlags(text []byte) Flags {
	flagSets.RLock()
	shared, ok := flagSets.m[string(text)] // no allocation for the lookup
	flagSets.RUnlock()
	if !ok {
		joined := strings.ToValidUTF8(string(text), "\uFFFD")
		shared = strings.Fields(joined)
		if shared == nil {
			shared = Flags{}
		}
		flagSets.Lock()
		if len(flagSets.m) < maxFlagSets {
			flagSets.m[string(text)] = shared
		}
		flagSets.Unlock()
	}
	return shared[:len(shared):len(shared)]
}

// cborHead decodes the head of a CBOR data item: its major type, its
// argument (a length, a tag number or a value) and what follows. ok is
// false for the forms it does not take (indefinite lengths, reserved
// values), which callers leave to the library.
func cborHead(data []byte) (major byte, arg uint64, rest []byte, ok bool) {
	if len(data) == 0 {
		return 0, 0, nil, false
	}
	major, info := data[0]>>5, data[0]&0x1f
	data = data[1:]
	var size int
	switch {
	case info < 24:
		return major, uint64(info), data, true
	case info == 24:
		size = 1
	case info == 25:
		size = 2
	case info == 26:
		size = 4
	case info == 27:
		size = 8
	default:
		return 0, 0, nil, false
	}
	if len(data) < size {
		return 0, 0, nil, false
	}
	for _, b := range data[:size] {
		arg = arg<<8 | uint64(b)
	}
	return major, arg, data[size:], true
}
