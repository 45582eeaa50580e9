package indicator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
)

// runPI runs a PI and decodes its pi.json; it skips the test when the
// framework is missing from every interpreter (CI installs them).
func runPI(t *testing.T, settings map[string]any) (models.PIResult, string) {
	t.Helper()
	var stderr bytes.Buffer
	data, err := Run(context.Background(), settings, Options{Stderr: &stderr, Dir: t.TempDir(), Env: os.Environ()})
	var mf *MissingFrameworkError
	if errors.As(err, &mf) {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	if err := ValidatePIJSON("pi.json", data); err != nil {
		t.Fatalf("invalid pi.json: %v\n%s", err, data)
	}
	var doc models.PIResult
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc, stderr.String()
}

func checkRate(t *testing.T, doc models.PIResult, flops float64, samples int) {
	t.Helper()
	r := doc.Result
	if r.FLOPs == nil || *r.FLOPs != flops {
		t.Errorf("flops %v, want %v", r.FLOPs, flops)
	}
	if r.Rate == nil || *r.Rate <= 0 {
		t.Fatalf("rate %v", r.Rate)
	}
	if want := flops / (r.Elapsed * 1e6); *r.Rate != want {
		t.Errorf("rate %v is not flops / median (%v)", *r.Rate, want)
	}
	if samples > 0 && len(r.SamplesMs) != samples {
		t.Errorf("%d samples, want %d", len(r.SamplesMs), samples)
	}
	if !(r.CI95Low <= r.Elapsed && r.Elapsed <= r.CI95High) {
		t.Errorf("median %v outside its CI [%v, %v]", r.Elapsed, r.CI95Low, r.CI95High)
	}
}

func TestRunPIs(t *testing.T) {
	t.Parallel()
	conv2d := map[string]any{"pi": "conv2d", "batch": 2, "input_height": 16, "input_width": 12, "input_channels": 3,
		"filter_height": 3, "filter_width": 3, "output_channels": 4, "strides": 2, "padding": 1, "repetitions": 8, "warmup": 1}
	conv1d := map[string]any{"pi": "conv1d", "batch": 2, "input_width": 40, "input_channels": 3,
		"filter_width": 5, "output_channels": 4, "strides": 1, "padding": "same", "repetitions": 8, "warmup": 1}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	convFLOPs2D := 2.0 * 2 * 8 * 6 * 3 * 3 * 3 * 4
	convFLOPs1D := 2.0 * 2 * 40 * 5 * 3 * 4
	tests := []struct {
		name     string
		settings map[string]any
		flops    float64
		samples  int
		versions []string
	}{
		{"gonum matmul float32", map[string]any{"pi": "matmul", "backend": "gonum", "matrix_size": 32, "repetitions": 20}, 2 * 32 * 32 * 32, 20, []string{"go"}},
		{"gonum matmul float64 auto", map[string]any{"pi": "matmul", "backend": "gonum", "matrix_size": 32, "dtype": "float64", "max_seconds": 1}, 2 * 32 * 32 * 32, 0, []string{"go"}},
		{"gonum conv2d NHWC", with(conv2d, "backend", "gonum", "data_format", "NHWC"), convFLOPs2D, 8, nil},
		{"gonum conv1d", with(conv1d, "backend", "gonum", "dtype", "float64"), convFLOPs1D, 8, nil},
		{"numpy matmul", map[string]any{"pi": "matmul", "backend": "numpy", "matrix_size": 64, "repetitions": 10}, 2 * 64 * 64 * 64, 10, []string{"numpy", "python", "blas"}},
		{"numpy matmul auto", map[string]any{"pi": "matmul", "backend": "numpy", "matrix_size": 64, "max_seconds": 1}, 2 * 64 * 64 * 64, 0, []string{"numpy"}},
		{"numpy conv2d", with(conv2d, "backend", "numpy"), convFLOPs2D, 8, []string{"numpy"}},
		{"numpy conv2d NHWC float64", with(conv2d, "backend", "numpy", "data_format", "NHWC", "dtype", "float64"), convFLOPs2D, 8, []string{"numpy"}},
		{"numpy conv1d", with(conv1d, "backend", "numpy"), convFLOPs1D, 8, []string{"numpy"}},
		{"torch matmul", map[string]any{"pi": "matmul", "backend": "torch", "matrix_size": 64, "repetitions": 10, "threads": 1}, 2 * 64 * 64 * 64, 10, []string{"torch", "python"}},
		{"torch conv2d", with(conv2d, "backend", "torch"), convFLOPs2D, 8, []string{"torch"}},
		{"torch conv2d channels last", with(conv2d, "backend", "torch", "data_format", "NHWC"), convFLOPs2D, 8, []string{"torch"}},
		{"torch conv1d", with(conv1d, "backend", "torch"), convFLOPs1D, 8, []string{"torch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc, stderr := runPI(t, tc.settings)
			checkRate(t, doc, tc.flops, tc.samples)
			if doc.Component != tc.settings["backend"] {
				t.Errorf("component %q", doc.Component)
			}
			for _, v := range tc.versions {
				if doc.Versions[v] == "" {
					t.Errorf("versions lack %q: %v", v, doc.Versions)
				}
			}
			// The BLAS library by name and version ("openblas 0.3.21"),
			// never the path of a file.
			if b := doc.Versions["blas"]; strings.Contains(b, "/") || (b != "" && !regexp.MustCompile(`^[a-z]+( [0-9][^ ,]*)?(, [a-z]+( [0-9][^ ,]*)?)*$`).MatchString(b)) {
				t.Errorf("versions.blas %q is not a library name and version", b)
			}
			if !strings.Contains(stderr, "seshat pi: "+doc.Name) {
				t.Errorf("no summary line on stderr:\n%s", stderr)
			}
		})
	}
}

func TestRunImport(t *testing.T) {
	t.Parallel()
	doc, _ := runPI(t, map[string]any{"pi": "import", "backend": "numpy", "repetitions": 3, "warmup": 0})
	if doc.Name != "PiImport" || len(doc.Result.SamplesMs) != 3 || doc.Result.Elapsed <= 0 || doc.Result.Rate != nil {
		t.Errorf("import result %+v", doc)
	}
	if doc.Versions["numpy"] == "" {
		t.Errorf("versions %v", doc.Versions)
	}
}

func TestMissingFrameworkFailsClearly(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), map[string]any{"pi": "import", "backend": "numpy", "module": "seshat_no_such_module"}, Options{})
	var mf *MissingFrameworkError
	if !errors.As(err, &mf) {
		t.Fatalf("error %v, want a MissingFrameworkError", err)
	}
	for _, want := range []string{"seshat_no_such_module cannot be imported", DebianPython, "python` setting"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestExplicitPythonMissing(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), map[string]any{"pi": "matmul", "backend": "numpy", "python": "/nonexistent/python3"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Fatalf("error %v does not name the interpreter", err)
	}
}

