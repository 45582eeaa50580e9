package pi

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

var _ workloads.KPIProvider = Workload{}

func f64(v float64) *float64 { return &v }

var start = time.Date(2025, 3, 14, 2, 0, 0, 0, time.UTC)

// run builds a parsed pi entry without files: the KPIs and labels only see
// the typed Results.
func run(settings models.Settings, code int, r *Results) *store.Entry {
	return &store.Entry{Path: "expe/001", Workload: Name, Settings: settings, ExitCode: &code, Complete: true, Results: r}
}

func numpyResults() *Results {
	return &Results{
		UUID: "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11",
		PI: &models.PIResult{
			Component: "numpy", Name: "PiMatmul",
			Parameters: map[string]any{"matrix_size": 1024.0, "dtype": "float32", "device": "cpu", "repetitions": 20.0, "warmup": 3.0},
			Result: models.PIMeasurement{Rate: f64(443.5), Elapsed: 4.8, FLOPs: f64(2147483648),
				SamplesMs: []float64{4.8, 4.9}, CI95Low: 4.75, CI95High: 4.99, CV: 0.04},
			Versions: map[string]string{"numpy": "1.26.4", "blas": "openblas 0.3.23.dev"},
		},
		HWInfo: &models.HWInfo{
			Kernel: "6.5.0-1025-azure", OS: models.OSRelease{ID: "ubuntu", VersionID: "22.04", PrettyName: "Ubuntu 22.04.4 LTS"},
			CPU: models.CPUInfo{Model: "AMD EPYC 7763 64-Core Processor"}, GoVersion: "go1.26.0",
		},
		Usage: &models.Usage{Start: start, End: start.Add(5 * time.Second), WallSeconds: 5,
			Rusage:    models.Rusage{UtimeSeconds: 5.25, StimeSeconds: 0.5, MaxRSSBytes: 96 << 20},
			HostStart: &models.HostState{LoadAvg: []float64{1.5, 1.25, 1}, CPUStallUS: new(int64(7_000_000))},
			HostEnd:   &models.HostState{LoadAvg: []float64{1.6, 1.25, 1}, CPUStallUS: new(int64(9_000_000))}},
		Config: json.RawMessage(`{"pi":"matmul"}`),
		URLs:   map[string]string{"artifacts": "https://ci.example/r/expe/001/", "pi.json": "https://ci.example/r/expe/001/pi.json"},
	}
}

func numpySettings() models.Settings {
	return models.Settings{"workload": "pi", "pi": "matmul", "backend": "numpy", "matrix_size": 1024, "dtype": "float32", "device": "cpu", "@repeat": 0}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	cat := Workload{}.KPIs()
	if cat.SettingsVersion() != KPISettingsVersion {
		t.Errorf("version %s", cat.SettingsVersion())
	}
	tests := []struct {
		kpi      string
		dir      kpi.Direction
		ignored  bool
		v        float64
		display  string
		omMetric string
	}{
		{"rate_gflops", kpi.HigherIsBetter, false, 443.456, "443.46 GFLOPS", "pi_rate_gflops"},
		{"elapsed_ms", kpi.LowerIsBetter, false, 4.8416, "4.842 ms", "pi_elapsed_ms"},
		{"elapsed_ci95_rel", kpi.LowerIsBetter, true, 0.0493, "4.93 %", "pi_elapsed_ci95_rel"},
		{"max_rss_bytes", kpi.LowerIsBetter, false, 96 << 20, "96.0 MiB", "pi_max_rss_bytes"},
		{"cpu_seconds", kpi.LowerIsBetter, false, 5.75, "5.750 seconds", "pi_cpu_seconds"},
		{"import_seconds", kpi.LowerIsBetter, false, 0.125, "0.125 seconds", "pi_import_seconds"},
	}
	if len(cat.Definitions()) != len(tests) {
		t.Errorf("%d KPIs, want %d", len(cat.Definitions()), len(tests))
	}
	for _, tt := range tests {
		d, ok := cat.Definition(tt.kpi)
		if !ok {
			t.Errorf("%s: not declared", tt.kpi)
			continue
		}
		if d.Direction != tt.dir || d.IgnoredForRegression != tt.ignored {
			t.Errorf("%s: %s, ignored %v", tt.kpi, d.Direction, d.IgnoredForRegression)
		}
		if got := d.Display(tt.v); got != tt.display {
			t.Errorf("%s: Display(%v) = %q, want %q", tt.kpi, tt.v, got, tt.display)
		}
		if got := kpi.MetricName(Name, tt.kpi); got != tt.omMetric {
			t.Errorf("metric name %s", got)
		}
	}
}

