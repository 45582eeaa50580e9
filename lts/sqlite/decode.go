package sqlite

import (
	"strconv"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/seshat-bench/seshat/analyze"
)

// The records' own documents, a run's KPI values and the summaries of its
// samples, are written by encoding/json (encodeSummary, the samples'
// summaries) in one form: an object without spaces, whose names need no
// escape, of numbers or of the summaries' three numbers. Decoding them by
// the v2 engine of encoding/json was a third of the CPU of reading a
// build's records for a serve comparison (reflection per value, a string
// allocated per name); a document in that form is read here directly, the
// KPI names taken from those the query's kinds define (names) instead of
// allocated per record, and any other document by jsonv2 under
// v1Semantics as before. FuzzDecodeRecordDocs checks that both give the
// same values, for any input. BenchmarkDecodeRecordDocs (2026-11-27, the
// 2-core VM at load 1-2): 1.3 µs and 6 allocations a record against 3.1 µs
// and 10 by the engine, about 9 ms of CPU for a build of 5,000 runs.

// decodeKPIValues decodes a record's KPI values ({"name": number, ...}) as
// jsonv2.Unmarshal under v1Semantics does into an empty map.
func decodeKPIValues(doc []byte, names map[string]string) (map[string]float64, error) {
	if m, ok := scanKPIValues(doc, names); ok {
		return m, nil
	}
	values := map[string]float64{}
	err := jsonv2.Unmarshal(doc, &values, v1Semantics)
	return values, err
}

// decodeRunStats decodes the summaries of a record's samples ({"name":
// {"n": int, "log_mean": number, "log_var": number}, ...}) as
// jsonv2.Unmarshal under v1Semantics does into a nil map.
func decodeRunStats(doc []byte, names map[string]string) (map[string]analyze.RunStats, error) {
	if m, ok := scanRunStats(doc, names); ok {
		return m, nil
	}
	var stats map[string]analyze.RunStats
	err := jsonv2.Unmarshal(doc, &stats, v1Semantics)
	return stats, err
}

// scanKPIValues reads doc in the form encodeSummary writes; false when it
// is not in that form.
func scanKPIValues(doc []byte, names map[string]string) (map[string]float64, bool) {
	m := map[string]float64{}
	ok := scanObject(doc, names, func(s *docScanner, name string) bool {
		v, ok := s.float()
		m[name] = v
		return ok
	})
	return m, ok
}

// scanRunStats reads doc in the form encoding/json writes summaries of
// samples; false when it is not in that form.
func scanRunStats(doc []byte, names map[string]string) (map[string]analyze.RunStats, bool) {
	m := map[string]analyze.RunStats{}
	ok := scanObject(doc, names, func(s *docScanner, name string) bool {
		var r analyze.RunStats
		ok := s.object(func(field []byte) bool {
			var ok bool
			switch string(field) {
			case "n":
				r.N, ok = s.int()
			case "log_mean":
				r.LogMean, ok = s.float()
			case "log_var":
				r.LogVar, ok = s.float()
			}
			return ok
		})
		m[name] = r
		return ok
	})
	return m, ok
}

// scanObject reads doc as one object and nothing after it, calling value
// with the scanner at each member's value and its name (one of names when
// there, else allocated).
func scanObject(doc []byte, names map[string]string, value func(s *docScanner, name string) bool) bool {
	s := &docScanner{b: doc}
	return s.object(func(raw []byte) bool {
		name, ok := names[string(raw)]
		if !ok {
			name = string(raw)
		}
		return value(s, name)
	}) && s.i == len(s.b)
}

// docScanner reads JSON without spaces, with names that need no escape.
type docScanner struct {
	b []byte
	i int
}

// object reads an object, calling member with each member's name, the
// scanner at its value.
func (s *docScanner) object(member func(name []byte) bool) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	for {
		name, ok := s.name()
		if !ok || !s.byte(':') || !member(name) {
			return false
		}
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// byte consumes c if it is next.
func (s *docScanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// name reads a string of printable ASCII without a quote or backslash.
func (s *docScanner) name() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number (RFC 8259 §6), and tells whether it had a
// fraction or an exponent.
func (s *docScanner) number() (num []byte, integer, ok bool) {
	start := s.i
	s.byte('-')
	if s.byte('0') {
		// no digit may follow a leading zero
	} else if !s.digits() {
		return nil, false, false
	}
	integer = true
	if s.byte('.') {
		integer = false
		if !s.digits() {
			return nil, false, false
		}
	}
	if s.byte('e') || s.byte('E') {
		integer = false
		if !s.byte('-') {
			s.byte('+')
		}
		if !s.digits() {
			return nil, false, false
		}
	}
	return s.b[start:s.i], integer, true
}

// digits reads one digit or more.
func (s *docScanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// float reads a number as a float64: false when it does not fit one, as
// encoding/json refuses it.
func (s *docScanner) float() (float64, bool) {
	num, _, ok := s.number()
	if !ok {
		return 0, false
	}
	// Not kept beyond the call: the error, which would hold it, is dropped.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(num), len(num)), 64)
	return v, err == nil
}

// int reads a number without fraction or exponent as an int.
func (s *docScanner) int() (int, bool) {
	num, integer, ok := s.number()
	if !ok || !integer {
		return 0, false
	}
	v, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(num), len(num)), 10, strconv.IntSize)
	return int(v), err == nil
}
