package indicator

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/seshat-bench/seshat/workloads/runnable"
)

func TestParseHWM(t *testing.T) {
	t.Parallel()
	status := "Name:\tseshat\nVmPeak:\t 1395656 kB\nVmSize:\t 1395656 kB\nVmHWM:\t   36164 kB\nVmRSS:\t   36164 kB\n"
	if got := parseHWM([]byte(status)); got != 36164*1024 {
		t.Errorf("parseHWM = %d, want %d", got, 36164*1024)
	}
	for _, bad := range []string{"", "Name:\tx\n", "VmHWM:\t 12 MB\n", "VmHWM:\t -3 kB\n", "VmHWM:\t lots kB\n", "VmHWM:\n", "VmHWM:\t 99999999999999999999 kB\n"} {
		if got := parseHWM([]byte(bad)); got != 0 {
			t.Errorf("parseHWM(%q) = %d, want 0", bad, got)
		}
	}
}

// FuzzParseHWM: the status file is the kernel's, but a parser never
// panics and never returns a negative size.
func FuzzParseHWM(f *testing.F) {
	f.Add([]byte("VmHWM:\t   36164 kB\n"))
	f.Add([]byte("VmHWM: 1 kB extra\nVmHWM: 2 kB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := parseHWM(data); got < 0 {
			t.Errorf("parseHWM = %d", got)
		}
	})
}

// `seshat pi` reports the run's peak: at least its own memory map's, as
// one UsageReport document, for a run that failed too. (That it leaves out
// the memory of the seshat that started it is TestRunPeakIsThePIs, in
// cmd/seshat: here the process is the test binary, whose other tests'
// children count in its own.)
func TestMainReportsPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak is read from /proc")
	}
	t.Parallel()
	dir := t.TempDir()
	for name, settings := range map[string]string{
		"ok":     "pi: matmul\nbackend: gonum\nmatrix_size: 8\nrepetitions: 2\nwarmup: 0\n",
		"failed": "pi: exec\ncommand: [sh, -c, 'exit 3']\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(path, []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			status, err := os.ReadFile("/proc/self/status")
			if err != nil {
				t.Fatal(err)
			}
			own := parseHWM(status)
			if own < 1<<20 {
				t.Fatalf("VmHWM of %q: %d", status, own)
			}
			var report, out bytes.Buffer
			err = Main(context.Background(), MainOptions{SettingsFile: path, Output: filepath.Join(dir, name+".json"), Report: &report,
				Options: Options{Stdout: &out, Stderr: &out, Env: os.Environ(), Dir: dir}})
			if (err != nil) != (name == "failed") {
				t.Fatalf("Main: %v\n%s", err, out.String())
			}
			dec := json.NewDecoder(&report)
			dec.DisallowUnknownFields()
			var r runnable.UsageReport
			if err := dec.Decode(&r); err != nil || dec.More() {
				t.Fatalf("report %q: %v", report.String(), err)
			}
			if r.MaxRSSBytes < own {
				t.Errorf("reported peak %d bytes; this process's own peak was already %d", r.MaxRSSBytes, own)
			}
		})
	}
}