func TestPayloadOfANumpyRun(t *testing.T) {
	t.Parallel()
	p, warnings := lts.Build(run(numpySettings(), 0, numpyResults()), Workload{}, lts.Options{})
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if err := lts.Validate(p, Workload{}.KPIs()); err != nil {
		t.Fatalf("strict validation: %v", err)
	}
	want := map[string]string{
		"workload": "pi", "kpi_settings_version": "1.0.0", "pi": "matmul", "backend": "numpy",
		"framework": "numpy", "framework_version": "1.26.4", "blas": "openblas 0.3.23.dev",
		"device": "cpu", "dtype": "float32", "matrix_size": "1024",
		"cpu_model": "AMD EPYC 7763 64-Core Processor", "os": "ubuntu 22.04", "kernel": "6.5.0-1025-azure",
	}
	checkLabels(t, p.Metadata.Labels, want)
	if p.Metadata.TestUUID != "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11" || !p.Metadata.Start.Equal(start) || p.Metadata.URLs["pi.json"] == "" {
		t.Errorf("metadata: %+v", p.Metadata)
	}
	// The host's load at the start is the run's, for history to compare.
	if l := lts.RecordOf(p).HostLoad; l == nil || *l != 1.5 {
		t.Errorf("host load %v, want 1.5 (usage.json host_start)", l)
	}
	if s := lts.RecordOf(p).CPUShare; s != 5.75/5 {
		t.Errorf("CPU share %v, want %v (usage.json rusage over wall)", s, 5.75/5)
	}
	// Some task waited for a CPU 2 s of the run's 5.
	if v := lts.RecordOf(p).CPUPressure; v == nil || *v != 0.4 {
		t.Errorf("CPU pressure %v, want 0.4 (usage.json host_end.cpu_stall_us - host_start's, over wall)", v)
	}
	res := p.Results.(*PayloadResults)
	if res.PI == nil || res.HWInfo == nil || res.Usage == nil || string(res.Config) != `{"pi":"matmul"}` {
		t.Errorf("results: %+v", res)
	}
	values := map[string]float64{}
	for k, v := range p.KPIs {
		values[k] = v.Value
	}
	wantKPIs := map[string]float64{
		"rate_gflops": 443.5, "elapsed_ms": 4.8, "elapsed_ci95_rel": (4.99 - 4.75) / 4.8,
		"max_rss_bytes": 96 << 20, "cpu_seconds": 5.75,
	}
	if len(values) != len(wantKPIs) {
		t.Errorf("KPIs %v, want %v (no import_seconds for matmul)", values, wantKPIs)
	}
	for k, v := range wantKPIs {
		if math.Abs(values[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, values[k], v)
		}
	}
	if !p.KPIs["rate_gflops"].Timestamp.Equal(start) || p.KPIs["rate_gflops"].LowerBetter {
		t.Errorf("rate_gflops: %+v", p.KPIs["rate_gflops"])
	}
}

func checkLabels(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected label %s = %q", k, got[k])
		}
	}
}

func TestLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings models.Settings
		results  func(r *Results)
		want     map[string]string
	}{
		{"gonum carries the Go version and its BLAS",
			models.Settings{"pi": "matmul", "backend": "gonum"},
			func(r *Results) {
				r.PI.Component = "gonum"
				r.PI.Versions = map[string]string{"gonum": "v0.17.0", "go": "go1.26.0"}
			},
			map[string]string{"backend": "gonum", "framework": "gonum", "framework_version": "v0.17.0+go1.26.0", "blas": "gonum"}},
		{"framework version from hwinfo when pi.json has none",
			models.Settings{"pi": "matmul", "backend": "numpy"},
			func(r *Results) {
				r.PI.Versions = nil
				r.HWInfo.Versions = map[string]string{"numpy": "2.0.1"}
			},
			map[string]string{"backend": "numpy", "framework": "numpy", "framework_version": "2.0.1"}},
		{"torch on a GPU",
			models.Settings{"pi": "conv2d", "backend": "torch", "device": "gpu"},
			func(r *Results) {
				r.PI.Component = "torch"
				r.PI.Name = "PiConv2D"
				r.PI.Parameters = map[string]any{"batch": 4.0, "input_height": 700.0, "input_width": 161.0, "input_channels": 1.0,
					"filter_height": 20.0, "filter_width": 5.0, "output_channels": 32.0, "strides": 2.0, "padding": "same",
					"data_format": "NCHW", "dtype": "bfloat16", "device": "gpu", "repetitions": "auto"}
				r.PI.Versions = map[string]string{"torch": "2.3.1+cu121"}
				r.HWInfo.GPUs = []models.GPU{{Name: "NVIDIA H100 80GB HBM3", CUDA: "12.4"}, {Index: 1, Name: "NVIDIA H100 80GB HBM3"}}
			},
			map[string]string{"pi": "conv2d", "backend": "torch", "framework": "torch", "framework_version": "2.3.1+cu121",
				"device": "gpu", "dtype": "bfloat16", "gpu_model": "NVIDIA H100 80GB HBM3", "cuda_version": "12.4",
				"batch": "4", "input_height": "700", "input_width": "161", "input_channels": "1", "filter_height": "20",
				"filter_width": "5", "output_channels": "32", "strides": "2", "padding": "same", "data_format": "NCHW"}},
		{"pi and backend from pi.json when the settings lack them",
			models.Settings{},
			func(r *Results) {},
			map[string]string{"pi": "matmul", "backend": "numpy", "framework": "numpy"}},
		{"the thread variables of numpy's environment, one label each",
			models.Settings{"pi": "matmul", "backend": "numpy"},
			func(r *Results) {
				r.Usage.Threads = map[string]string{"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}
			},
			map[string]string{"openblas_num_threads": "1", "omp_num_threads": "4", "mkl_num_threads": "", "threads": ""}},
		{"numpy given threads: the threads label alone, the variables were its own",
			models.Settings{"pi": "matmul", "backend": "numpy", "threads": 2},
			func(r *Results) {
				r.PI.Parameters["threads"] = 2.0
				r.Usage.Threads = map[string]string{"OPENBLAS_NUM_THREADS": "1"}
			},
			map[string]string{"threads": "2", "openblas_num_threads": ""}},
		{"gonum reads no thread variable",
			models.Settings{"pi": "matmul", "backend": "gonum"},
			func(r *Results) {
				r.PI.Component = "gonum"
				r.PI.Parameters["threads"] = 1.0
				r.Usage.Threads = map[string]string{"OMP_NUM_THREADS": "8"}
			},
			map[string]string{"threads": "1", "omp_num_threads": ""}},
		{"an exec PI's command may read them all",
			models.Settings{"pi": "exec"},
			func(r *Results) {
				r.PI.Component, r.PI.Name = "llama.cpp", "PiServe"
				r.Usage.Threads = map[string]string{"MKL_NUM_THREADS": "16"}
			},
			map[string]string{"pi": "exec", "backend": "llama.cpp", "mkl_num_threads": "16"}},
		{"an exec PI's labels from its settings: framework_version, device cpu by default",
			models.Settings{"pi": "exec", "framework_version": "3.1"},
			func(r *Results) {
				r.PI.Component, r.PI.Name, r.PI.Versions = "sh", "PiExample", nil
				delete(r.PI.Parameters, "device")
			},
			map[string]string{"framework": "sh", "framework_version": "3.1", "device": "cpu"}},
		{"what the exec PI printed wins over its settings",
			models.Settings{"pi": "exec", "framework_version": "3.1", "device": "cpu"},
			func(r *Results) {
				r.PI.Component, r.PI.Versions = "mytool", map[string]string{"mytool": "4.0"}
				r.PI.Parameters["device"] = "gpu"
			},
			map[string]string{"framework": "mytool", "framework_version": "4.0", "device": "gpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := numpyResults()
			tt.results(r)
			labels := map[string]string{}
			fillLabels(labels, tt.settings, r)
			for k, v := range tt.want {
				if got, set := labels[k]; got != v || set != (v != "") {
					t.Errorf("label %s = %q (set: %v), want %q (all: %v)", k, got, set, v, labels)
				}
			}
			if _, gpu := tt.want["gpu_model"]; !gpu && labels["gpu_model"] != "" {
				t.Errorf("gpu_model %q on a CPU run", labels["gpu_model"])
			}
		})
	}
}

