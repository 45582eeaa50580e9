package indicator

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/seshat-bench/seshat/internal/procstatus"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

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
			own := procstatus.PeakRSS(status)
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
