package runner

import (
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
