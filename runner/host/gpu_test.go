package host

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withGPU is a recorded host with nvidia-smi's recorded answers beside it
// (testdata/nvidia-smi/name).
func withGPU(t *testing.T, host, name string) (Host, func(context.Context, time.Duration) error) {
	t.Helper()
	h, wait := fixture(t, host)
	if err := os.CopyFS(filepath.Join(h.Root, "nvidia-smi"), os.DirFS(filepath.Join("testdata", "nvidia-smi", name))); err != nil {
		t.Fatal(err)
	}
	return h, wait
}

// TestInspectGPU: on a host with an NVIDIA GPU the report has a gpu line:
// what a person checks before timing on it when it is free, and noisy
// when another process holds it or it is busy (recorded on an H200).
func TestInspectGPU(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, gpu string
		self      int
		verdict   string
		state     string
	}{
		{"idle", "h200-idle", 1, "host: quiet",
			"GPU 0 NVIDIA H200: 0% used, SM clock 405 of 1980 MHz, 36 °C, 94.51 W, persistence mode enabled"},
		{"busy", "h200-busy", 1, "host: noisy (GPU used by python3)",
			"used by python3 (pid 433, 1130 MiB on GPU 0); GPU 0 NVIDIA H200: 100% used, SM clock 1650 of 1980 MHz, 58 °C, 479.18 W"},
		// The process using the GPU is the one checking: the GPU is still
		// busy, by its utilization.
		{"busy, itself", "h200-busy", 433, "host: noisy (GPU busy: GPU 0 100%)", "GPU 0 NVIDIA H200: 100% used"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, wait := withGPU(t, "quiet-bare-metal", tc.gpu)
			r, err := Inspect(context.Background(), h, Options{Sample: time.Second, Self: tc.self, wait: wait})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Verdict(); got != tc.verdict {
				t.Errorf("verdict %q, want %q", got, tc.verdict)
			}
			c := r.Checks[len(r.Checks)-1]
			if c.Name != "gpu" || !strings.HasPrefix(c.State, tc.state) {
				t.Errorf("last check %+v, want gpu beginning %q", c, tc.state)
			}
			if tc.self == 1 {
				var text bytes.Buffer
				if err := r.WriteText(&text); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, "quiet-bare-metal+"+tc.gpu+".check.golden.txt", text.Bytes())
			}
		})
	}
}

