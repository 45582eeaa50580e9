// Package golden is the test kit of golden files: what a user reads,
// compared byte for byte with a file under testdata, rewritten instead
// when the test runs with -update.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path, or, when update is set,
// writes got there first (creating its directory).
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (rerun with -update and review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
