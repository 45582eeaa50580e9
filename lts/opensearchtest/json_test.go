package opensearchtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		err      string // substring of the error; "" for success
		line     int
		col      int
	}{
		{name: "object", in: `{"a":[1,2.5e3,-0.1],"b":{"c":null,"d":true},"e":"\u00e9\ud83d\ude00"}`},
		{name: "whitespace around", in: " \n {\"a\":1} \n"},
		{name: "duplicate key", in: `{"a":1,"a":2}`, err: "Duplicate field 'a'", line: 1, col: 11},
		{name: "trailing comma", in: `{"a":1,}`, err: "was expecting double-quote to start field name", line: 1, col: 8},
		{name: "missing colon", in: `{"a" 1}`, err: "was expecting a colon", line: 1, col: 6},
		{name: "unquoted key", in: "{\n  a:1}", err: "Unexpected character ('a' (code 97))", line: 2, col: 3},
		{name: "leading zero", in: `{"a":01}`, err: "Leading zeroes not allowed"},
		{name: "bare word", in: `{"a":tru}`, err: "Unrecognized token 'tru'"},
		{name: "control character", in: "{\"a\":\"x\ny\"}", err: "Illegal unquoted character ((CTRL-CHAR, code 10))"},
		{name: "bad escape", in: `{"a":"\x"}`, err: "Unrecognized character escape 'x'"},
		{name: "unterminated", in: `{"a":[1,2`, err: "Unexpected end-of-input"},
		{name: "trailing data", in: `{"a":1} x`, err: "Unexpected character ('x'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseJSONStrict([]byte(tc.in))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				var want, got any
				_ = json.Unmarshal([]byte(tc.in), &want)
				_ = json.Unmarshal(v.marshal(), &got)
				if !reflect.DeepEqual(want, got) {
					t.Errorf("round trip %s, want %v", v.marshal(), want)
				}
				return
			}
			se, ok := err.(*jsonSyntaxError)
			if !ok || !strings.Contains(se.msg, tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if tc.line != 0 && (se.line != tc.line || se.col != tc.col) {
				t.Errorf("at %d:%d, want %d:%d", se.line, se.col, tc.line, tc.col)
			}
		})
	}
}

// FuzzParseJSON checks the body parser against encoding/json: the same
// documents are valid, except that duplicate keys and invalid UTF-8 are
// refused, as Jackson refuses them in OpenSearch.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":null}]}`, `"x"`, `1e5`, `{"a":1,"a":2}`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "bulk", "*.ndjson"))
	for _, p := range seeds {
		b, _ := os.ReadFile(p)
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSONStrict(data)
		valid := json.Valid(data)
		switch {
		case err == nil && v == nil:
			if len(bytes.TrimSpace(data)) != 0 {
				t.Fatalf("no value and no error for %q", data)
			}
		case err == nil:
			if !valid {
				t.Fatalf("accepted invalid JSON %q", data)
			}
			var want, got any
			if json.Unmarshal(data, &want) == nil {
				if err := json.Unmarshal(v.marshal(), &got); err != nil {
					t.Fatalf("re-encoding %q gave invalid JSON: %v", data, err)
				}
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("round trip of %q: %v, want %v", data, got, want)
				}
			}
		case valid && len(bytes.TrimSpace(data)) > 0:
			// Jackson also refuses invalid UTF-8, which encoding/json lets through.
			if !strings.Contains(err.Error(), "Duplicate field") && !strings.Contains(err.Error(), "nesting depth") &&
				!(strings.Contains(err.Error(), "Invalid UTF-8") && !utf8.Valid(data)) {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
		}
	})
}
