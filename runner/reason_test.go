package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStderrReason: a failed run's summary gives the last line of its
// stderr that says why, bounded, on one line, without credentials.
func TestStderrReason(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	tests := []struct{ name, stderr, want string }{
		{"the last line", "loading\nerror: cannot open model.bin: no such file\n\n", "error: cannot open model.bin: no such file"},
		{"seshat pi's error, prefix cut", "seshat: device: gpu, but CUDA is not available\n", "device: gpu, but CUDA is not available"},
		{"seshat run's notes passed over", "Traceback ...\nMemoryError: 256 MiB\nseshat run: killed 2 processes the run left running\n", "MemoryError: 256 MiB"},
		{"bounded", long + "\n", strings.Repeat("x", maxReason-1) + "…"},
		{"one line, valid UTF-8", "bad \xff\x1b[31mred\n", "bad ??[31mred"},
		{"credentials hidden", "connect https://ci:hunter2@db:9200: refused\n", "connect https://<secret>@db:9200: refused"},
		{"empty", "\n \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, StderrFile), []byte(tt.stderr), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := StderrReason(dir); got != tt.want {
				t.Errorf("StderrReason = %q, want %q", got, tt.want)
			}
		})
	}
	if got := StderrReason(t.TempDir()); got != "" {
		t.Errorf("without stderr.log: %q", got)
	}
	o := Outcome{ExitCode: 1, Stderr: "error: no model"}
	if got := o.Describe(0); got != "exit code 1: error: no model" {
		t.Errorf("Describe = %q", got)
	}
}
