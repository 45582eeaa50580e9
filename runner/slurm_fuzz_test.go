package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSlurmQueue: squeue and sacct output never panics the parser,
// and every state it returns belongs to an array task id.
func FuzzParseSlurmQueue(f *testing.F) {
	addFiles(f, "testdata/squeue/*.txt")
	f.Add([]byte("1_2|RUNNING|n|None\n|||\n_|x|y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		states, err := parseSlurmQueue("squeue", data)
		if err != nil && !strings.HasPrefix(err.Error(), "squeue output line ") && !strings.Contains(err.Error(), "token too long") {
			t.Fatalf("error does not name the line: %v", err)
		}
		for id := range states {
			if !isArrayTaskID(id) {
				t.Fatalf("state for %q", id)
			}
		}
	})
}

// FuzzExtractArchive: a pod log never panics the archive reader, and no
// entry it accepts would land outside the run directory. (It decodes in
// memory, as ExtractArchive does before writing anything.)
func FuzzExtractArchive(f *testing.F) {
	f.Add([]byte(archiveBegin + "\nH4sIAAAAAAAA/w==\n" + archiveEnd + "\n"))
	f.Add([]byte("no archive\n"))
	addFiles(f, "testdata/archive/*.log")
	f.Fuzz(func(t *testing.T, data []byte) {
		payload, err := findArchive(bytes.NewReader(data))
		if err != nil {
			return
		}
		files, _ := readArchive(payload)
		for name := range files {
			if !filepath.IsLocal(filepath.FromSlash(name)) {
				t.Fatalf("accepted %q", name)
			}
		}
	})
}
