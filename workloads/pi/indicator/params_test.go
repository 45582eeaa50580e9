package indicator

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/workloads/pi/kernels"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		errKey   string // the setting the error must name; "" = valid
		check    func(t *testing.T, p *Params)
	}{
		{
			name:     "matmul defaults",
			settings: map[string]any{"pi": "matmul", "backend": "gonum"},
			check: func(t *testing.T, p *Params) {
				if p.MatrixSize != 512 || p.Dtype != "float32" || p.Device != "cpu" || !p.Plan.Auto ||
					p.Plan.Warmup != 5 || p.Plan.TargetCI != 0.01 || p.Plan.MaxDuration != 10*time.Second {
					t.Errorf("defaults: %+v", p)
				}
				if p.Threads != 1 || p.Parameters()["threads"] != 1 {
					t.Errorf("gonum runs single-threaded unless asked: threads %d", p.Threads)
				}
				if p.FLOPs() != 2*512*512*512 || p.Name() != "PiMatmul" {
					t.Errorf("FLOPs %v name %q", p.FLOPs(), p.Name())
				}
			},
		},
		{
			name:     "fixed repetitions",
			settings: map[string]any{"pi": "matmul", "backend": "numpy", "repetitions": 200, "warmup": 0, "matrix_size": 64, "dtype": "float64"},
			check: func(t *testing.T, p *Params) {
				if p.Threads != 0 {
					t.Errorf("numpy keeps its own threading: threads %d", p.Threads)
				}
				if p.Plan.Auto || p.Plan.Repetitions != 200 || p.Plan.Warmup != 0 || p.MatrixSize != 64 {
					t.Errorf("plan %+v size %d", p.Plan, p.MatrixSize)
				}
			},
		},
		{
			name:     "auto with its knobs",
			settings: map[string]any{"pi": "matmul", "backend": "gonum", "repetitions": "auto", "target_ci": 0.005, "max_seconds": 2.5},
			check: func(t *testing.T, p *Params) {
				if !p.Plan.Auto || p.Plan.TargetCI != 0.005 || p.Plan.MaxDuration != 2500*time.Millisecond {
					t.Errorf("plan %+v", p.Plan)
				}
			},
		},
		{
			name:     "conv2d thoth defaults",
			settings: map[string]any{"pi": "conv2d", "backend": "torch"},
			check: func(t *testing.T, p *Params) {
				want := kernels.ConvGeometry{Batch: 4, InH: 700, InW: 161, InC: 1, KH: 20, KW: 5, OutC: 32, Stride: 2, PadH: 1, PadW: 1}
				if p.Conv != want || p.ChannelsLast || p.Name() != "PiConv2D" {
					t.Errorf("geometry %+v channels last %v", p.Conv, p.ChannelsLast)
				}
			},
		},
		{
			name:     "conv1d same padding, channels last",
			settings: map[string]any{"pi": "conv1d", "backend": "gonum", "strides": 1, "filter_width": 5, "padding": "same", "data_format": "NWC"},
			check: func(t *testing.T, p *Params) {
				if p.Conv.InH != 1 || p.Conv.KH != 1 || p.Conv.PadW != 2 || p.Conv.PadH != 0 || !p.ChannelsLast || p.Conv.OutW() != p.Conv.InW {
					t.Errorf("geometry %+v", p.Conv)
				}
				if p.Name() != "PiConv1D" {
					t.Errorf("name %q", p.Name())
				}
			},
		},
		{
			name:     "conv1d ignores heights (shared with conv2d in a matrix)",
			settings: map[string]any{"pi": "conv1d", "backend": "gonum", "input_height": 32, "filter_height": 3},
			check: func(t *testing.T, p *Params) {
				if p.Conv.InH != 1 || p.Conv.KH != 1 {
					t.Errorf("geometry %+v", p.Conv)
				}
				if _, ok := p.Parameters()["input_height"]; ok {
					t.Error("conv1d reports no height")
				}
			},
		},
		{
			name:     "import defaults",
			settings: map[string]any{"pi": "import", "backend": "torch"},
			check: func(t *testing.T, p *Params) {
				if p.Module != "torch" || p.Plan.Auto || p.Plan.Repetitions != 5 || p.Plan.Warmup != 1 || p.FLOPs() != 0 {
					t.Errorf("%+v", p)
				}
			},
		},
		{
			name:     "exec substitutes settings",
			settings: map[string]any{"pi": "exec", "matrix_size": 512, "ratio": 0.5, "command": []any{"./pi", "--n={matrix_size}", "{ratio}", "${HOME}", `{"json": 1}`, 3}},
			check: func(t *testing.T, p *Params) {
				want := []string{"./pi", "--n=512", "0.5", "${HOME}", `{"json": 1}`, "3"}
				if !reflect.DeepEqual(p.Command, want) {
					t.Errorf("command %q, want %q", p.Command, want)
				}
			},
		},
		{name: "pi missing", settings: map[string]any{"backend": "gonum"}, errKey: "pi"},
		{name: "pi unknown", settings: map[string]any{"pi": "fft", "backend": "gonum"}, errKey: "pi"},
		{name: "backend missing", settings: map[string]any{"pi": "matmul"}, errKey: "backend"},
		{name: "gonum cannot import", settings: map[string]any{"pi": "import", "backend": "gonum"}, errKey: "backend"},
		{name: "gonum on gpu", settings: map[string]any{"pi": "matmul", "backend": "gonum", "device": "gpu"}, errKey: "device"},
		{name: "numpy on gpu", settings: map[string]any{"pi": "matmul", "backend": "numpy", "device": "gpu"}, errKey: "device"},
		{name: "unknown device", settings: map[string]any{"pi": "matmul", "backend": "torch", "device": "tpu"}, errKey: "device"},
		{name: "gonum float16", settings: map[string]any{"pi": "matmul", "backend": "gonum", "dtype": "float16"}, errKey: "dtype"},
		{name: "numpy threads and openblas_num_threads", settings: map[string]any{"pi": "matmul", "backend": "numpy", "threads": 2, "openblas_num_threads": 1}, errKey: "openblas_num_threads"},
		{name: "torch import threads and omp_num_threads", settings: map[string]any{"pi": "import", "backend": "torch", "threads": 2, "omp_num_threads": 1}, errKey: "omp_num_threads"},
		{name: "numpy with a thread variable only", settings: map[string]any{"pi": "matmul", "backend": "numpy", "mkl_num_threads": 1},
			check: func(t *testing.T, p *Params) {
				if p.Threads != 0 {
					t.Errorf("threads %d", p.Threads)
				}
			}},
		{name: "gonum threads beside a thread variable it ignores", settings: map[string]any{"pi": "matmul", "backend": "gonum", "threads": 2, "omp_num_threads": 1},
			check: func(t *testing.T, p *Params) {
				if p.Threads != 2 {
					t.Errorf("threads %d", p.Threads)
				}
			}},
		{name: "size not a number", settings: map[string]any{"pi": "matmul", "backend": "gonum", "matrix_size": "big"}, errKey: "matrix_size"},
		{name: "size zero", settings: map[string]any{"pi": "matmul", "backend": "gonum", "matrix_size": 0}, errKey: "matrix_size"},
		{name: "size absurd", settings: map[string]any{"pi": "matmul", "backend": "gonum", "matrix_size": 1 << 30}, errKey: "matrix_size"},
		{name: "conv absurd", settings: map[string]any{"pi": "conv2d", "backend": "gonum", "batch": 1 << 20, "input_height": 1 << 12}, errKey: "batch/input_*/filter_*"},
		{name: "repetitions bad", settings: map[string]any{"pi": "matmul", "backend": "gonum", "repetitions": "many"}, errKey: "repetitions"},
		{name: "target_ci too wide", settings: map[string]any{"pi": "matmul", "backend": "gonum", "target_ci": 2}, errKey: "target_ci"},
		{name: "warmup negative", settings: map[string]any{"pi": "matmul", "backend": "gonum", "warmup": -1}, errKey: "warmup"},
		{name: "conv2d 1-D format", settings: map[string]any{"pi": "conv2d", "backend": "gonum", "data_format": "NCW"}, errKey: "data_format"},
		{name: "same with stride 2", settings: map[string]any{"pi": "conv2d", "backend": "gonum", "padding": "same"}, errKey: "padding"},
		{name: "filter larger than input", settings: map[string]any{"pi": "conv2d", "backend": "gonum", "input_height": 4, "filter_height": 9, "padding": 0}, errKey: "filter_height/filter_width"},
		{name: "exec without command", settings: map[string]any{"pi": "exec"}, errKey: "command"},
		{name: "exec command not a list", settings: map[string]any{"pi": "exec", "command": "./pi"}, errKey: "command"},
		{name: "exec unknown placeholder", settings: map[string]any{"pi": "exec", "command": []any{"./pi", "{nope}"}}, errKey: "command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Decode(tc.settings)
			if tc.errKey == "" {
				if err != nil {
					t.Fatal(err)
				}
				tc.check(t, p)
				return
			}
			var se *SettingError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SettingError naming %s", err, tc.errKey)
			}
			if se.Key != tc.errKey || !strings.HasPrefix(err.Error(), "setting "+tc.errKey+": ") {
				t.Errorf("error %q names %q, want %q", err, se.Key, tc.errKey)
			}
		})
	}
}

func TestParametersUseThothNames(t *testing.T) {
	t.Parallel()
	p, err := Decode(map[string]any{"pi": "conv2d", "backend": "gonum", "repetitions": 10})
	if err != nil {
		t.Fatal(err)
	}
	m := p.Parameters()
	for _, k := range []string{"batch", "input_height", "input_width", "input_channels", "filter_height", "filter_width",
		"output_channels", "strides", "padding", "data_format", "dtype", "device", "repetitions", "warmup"} {
		if _, ok := m[k]; !ok {
			t.Errorf("@parameters lacks %q: %v", k, m)
		}
	}
}
