package scripts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// fakeCUDA makes a CPU-only torch believe it has a CUDA device: "cuda"
// devices are the CPU, and every torch.cuda.synchronize() is counted and
// the count printed at exit. It lets the GPU branch of torch_pi.py (device
// selection, synchronisation around each sample) run on machines without a
// GPU; the real thing runs on a GPU machine.
const fakeCUDA = `
import atexit, sys, torch
_syncs = [0]
def _sync(*a, **k):
    _syncs[0] += 1
torch.cuda.is_available = lambda: True
torch.cuda.current_device = lambda: 0
torch.cuda.get_device_name = lambda *a: "Fake GPU"
torch.cuda.synchronize = _sync
torch.backends.cudnn.version = lambda: 8902
_device = torch.device
torch.device = lambda kind, *a: _device("cpu") if kind == "cuda" else _device(kind, *a)
atexit.register(lambda: print("SYNC_CALLS=%d" % _syncs[0], file=sys.stderr))
`

// found caches, by module, the interpreter pythonWith found ("" for none):
// one probe a module for the whole package.
var found = struct {
	sync.Mutex
	python map[string]string
}{python: map[string]string{}}

// pythonWith returns an interpreter that has module, or skips. The probe
// finds the module without importing it: an import of torch costs 1.5 to 2
// CPU seconds, and the test that runs the program imports it anyway (a
// module that is there but fails to import fails that test).
func pythonWith(t *testing.T, module string) string {
	t.Helper()
	found.Lock()
	python, probed := found.python[module]
	if !probed {
		for _, p := range []string{"/usr/bin/python3", "python3"} {
			if exec.Command(p, "-c", findSpec, module).Run() == nil {
				python = p
				break
			}
		}
		found.python[module] = python
	}
	found.Unlock()
	if python == "" {
		t.Skipf("skipped: no python3 here imports %s (CI installs python3-%s)", module, module)
	}
	return python
}

// talk runs a benchmark program through the protocol: ready, one warm-up
// request, one timing request; it returns the answers and stderr.
func talk(t *testing.T, python, program string, params map[string]any, warmup, samples int) ([]map[string]any, string) {
	t.Helper()
	arg, _ := json.Marshal(params)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(python, "-c", program, string(arg))
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader(
		`{"warmup": ` + itoa(warmup) + "}\n" + `{"time": ` + itoa(samples) + "}\n")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var answers []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a map[string]any
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\nanswers: %v\n%s", err, answers, stderr.String())
	}
	return answers, stderr.String()
}

// findSpec exits 0 when the module its argument names can be imported.
const findSpec = "import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)"

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestTorchGPUPathSynchronises(t *testing.T) {
	t.Parallel()
	python := pythonWith(t, "torch")
	prog, err := Benchmark("torch")
	if err != nil {
		t.Fatal(err)
	}
	conv := map[string]any{"batch": 1, "input_height": 8, "input_width": 8, "input_channels": 2,
		"filter_height": 3, "filter_width": 3, "output_channels": 4, "strides": 1, "pad_height": 1, "pad_width": 1}
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"matmul", map[string]any{"pi": "matmul", "matrix_size": 16, "channels_last": false}},
		{"conv2d", map[string]any{"pi": "conv2d", "geometry": conv, "out_height": 8, "out_width": 8, "channels_last": false}},
		{"conv2d channels last", map[string]any{"pi": "conv2d", "geometry": conv, "out_height": 8, "out_width": 8, "channels_last": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.params["device"], tc.params["dtype"], tc.params["seed"] = "gpu", "float32", 1
			answers, stderr := talk(t, python, fakeCUDA+prog, tc.params, 2, 3)
			if len(answers) != 3 {
				t.Fatalf("answers %v\n%s", answers, stderr)
			}
			ready, _ := answers[0]["ready"].(map[string]any)
			versions, _ := ready["versions"].(map[string]any)
			if versions["gpu"] != "Fake GPU" || versions["cudnn"] != "8902" {
				t.Errorf("ready %v", answers[0])
			}
			if s, _ := answers[2]["samples_ms"].([]any); len(s) != 3 {
				t.Errorf("samples %v", answers[2])
			}
			// One after the setup's trial run, one after the warm-up, and one
			// before and after each of the 3 samples.
			m := regexp.MustCompile(`SYNC_CALLS=(\d+)`).FindStringSubmatch(stderr)
			if m == nil || m[1] != "8" {
				t.Errorf("synchronize calls %v, want 8\n%s", m, stderr)
			}
		})
	}
}

func TestTorchGPUWithoutCUDA(t *testing.T) {
	t.Parallel()
	python := pythonWith(t, "torch")
	prog, _ := Benchmark("torch")
	arg, _ := json.Marshal(map[string]any{"pi": "matmul", "matrix_size": 8, "device": "gpu", "dtype": "float32", "seed": 1})
	r, w, _ := os.Pipe()
	defer r.Close()
	cmd := exec.Command(python, "-c", prog, string(arg))
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var a map[string]any
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		if _, failed := a["error"]; !failed {
			// One torch import less than asking torch first: the
			// program itself found CUDA and ran.
			t.Skip("skipped: CUDA is available here")
		}
		t.Error("the program must exit non-zero")
	}
	if msg, _ := a["error"].(string); !strings.Contains(msg, "device: gpu, but CUDA is not available") {
		t.Errorf("answer %v", a)
	}
}

func TestBenchmarkPrograms(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"numpy", "torch"} {
		p, err := Benchmark(b)
		if err != nil || !strings.Contains(p, "def main(setup)") || !strings.HasSuffix(p, "main(setup)\n") {
			t.Errorf("%s: %v", b, err)
		}
	}
	if _, err := Benchmark("gonum"); err == nil {
		t.Error("gonum has no Python program")
	}
	if Module("torch") != "torch" || Module("numpy") != "numpy" || !strings.Contains(Import(), "import_module") {
		t.Error("Module/Import")
	}
}
