package parsers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOSRelease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file           string
		id, ver, named string
		errLines       []string // substrings of the expected error, one per bad line
	}{
		{file: "debian12", id: "debian", ver: "12", named: "Debian GNU/Linux 12 (bookworm)"},
		{file: "ubuntu2204", id: "ubuntu", ver: "22.04", named: "Ubuntu 22.04.4 LTS"},
		{file: "rhel9", id: "rhel", ver: "9.4", named: "Red Hat Enterprise Linux 9.4 (Plow)"},
		{file: "broken", id: "alpine", ver: "3.19.1", errLines: []string{
			"broken:4: field PRETTY_NAME: unterminated double-quoted value",
			"broken:5: expected KEY=value",
			"broken:7: field HOME_URL: unquoted value with spaces",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "osrelease", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := OSRelease(tc.file, data)
			if got["ID"] != tc.id || got["VERSION_ID"] != tc.ver || got["PRETTY_NAME"] != tc.named {
				t.Errorf("ID=%q VERSION_ID=%q PRETTY_NAME=%q, want %q %q %q", got["ID"], got["VERSION_ID"], got["PRETTY_NAME"], tc.id, tc.ver, tc.named)
			}
			if len(tc.errLines) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error for the malformed lines")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SyntaxError", err)
			}
			for _, want := range tc.errLines {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestOSReleaseQuoting(t *testing.T) {
	t.Parallel()
	got, err := OSRelease("q", []byte("A=\"x \\\"y\\\" \\$z \\n\"\nB='it''s'\nC=''\nD=\n"))
	if err == nil || !strings.Contains(err.Error(), "q:2") {
		t.Errorf("want an error on line 2, got %v", err)
	}
	if got["A"] != `x "y" $z \n` {
		t.Errorf("A = %q", got["A"])
	}
	if v, ok := got["C"]; !ok || v != "" {
		t.Errorf("C = %q, %v", v, ok)
	}
	if v, ok := got["D"]; !ok || v != "" {
		t.Errorf("D = %q, %v", v, ok)
	}
}

func FuzzOSRelease(f *testing.F) {
	addFixtureSeeds(f, "osrelease")
	f.Add([]byte("ID=\"\\"))
	f.Add([]byte{0xff, '=', 0xfe, '\n'})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := OSRelease("fuzz", data)
		if got == nil {
			t.Fatal("nil map")
		}
		for k := range got {
			if !validOSReleaseKey(k) {
				t.Errorf("invalid key %q returned", k)
			}
		}
		if err != nil && !utf8.ValidString(err.Error()) && utf8.Valid(data) {
			t.Errorf("message not UTF-8 for UTF-8 input: %q", err)
		}
	})
}

// addFixtureSeeds adds every file of testdata/<dir> to the fuzz corpus.
func addFixtureSeeds(f *testing.F, dir string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/%s: %v", dir, err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}