// TestInspectGPUAbsentOrBroken: a host without nvidia-smi has no gpu line
// (the recorded hosts' goldens have none); an answer that cannot be read
// is an unknown line naming it, never an error.
func TestInspectGPUAbsentOrBroken(t *testing.T) {
	t.Parallel()
	h, wait := fixture(t, "quiet-bare-metal")
	r, err := Inspect(context.Background(), h, Options{Sample: time.Second, Self: 1, wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Checks {
		if c.Name == "gpu" {
			t.Errorf("a gpu line without nvidia-smi: %+v", c)
		}
	}
	h, wait = withGPU(t, "quiet-bare-metal", "h200-idle")
	if err := os.WriteFile(filepath.Join(h.Root, "nvidia-smi", "query-gpu.csv"), []byte("0, GPU-x, Broken GPU\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Inspect(context.Background(), h, Options{Sample: time.Second, Self: 1, wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Checks[len(r.Checks)-1]
	if c.Name != "gpu" || c.Status != Unknown || !strings.Contains(c.State, "nvidia-smi --query-gpu line 1: 3 fields, want 11") {
		t.Errorf("last check %+v, want gpu unknown naming the line", c)
	}
	if r.Noisy() {
		t.Errorf("an unreadable GPU answer made the host noisy: %s", r.Verdict())
	}
}

func TestParseGPUs(t *testing.T) {
	t.Parallel()
	gpus, err := ParseGPUs([]byte("0, GPU-a, NVIDIA A100-SXM4-40GB, [N/A], 10, 40960, 1410, 1410, [Not Supported], 61.5, Disabled\n" +
		"1, GPU-b, NVIDIA A100-SXM4-40GB, 3, 0, 40960, 210, 1410, 30, 55, Disabled\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 2 || gpus[1].Index != 1 || gpus[1].Utilization != 3 || !math.IsNaN(gpus[0].Utilization) || !math.IsNaN(gpus[0].Temperature) {
		t.Errorf("gpus %+v", gpus)
	}
	if s := gpuState(gpus[0]); s != "GPU 0 NVIDIA A100-SXM4-40GB: ?% used, SM clock 1410 of 1410 MHz, ? °C, 61.5 W, persistence mode disabled" {
		t.Errorf("state %q", s)
	}
	for _, bad := range []string{"x, GPU-a, n, 0, 0, 0, 0, 0, 0, 0, Enabled", "0, GPU-a"} {
		if _, err := ParseGPUs([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want an error naming line 1", bad, err)
		}
	}
	procs, err := ParseGPUProcesses([]byte("GPU-a, 12, /usr/bin/python3, 512\n\nGPU-b, 13, trainer, [N/A]\n"))
	if err != nil || len(procs) != 2 || procs[0].PID != 12 || procs[0].Memory != 512 || !math.IsNaN(procs[1].Memory) {
		t.Errorf("procs %+v, %v", procs, err)
	}
	if _, err := ParseGPUProcesses([]byte("GPU-a, twelve, p, 1")); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Errorf("a pid that is no number: %v", err)
	}
}

// TestInspectGPUPersistenceOff: a free GPU with persistence mode off is
// an info line saying what it costs the first run.
func TestInspectGPUPersistenceOff(t *testing.T) {
	t.Parallel()
	h, wait := withGPU(t, "quiet-bare-metal", "h200-idle")
	idle := "0, GPU-7eab79b8-65ad-88ce-b9e5-0c82b4f0aa05, NVIDIA H200, 0, 0, 143771, 405, 1980, 36, 94.51, Disabled\n"
	if err := os.WriteFile(filepath.Join(h.Root, "nvidia-smi", "query-gpu.csv"), []byte(idle), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(context.Background(), h, Options{Sample: time.Second, Self: 1, wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Checks[len(r.Checks)-1]
	if c.Status != Info || !strings.Contains(c.Why, "persistence mode is off") || r.Noisy() {
		t.Errorf("gpu %+v, verdict %s", c, r.Verdict())
	}
}

func FuzzParseGPUs(f *testing.F) {
	for _, name := range []string{"h200-idle", "h200-busy"} {
		for _, q := range []string{"query-gpu", "query-compute-apps"} {
			data, err := os.ReadFile(filepath.Join("testdata", "nvidia-smi", name, q+".csv"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("0, GPU-a, n, [N/A], 1, 2, 3, 4, 5, 6, Enabled\n1,,,,,,,,,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gpus, err := ParseGPUs(data)
		if err == nil {
			for _, g := range gpus {
				_ = gpuState(g)
			}
		}
		_, _ = ParseGPUProcesses(data)
	})
}

// TestGPUBusy: what `seshat run` asks before GPU runs (the recorded H200,
// idle and under a matmul loop; a host without nvidia-smi says nothing).
func TestGPUBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		gpu      string
		busy, ok bool
		what     string
	}{
		{"", false, false, ""},
		{"h200-idle", false, true, ""},
		{"h200-busy", true, true, "GPU used by python3"},
	} {
		h, _ := fixture(t, "quiet-bare-metal")
		if tc.gpu != "" {
			h, _ = withGPU(t, "quiet-bare-metal", tc.gpu)
		}
		busy, what, ok := h.GPUBusy(context.Background())
		if busy != tc.busy || ok != tc.ok || what != tc.what {
			t.Errorf("%q: GPUBusy() = %v, %q, %v; want %v, %q, %v", tc.gpu, busy, what, ok, tc.busy, tc.what, tc.ok)
		}
	}
}