func TestImportPI(t *testing.T) {
	t.Parallel()
	r := numpyResults()
	r.PI.Name = "PiImport"
	r.PI.Parameters = map[string]any{"module": "numpy", "device": "cpu", "repetitions": 5.0}
	r.PI.Result = models.PIMeasurement{Elapsed: 125, SamplesMs: []float64{125}, CI95Low: 120, CI95High: 130}
	settings := models.Settings{"workload": "pi", "pi": "import", "backend": "numpy"}
	p, warnings := lts.Build(run(settings, 0, r), Workload{}, lts.Options{})
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if err := lts.Validate(p, Workload{}.KPIs()); err != nil {
		t.Errorf("strict: %v", err)
	}
	if _, ok := p.KPIs["rate_gflops"]; ok {
		t.Error("rate_gflops for the import PI, which has no rate")
	}
	if got := p.KPIs["import_seconds"].Value; got != 0.125 {
		t.Errorf("import_seconds = %v, want 0.125", got)
	}
	if p.Metadata.Labels["module"] != "numpy" || p.Metadata.Labels["dtype"] != "" {
		t.Errorf("labels: %v", p.Metadata.Labels)
	}
}

func TestLenientPayloads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		code     int
		results  func(r *Results) *Results
		warnings []string
		strict   string
	}{
		{"missing pi.json", 0, func(r *Results) *Results { r.PI = nil; return r },
			[]string{"kpi elapsed_ci95_rel: not computed: no pi.json", "kpi elapsed_ms: not computed: no pi.json", "kpi rate_gflops: not computed: no pi.json"},
			"results.pi: required; metadata.labels.framework_version: required"},
		{"missing usage.json", 0, func(r *Results) *Results { r.Usage = nil; return r },
			[]string{"kpi cpu_seconds: not computed: no usage.json", "kpi max_rss_bytes: not computed: no usage.json"},
			"metadata.start: required; metadata.end: required; results.usage: required"},
		{"zero rate", 0, func(r *Results) *Results { r.PI.Result.Rate = f64(0); return r },
			[]string{"kpi rate_gflops: not computed: rate 0 is not positive"}, ""},
		{"failed run", 1, func(r *Results) *Results { r.PI = nil; return r },
			[]string{"exit code 1: no KPIs for a failed run"}, "results.pi: required"},
		{"parse failed", 0, func(*Results) *Results { return nil },
			[]string{"kpi cpu_seconds: not computed: the payload has no results"}, "metadata.test_uuid: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, warnings := lts.Build(run(numpySettings(), tt.code, tt.results(numpyResults())), Workload{}, lts.Options{})
			joined := strings.Join(warnings, "\n")
			for _, w := range tt.warnings {
				if !strings.Contains(joined, w) {
					t.Errorf("warnings lack %q:\n%s", w, joined)
				}
			}
			err := lts.Validate(p, Workload{}.KPIs())
			switch {
			case tt.strict == "" && err != nil:
				t.Errorf("strict: %v", err)
			case tt.strict != "" && (err == nil || !strings.Contains(err.Error(), tt.strict)):
				t.Errorf("strict = %v, want it to contain %q", err, tt.strict)
			}
		})
	}
}

// An exec PI's command need not write ci95_low and ci95_high: the precision
// KPI is then the samples' distribution-free interval of the median, the
// one the built-in PIs record, and with too few samples for a 95% interval
// it is absent without a warning (no line per run of such a PI).
func TestPrecisionFromSamples(t *testing.T) {
	t.Parallel()
	samples := []float64{10.4, 9.8, 10.1, 10.0, 12.5, 9.9, 10.2, 10.3, 9.7, 10.0, 10.6, 10.1}
	tests := []struct {
		name    string
		samples []float64
		want    float64 // 0: absent
	}{
		// n = 12: the order statistics x(3) and x(10) cover 96.1%.
		{"12 samples", samples, (10.4 - 9.9) / 10.1},
		// n = 5: even the minimum and maximum cover only 93.75%.
		{"5 samples", samples[:5], 0},
		{"no samples", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := numpyResults()
			r.PI.Result = models.PIMeasurement{Elapsed: 10.1, SamplesMs: tt.samples}
			p, warnings := lts.Build(run(numpySettings(), 0, r), Workload{}, lts.Options{})
			for _, w := range warnings {
				if strings.Contains(w, "elapsed_ci95_rel") {
					t.Errorf("warning %q", w)
				}
			}
			got, ok := p.KPIs["elapsed_ci95_rel"]
			switch {
			case tt.want == 0 && ok:
				t.Errorf("elapsed_ci95_rel = %v, want none", got.Value)
			case tt.want != 0 && (!ok || math.Abs(got.Value-tt.want) > 1e-12):
				t.Errorf("elapsed_ci95_rel = %v (present %v), want %v", got.Value, ok, tt.want)
			}
		})
	}
}
