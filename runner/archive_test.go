package runner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestArchiveRoundTrip: a run directory printed among other log lines
// arrives complete, exit_code written last.
func TestArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := map[string]string{ExitCodeFile: "0\n", "pi.json": `{"name": "PiMatmul"}`, StdoutFile: strings.Repeat("x", 100000), "sub/extra.txt": "more"}
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755)
		os.WriteFile(filepath.Join(src, name), []byte(content), 0o644)
	}
	var log bytes.Buffer
	log.WriteString("seshat run-point: a warning on stderr\n")
	if err := WriteArchive(&log, src); err != nil {
		t.Fatal(err)
	}
	log.WriteString("trailing line\n")
	for _, line := range strings.Split(log.String(), "\n") {
		if len(line) > 76 {
			t.Fatalf("a line of %d characters: logs are line-based", len(line))
		}
	}
	dst := t.TempDir()
	names, err := ExtractArchive(&log, dst)
	if err != nil {
		t.Fatal(err)
	}
	if names[len(names)-1] != ExitCodeFile {
		t.Errorf("written in order %v: exit_code must be last", names)
	}
	for name, content := range files {
		if got := readFile(t, filepath.Join(dst, name)); got != content {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(content))
		}
	}
	payload, err := EncodeArchive(src)
	if err != nil || strings.ContainsAny(payload, "\n ") {
		t.Fatalf("payload %v %q", err, payload[:20])
	}
	if names2, err := ExtractPayload([]byte(payload), t.TempDir()); err != nil || !reflect.DeepEqual(names, names2) {
		t.Errorf("payload: %v %v", names2, err)
	}
}

func TestArchiveDamaged(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, ExitCodeFile), []byte("0\n"), 0o644)
	var log bytes.Buffer
	WriteArchive(&log, src)
	full := log.String()
	tests := []struct {
		name, log string
		want      error
	}{
		{name: "no archive", log: "container died\n", want: ErrNoArchive},
		{name: "cut before the end", log: full[:len(full)-len(archiveEnd)-2], want: ErrNoArchive},
		{name: "flipped byte", log: strings.Replace(full, "\n", "\nAAAA", 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dst := t.TempDir()
			_, err := ExtractArchive(strings.NewReader(tc.log), dst)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if entries, _ := os.ReadDir(dst); len(entries) != 0 {
				t.Errorf("a damaged archive wrote %v", entries)
			}
		})
	}
}
