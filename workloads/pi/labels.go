package pi

import (
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
)

// shapeLabels are the PI parameters that size the work (Thoth's names):
// taken from pi.json's @parameters, which hold the defaults the PI applied,
// else from the settings.
var shapeLabels = []kpi.Label{
	{Name: "matrix_size", Help: "matmul: the side of the square matrices"},
	{Name: "batch", Help: "conv: inputs per batch"},
	{Name: "input_height", Help: "conv2d: input height"},
	{Name: "input_width", Help: "conv: input width"},
	{Name: "input_channels", Help: "conv: input channels"},
	{Name: "filter_height", Help: "conv2d: filter height"},
	{Name: "filter_width", Help: "conv: filter width"},
	{Name: "output_channels", Help: "conv: output channels"},
	{Name: "strides", Help: "conv: stride"},
	{Name: "padding", Help: "conv: padding"},
	{Name: "data_format", Help: "conv: memory layout (NCHW, NHWC...)"},
	{Name: "threads", Help: "threads the PI may use, when limited"},
	{Name: "module", Help: "import: the module imported"},
}

// threadLabels are the thread-count variables of the PI's environment
// (usage.json's threads), one label each, named as the settings that set
// them: OPENBLAS_NUM_THREADS=1 is a series of its own.
var threadLabels = func() []kpi.Label {
	var out []kpi.Label
	for _, tv := range models.ThreadVariables {
		out = append(out, kpi.Label{Name: tv.Setting, Help: tv.Env + " of the PI's environment, when set (not for gonum, nor numpy and torch given threads)"})
	}
	return out
}()

var labelsModel = kpi.LabelsModel{
	SettingsVersion: KPISettingsVersion,
	Labels: append([]kpi.Label{
		{Name: "pi", Help: "the PI: matmul, conv1d, conv2d, import, exec", Required: true},
		{Name: "backend", Help: "the backend setting: gonum, numpy, torch", Required: true},
		{Name: "framework", Help: "the framework that ran the PI (pi.json component)", Required: true},
		{Name: "framework_version", Help: "its version; gonum's with the Go version (v0.17.0+go1.26.0)", Required: true},
		{Name: "blas", Help: "the BLAS library, when known"},
		{Name: "device", Help: "cpu or gpu", Required: true},
		{Name: "dtype", Help: "element type (float32...); absent for the import PI"},
		{Name: "cpu_model", Help: "the CPU model (hwinfo.json)", Required: true},
		{Name: "gpu_model", Help: "the GPU model(s), for GPU runs"},
		{Name: "cuda_version", Help: "the CUDA version, for GPU runs"},
		{Name: "os", Help: "distribution and version (ubuntu 22.04)", Required: true},
		{Name: "kernel", Help: "the Linux kernel release", Required: true},
	}, append(shapeLabels, threadLabels...)...),
}

// fillLabels sets every label the run's settings and results tell; the
// required ones it cannot tell stay absent (strict validation names them).
func fillLabels(labels map[string]string, settings map[string]any, r *Results) {
	set := func(name, value string) {
		if value = strings.TrimSpace(value); value != "" {
			labels[name] = value
		}
	}
	var params map[string]any
	var versions map[string]string
	if r.PI != nil {
		params, versions = r.PI.Parameters, r.PI.Versions
	}
	// What the PI reports it ran wins over what was asked.
	param := func(name string) string {
		if v, ok := params[name]; ok {
			return models.FormatValue(v)
		}
		if v, ok := settings[name]; ok {
			return models.FormatValue(v)
		}
		return ""
	}

	pi := models.FormatValue(settings["pi"])
	if pi == "" && r.PI != nil {
		pi = strings.ToLower(strings.TrimPrefix(r.PI.Name, "Pi"))
	}
	set("pi", pi)
	backend := models.FormatValue(settings["backend"])
	framework := ""
	if r.PI != nil {
		framework = r.PI.Component
	}
	if backend == "" {
		backend = framework
	}
	if framework == "" {
		framework = backend
	}
	set("backend", backend)
	set("framework", framework)
	set("framework_version", frameworkVersion(framework, versions, settings, r))
	blas := blasLabel(versions["blas"])
	if blas == "" && framework == "gonum" {
		blas = "gonum" // gonum's own pure-Go BLAS unless told otherwise
	}
	set("blas", blas)
	device := param("device")
	if device == "" {
		device = "cpu" // every PI's default (docs/run.md), the exec PI's too
	}
	set("device", device)
	set("dtype", param("dtype"))
	for _, l := range shapeLabels {
		set(l.Name, param(l.Name))
	}
	// gonum reads none of the thread variables (its threads is GOMAXPROCS),
	// and numpy and torch given threads set all three to it: the threads
	// label then says it all.
	threadsOverride := param("threads") != "" && (backend == "numpy" || backend == "torch")
	if r.Usage != nil && backend != "gonum" && !threadsOverride {
		for _, tv := range models.ThreadVariables {
			set(tv.Setting, r.Usage.Threads[tv.Env])
		}
	}
	if hw := r.HWInfo; hw != nil {
		set("cpu_model", hw.CPU.Model)
		set("kernel", hw.Kernel)
		osName := strings.TrimSpace(hw.OS.ID + " " + hw.OS.VersionID)
		if osName == "" {
			osName = hw.OS.PrettyName
		}
		set("os", osName)
		if device == "gpu" {
			var names []string
			cuda := hw.Versions["cuda"]
			for _, g := range hw.GPUs {
				if !slices.Contains(names, g.Name) {
					names = append(names, g.Name)
				}
				if cuda == "" {
					cuda = g.CUDA
				}
			}
			set("gpu_model", strings.Join(names, ", "))
			set("cuda_version", cuda)
		}
	}
}

// frameworkVersion is the framework's version as the PI reported it, else
// the framework_version setting (the exec PI's), else as hwinfo.json
// recorded it. gonum's carries the Go version that compiled it: both
// change its performance.
func frameworkVersion(framework string, versions map[string]string, settings map[string]any, r *Results) string {
	v := versions[framework]
	if v == "" {
		v = models.FormatValue(settings["framework_version"])
	}
	if v == "" && r.HWInfo != nil {
		v = r.HWInfo.Versions[framework]
	}
	if framework != "gonum" || v == "" {
		return v
	}
	goVersion := versions["go"]
	if goVersion == "" && r.HWInfo != nil {
		goVersion = r.HWInfo.GoVersion
	}
	if goVersion == "" {
		return v
	}
	return v + "+" + goVersion
}
