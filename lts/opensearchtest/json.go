package opensearchtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// OpenSearch parses request bodies with Jackson, which rejects duplicate keys
// and reports errors with a line and column. encoding/json does neither, so
// bodies are parsed here into a tree that keeps key order and positions.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jv is one parsed JSON value.
type jv struct {
	kind jkind
	b    bool
	s    string // string value, or the literal text of a number
	arr  []*jv
	obj  []jmember
	line int // 1-based position of the value's first character
	col  int
}

type jmember struct {
	key       string
	line, col int
	val       *jv
}

// get returns the member named key, or nil.
func (v *jv) get(key string) *jv {
	if v == nil || v.kind != jObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// token is the name OpenSearch's XContentParser gives the value's first token;
// it appears in many of its error messages.
func (v *jv) token() string {
	switch v.kind {
	case jObject:
		return "START_OBJECT"
	case jArray:
		return "START_ARRAY"
	case jString:
		return "VALUE_STRING"
	case jNumber:
		return "VALUE_NUMBER"
	case jBool:
		return "VALUE_BOOLEAN"
	default:
		return "VALUE_NULL"
	}
}

// isFloat reports whether a number literal has a fraction or exponent.
func (v *jv) isFloat() bool {
	return v.kind == jNumber && strings.ContainsAny(v.s, ".eE")
}

// text is the value as Java's parser.text() renders it for scalars.
func (v *jv) text() string {
	switch v.kind {
	case jString, jNumber:
		return v.s
	case jBool:
		return strconv.FormatBool(v.b)
	case jNull:
		return "null"
	}
	return string(v.marshal())
}

// goValue converts the value to plain Go values (map[string]any, []any,
// string, json.Number, bool, nil).
func (v *jv) goValue() any {
	switch v.kind {
	case jNull:
		return nil
	case jBool:
		return v.b
	case jNumber:
		return json.Number(v.s)
	case jString:
		return v.s
	case jArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.goValue()
		}
		return out
	default:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = m.val.goValue()
		}
		return out
	}
}

// marshal writes the value as compact JSON, keeping key order.
func (v *jv) marshal() []byte {
	var b bytes.Buffer
	v.writeTo(&b)
	return b.Bytes()
}

func (v *jv) writeTo(b *bytes.Buffer) {
	switch v.kind {
	case jNull:
		b.WriteString("null")
	case jBool:
		b.WriteString(strconv.FormatBool(v.b))
	case jNumber:
		b.WriteString(v.s)
	case jString:
		q, _ := json.Marshal(v.s)
		b.Write(q)
	case jArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.writeTo(b)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(m.key)
			b.Write(q)
			b.WriteByte(':')
			m.val.writeTo(b)
		}
		b.WriteByte('}')
	}
}

// jsonSyntaxError is a Jackson JsonParseException.
type jsonSyntaxError struct {
	msg       string
	line, col int
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d]", e.msg, e.line, e.col)
}

type jparser struct {
	data      []byte
	pos       int
	line      int
	lineStart int
}

// parseJSON parses one JSON value and returns it with the offset just after
// it; what follows is the caller's business, as it is for Jackson. An input
// holding only whitespace gives a nil value and no error.
func parseJSON(data []byte) (*jv, int, error) {
	p := &jparser{data: data, line: 1}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.pos, nil
	}
	v, err := p.value(0)
	if err != nil {
		return nil, p.pos, err
	}
	return v, p.pos, nil
}

// parseJSONStrict parses a whole body: a value followed by nothing but
// whitespace.
func parseJSONStrict(data []byte) (*jv, error) {
	v, end, err := parseJSON(data)
	if err != nil || v == nil {
		return v, err
	}
	p := &jparser{data: data, pos: end, line: v.line}
	p.recount(end)
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errUnexpected("expected end of input")
	}
	return v, nil
}

// recount recomputes line bookkeeping for offset pos.
func (p *jparser) recount(pos int) {
	p.line, p.lineStart = 1, 0
	for i := 0; i < pos && i < len(p.data); i++ {
		if p.data[i] == '\n' {
			p.line++
			p.lineStart = i + 1
		}
	}
	p.pos = pos
}

func (p *jparser) col() int { return p.pos - p.lineStart + 1 }

func (p *jparser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r':
			p.pos++
		case '\n':
			p.pos++
			p.line++
			p.lineStart = p.pos
		default:
			return
		}
	}
}

func (p *jparser) errf(format string, args ...any) error {
	return &jsonSyntaxError{msg: fmt.Sprintf(format, args...), line: p.line, col: p.col()}
}

