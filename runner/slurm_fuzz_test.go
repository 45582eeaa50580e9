package runner

import (
	"bytes"
	"os"
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

// FuzzExtractArchive: a pod log never panics the archive reader, nothing
// lands outside the run directory, and no staging directory is left
// behind, whether the archive is taken or refused.
func FuzzExtractArchive(f *testing.F) {
	f.Add([]byte(archiveBegin + "\nH4sIAAAAAAAA/w==\n" + archiveEnd + "\n"))
	f.Add([]byte("no archive\n"))
	addFiles(f, "testdata/archive/*.log")
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		dir := filepath.Join(base, "run")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		names, err := extractArchive(bytes.NewReader(data), dir, archiveLimits{bytes: 1 << 20, files: 100, fileSize: 1 << 20})
		for _, name := range names {
			if !filepath.IsLocal(filepath.FromSlash(name)) {
				t.Fatalf("accepted %q", name)
			}
		}
		if entries, _ := os.ReadDir(base); len(entries) != 1 {
			t.Fatalf("wrote beside the run directory: %v", entries)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".seshat-archive-") {
				t.Fatalf("left %s (error %v)", e.Name(), err)
			}
		}
		if err != nil && len(entries) != 0 {
			t.Fatalf("refused (%v) but wrote %v", err, entries)
		}
	})
}