// TestTorchGPUWithoutCUDA: on a machine without CUDA a gpu run fails with a
// message saying so (on a GPU machine the run must succeed instead).
func TestTorchGPUWithoutCUDA(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	settings := map[string]any{"pi": "matmul", "backend": "torch", "device": "gpu", "matrix_size": 64, "repetitions": 5}
	data, err := Run(context.Background(), settings, Options{Stderr: &stderr, Env: os.Environ()})
	var mf *MissingFrameworkError
	if errors.As(err, &mf) {
		t.Skipf("skipped: %v", err)
	}
	if err == nil {
		var doc models.PIResult
		if jerr := json.Unmarshal(data, &doc); jerr != nil || doc.Versions["gpu"] == "" {
			t.Fatalf("gpu run succeeded without naming its GPU: %s", data)
		}
		t.Logf("CUDA is available here: %s %s", doc.Versions["gpu"], data)
		return
	}
	if !strings.Contains(err.Error(), "device: gpu, but CUDA is not available") {
		t.Errorf("error %q does not say CUDA is missing", err)
	}
}

func TestExec(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	good := `{"component": "mytool", "name": "PiCustom", "@parameters": {"n": 512}, "@result": {"rate": 1.5, "elapsed": 2.0, "samples_ms": [2.0]}, "versions": {"mytool": "2.1"}, "extra": true}`
	unversioned := `{"component": "mytool", "name": "PiCustom", "@result": {"elapsed": 2.0}}`
	tests := []struct {
		name     string
		script   string
		settings map[string]any
		wantErr  string
	}{
		{name: "valid document", script: "echo diagnostics >&2; printf '%s' '" + good + "'"},
		{name: "not JSON", script: "echo hello", wantErr: "the command's stdout:1: invalid character 'h' looking for beginning of value (command sh -c echo hello)"},
		{name: "no version", script: "echo '" + unversioned + "'",
			wantErr: `the command's stdout: field versions.mytool: required: the version of what the command measured labels its runs (framework_version); print "versions": {"mytool": "1.2.3"} or set framework_version in the benchmark file (command sh -c echo`},
		{name: "version as a setting", script: "echo '" + unversioned + "'", settings: map[string]any{"framework_version": "2.1"}},
		{name: "no name", script: `echo '{"component": "x", "@result": {"elapsed": 1}}'`, wantErr: "field name: required"},
		{name: "negative elapsed", script: `echo '{"component": "x", "name": "y", "@result": {"elapsed": -1}}'`, wantErr: "elapsed >= 0"},
		{name: "command fails", script: "exit 7", wantErr: "command sh -c exit 7: exit status 7"},
		{name: "command fails, saying why", script: "echo progress >&2; echo 'error: no model.bin' >&2; echo >&2; exit 3",
			wantErr: "error: no model.bin (command sh -c echo progress"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			settings := map[string]any{"pi": "exec", "command": []any{"sh", "-c", tc.script}}
			for k, v := range tc.settings {
				settings[k] = v
			}
			data, err := Run(context.Background(), settings, Options{Stdout: &stdout})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.settings != nil {
				return
			}
			if string(data) != good {
				t.Errorf("pi.json %q must be the command's document as printed", data)
			}
			if stdout.String() != good {
				t.Errorf("the command's stdout must reach the run's stdout log, got %q", stdout.String())
			}
		})
	}
}