func (p *jparser) errUnexpected(expecting string) error {
	if p.pos >= len(p.data) {
		return p.errf("Unexpected end-of-input: %s", expecting)
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return p.errf("Unexpected character ('%c' (code %d)): %s", r, r, expecting)
}

const maxJSONDepth = 1000

func (p *jparser) value(depth int) (*jv, error) {
	if depth > maxJSONDepth {
		return nil, p.errf("Document nesting depth (%d) exceeds the maximum allowed (%d)", depth, maxJSONDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.errf("Unexpected end-of-input: expected a value")
	}
	v := &jv{line: p.line, col: p.col()}
	switch c := p.data[p.pos]; {
	case c == '{':
		v.kind = jObject
		return v, p.object(v, depth)
	case c == '[':
		v.kind = jArray
		return v, p.array(v, depth)
	case c == '"':
		s, err := p.str()
		v.kind, v.s = jString, s
		return v, err
	case c == '-' || (c >= '0' && c <= '9'):
		s, err := p.number()
		v.kind, v.s = jNumber, s
		return v, err
	case c == ']' || c == '}' || c == ',' || c == ':':
		return nil, p.errUnexpected("expected a value")
	default:
		word := p.word()
		switch word {
		case "true", "false":
			v.kind, v.b = jBool, word == "true"
			return v, nil
		case "null":
			v.kind = jNull
			return v, nil
		}
		return nil, p.errf("Unrecognized token '%s': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')", word)
	}
}

// word consumes a run of identifier-ish characters, as Jackson does before
// reporting an unrecognized token.
func (p *jparser) word() string {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' || c == ']' || c == '}' || c == '{' || c == '[' || c == '"' {
			break
		}
		p.pos++
	}
	if p.pos == start {
		p.pos++
	}
	return string(p.data[start:p.pos])
}

func (p *jparser) object(v *jv, depth int) error {
	start := struct{ line, col int }{p.line, p.col()}
	p.pos++ // '{'
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	seen := map[string]bool{}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errf("Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d])", start.line, start.col)
		}
		if p.data[p.pos] != '"' {
			return p.errUnexpected("was expecting double-quote to start field name")
		}
		m := jmember{line: p.line, col: p.col()}
		key, err := p.str()
		if err != nil {
			return err
		}
		if seen[key] {
			return &jsonSyntaxError{msg: fmt.Sprintf("Duplicate field '%s'", key), line: m.line, col: m.col + len(key) + 2}
		}
		seen[key] = true
		m.key = key
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.errUnexpected("was expecting a colon to separate field name and value")
		}
		p.pos++
		if m.val, err = p.value(depth + 1); err != nil {
			return err
		}
		v.obj = append(v.obj, m)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errf("Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d])", start.line, start.col)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.errUnexpected("was expecting comma to separate Object entries")
		}
	}
}

func (p *jparser) array(v *jv, depth int) error {
	start := struct{ line, col int }{p.line, p.col()}
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		v.arr = []*jv{}
		return nil
	}
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		v.arr = append(v.arr, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errf("Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d])", start.line, start.col)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.errUnexpected("was expecting comma to separate Array entries")
		}
	}
}

func (p *jparser) str() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.errf("Unexpected end-of-input: was expecting closing quote for a string value")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errf("Unexpected end-of-input in character escape sequence")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r >= 0xD800 && r < 0xDC00 && p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					p.pos += 2
					lo, err := p.hex4()
					if err != nil {
						return "", err
					}
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				}
				b.WriteRune(r)
			default:
				p.pos--
				return "", p.errf("Unrecognized character escape '%c' (code %d)", e, e)
			}
		case c < 0x20:
			return "", p.errf("Illegal unquoted character ((CTRL-CHAR, code %d)): has to be escaped using backslash to be included in string value", c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errf("Invalid UTF-8 start byte 0x%x", c)
			}
			b.WriteRune(r)
			p.pos += size
		}
	}
}

func (p *jparser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("Unexpected end-of-input in character escape sequence")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errf("Unexpected character in character escape sequence: expected a hex-digit")
	}
	p.pos += 4
	return rune(n), nil
}

func (p *jparser) number() (string, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 {
		return "", p.errUnexpected("expected digit (0-9) to follow minus sign, for valid numeric value")
	}
	if p.data[intStart] == '0' && p.pos-intStart > 1 {
		return "", p.errf("Invalid numeric value: Leading zeroes not allowed")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.errUnexpected("Decimal point not followed by a digit")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.errUnexpected("expected a digit for number exponent")
		}
	}
	return string(p.data[start:p.pos]), nil
}
