package main

import (
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with the file name under goldenDir, or rewrites it
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/seshat -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update and review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