func TestRunInvalidSettingsIsInvalidInput(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), map[string]any{"pi": "matmul"}, Options{})
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("exit code %v for %v", exitcode.Of(err), err)
	}
}

// TestChildrenGetTheGivenEnvironment: the exec and Python children get
// Options.Env, not this process's environment (cmd/seshat passes that
// down; no package below cmd reads it).
func TestChildrenGetTheGivenEnvironment(t *testing.T) {
	t.Setenv("SESHAT_TEST_BASE", "process")
	given := []string{"SESHAT_TEST_BASE=given", "PATH=" + os.Getenv("PATH")}
	t.Run("exec", func(t *testing.T) {
		doc := `{"component": "env", "name": "'"$SESHAT_TEST_BASE"'", "@result": {"elapsed": 1}, "versions": {"env": "1"}}`
		data, err := Run(context.Background(), map[string]any{"pi": "exec", "command": []any{"sh", "-c", "printf '%s' '" + doc + "'"}}, Options{Env: given})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"name": "given"`) {
			t.Errorf("the command saw another environment: %s", data)
		}
	})
	t.Run("python", func(t *testing.T) {
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3")
		}
		program := `import json, os; os.fdopen(3, "w").write(json.dumps({"error": os.environ.get("SESHAT_TEST_BASE", "") + " " + os.environ.get("OMP_NUM_THREADS", "")}))`
		pp, err := startPython(context.Background(), python, program, nil, threadEnv(2), Options{Env: given, Stdout: io.Discard, Stderr: io.Discard}, false)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pp.read("none")
		if err == nil || err.Error() != "given 2" {
			t.Errorf("Python saw SESHAT_TEST_BASE and OMP_NUM_THREADS %q, want \"given 2\"", err)
		}
	})
}
