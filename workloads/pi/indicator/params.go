package indicator

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi/kernels"
	"github.com/seshat-bench/seshat/workloads/pi/measure"
)

// The PIs, as the `pi` setting names them, and their pi.json names (kept
// from Thoth so its users' queries still match).
var piNames = map[string]string{
	"matmul": "PiMatmul",
	"conv1d": "PiConv1D",
	"conv2d": "PiConv2D",
	"import": "PiImport",
	"exec":   "",
}

// Backends per PI, and the dtypes each backend computes in.
var (
	backendsOf = map[string][]string{
		"matmul": {"gonum", "numpy", "torch"},
		"conv1d": {"gonum", "numpy", "torch"},
		"conv2d": {"gonum", "numpy", "torch"},
		"import": {"numpy", "torch"},
	}
	dtypesOf = map[string][]string{
		"gonum": {"float32", "float64"},
		"numpy": {"float16", "float32", "float64"},
		"torch": {"bfloat16", "float16", "float32", "float64"},
	}
)

// PIs lists the PI names, sorted.
func PIs() []string {
	out := make([]string, 0, len(piNames))
	for k := range piNames {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SettingError is a bad or missing setting, named.
type SettingError struct {
	Key string
	Msg string
}

func (e *SettingError) Error() string { return fmt.Sprintf("setting %s: %s", e.Key, e.Msg) }

// Params are the decoded parameters of one PI run.
type Params struct {
	PI      string
	Backend string
	Dtype   string
	Device  string // cpu or gpu

	MatrixSize int

	Conv         kernels.ConvGeometry
	ChannelsLast bool
	DataFormat   string
	Padding      any // as given: an integer or "valid"/"same"

	Plan measure.Plan
	// Repetitions is the setting as given: an int or "auto".
	Repetitions any
	Threads     int
	Seed        uint64

	// Python is the interpreter named by the `python` setting ("" = resolve).
	Python string
	// Module is the module the import PI imports (default: the backend's).
	Module string
	// Command is the exec PI's argv after {setting} substitution.
	Command []string
	// FrameworkVersion is the exec PI's framework_version setting: the
	// version of what its command measures, when pi.json's versions do
	// not name it.
	FrameworkVersion string
}

// Defaults follow Thoth's PIs where they had one.
var (
	defaultMatmul = map[string]any{"matrix_size": 512}
	defaultConv2D = map[string]any{
		"batch": 4, "input_height": 700, "input_width": 161, "input_channels": 1,
		"filter_height": 20, "filter_width": 5, "output_channels": 32,
		"strides": 2, "padding": 1, "data_format": "NCHW",
	}
	defaultConv1D = map[string]any{
		"batch": 4, "input_width": 161, "input_channels": 5,
		"filter_width": 5, "output_channels": 32,
		"strides": 2, "padding": 1, "data_format": "NCW",
	}
)

const (
	defaultWarmup       = 5
	defaultImportReps   = 5
	defaultImportWarmup = 1
	defaultSeed         = 1
)

// reader decodes typed values out of a settings map, defaults applied.
type reader struct {
	s   map[string]any
	def map[string]any
}

func (r reader) get(key string) (any, bool) {
	if v, ok := r.s[key]; ok && v != nil {
		return v, true
	}
	v, ok := r.def[key]
	return v, ok
}

func (r reader) str(key, def string) (string, error) {
	v, ok := r.get(key)
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &SettingError{key, fmt.Sprintf("must be a string, got %v", v)}
	}
	return s, nil
}

func (r reader) oneOf(key, def string, allowed []string) (string, error) {
	s, err := r.str(key, def)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", &SettingError{key, fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", "))}
	}
	return s, nil
}

// integer accepts YAML integers and integral floats (1e3).
func integer(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case uint64:
		if x <= math.MaxInt32 {
			return int(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32 {
			return int(x), true
		}
	}
	return 0, false
}

func number(v any) (float64, bool) {
	if i, ok := integer(v); ok {
		return float64(i), true
	}
	f, ok := v.(float64)
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

func (r reader) intMin(key string, def, least int) (int, error) {
	v, ok := r.get(key)
	if !ok {
		return def, nil
	}
	n, ok := integer(v)
	if !ok || n < least {
		return 0, &SettingError{key, fmt.Sprintf("must be an integer >= %d, got %v", least, v)}
	}
	return n, nil
}

func (r reader) positive(key string, def float64) (float64, error) {
	v, ok := r.get(key)
	if !ok {
		return def, nil
	}
	f, ok := number(v)
	if !ok || f <= 0 {
		return 0, &SettingError{key, fmt.Sprintf("must be a positive number, got %v", v)}
	}
	return f, nil
}

// problems collects every setting error of one point, so that a file with
// three mistakes reports three (each setting's error is its own; a setting
// that others depend on, backend say, leaves those unchecked).
type problems []error

// add records err, reporting whether there was one.
func (ps *problems) add(err error) bool {
	if err == nil {
		return false
	}
	*ps = append(*ps, err)
	return true
}

// Decode validates the settings of one run and returns its parameters.
// Settings a PI does not use are ignored (they are labels of the run).
// Every problem is reported, each a *SettingError, joined (errors.Join).
func Decode(settings map[string]any) (*Params, error) {
	r := reader{s: settings}
	pi, err := r.str("pi", "")
	if err != nil {
		return nil, err
	}
	if _, ok := piNames[pi]; !ok {
		if pi == "" {
			return nil, &SettingError{"pi", "required: one of " + strings.Join(PIs(), ", ")}
		}
		return nil, &SettingError{"pi", fmt.Sprintf("unknown PI %q (known: %s)", pi, strings.Join(PIs(), ", "))}
	}
	p := &Params{PI: pi}
	var ps problems
	p.Python, err = r.str("python", "")
	ps.add(err)
	if pi == "exec" {
		decodeExec(r, p, &ps)
		return ps.result(p)
	}

	p.Backend, err = r.str("backend", "")
	backendOK := !ps.add(err)
	if backendOK && !slices.Contains(backendsOf[pi], p.Backend) {
		msg := "required"
		if p.Backend != "" {
			msg = fmt.Sprintf("%q cannot run %s", p.Backend, pi)
		}
		backendOK = !ps.add(&SettingError{"backend", msg + ": one of " + strings.Join(backendsOf[pi], ", ")})
	}
	p.Device, err = r.oneOf("device", "cpu", []string{"cpu", "gpu"})
	if !ps.add(err) && backendOK && p.Device == "gpu" && p.Backend != "torch" {
		ps.add(&SettingError{"device", p.Backend + " runs on the CPU only; use backend torch for device gpu"})
	}
	defaultThreads := 0 // the framework's choice
	if p.Backend == "gonum" {
		// gonum is the reference kernel: one thread unless asked, so its rate
		// does not swing with how many cores other work leaves free (a
		// parallel gemm on a busy 2-core machine measures the neighbours).
		defaultThreads = 1
	}
	p.Threads, err = r.intMin("threads", defaultThreads, 1)
	if !ps.add(err) && p.Threads > 0 && backendOK && p.Backend != "gonum" {
		// numpy and torch export threads as the three variables themselves
		// (threadEnv), over what the runner exported for these settings.
		for _, tv := range models.ThreadVariables {
			if _, set := settings[tv.Setting]; set {
				ps.add(&SettingError{tv.Setting, fmt.Sprintf("threads: %d already sets %s for %s; set one or the other", p.Threads, tv.Env, p.Backend)})
			}
		}
	}
	seed, err := r.intMin("seed", defaultSeed, 0)
	ps.add(err)
	p.Seed = uint64(seed)

	if pi == "import" {
		p.Module, err = r.str("module", "")
		ps.add(err)
		if p.Module == "" {
			p.Module = map[string]string{"numpy": "numpy", "torch": "torch"}[p.Backend]
		}
		decodePlan(r, p, defaultImportReps, defaultImportWarmup, &ps)
		return ps.result(p)
	}

	if backendOK {
		p.Dtype, err = r.oneOf("dtype", "float32", dtypesOf[p.Backend])
		ps.add(err)
	}
	switch pi {
	case "matmul":
		r.def = defaultMatmul
		p.MatrixSize, err = r.intMin("matrix_size", 0, 1)
		if !ps.add(err) && p.MatrixSize > maxMatrixSize {
			ps.add(&SettingError{"matrix_size", fmt.Sprintf("%d is beyond any machine's memory (at most %d)", p.MatrixSize, maxMatrixSize)})
		}
	case "conv1d":
		r.def = defaultConv1D
		decodeConv(r, p, true, &ps)
	case "conv2d":
		r.def = defaultConv2D
		decodeConv(r, p, false, &ps)
	}
	r.def = nil
	decodePlan(r, p, 0, defaultWarmup, &ps)
	return ps.result(p)
}

// result is p, or the problems found.
func (ps problems) result(p *Params) (*Params, error) {
	switch len(ps) {
	case 0:
		return p, nil
	case 1:
		return nil, ps[0]
	}
	return nil, errors.Join(ps...)
}

func decodeConv(r reader, p *Params, oneD bool, ps *problems) {
	g := &p.Conv
	fields := []struct {
		key string
		dst *int
	}{
		{"batch", &g.Batch}, {"input_width", &g.InW}, {"input_channels", &g.InC},
		{"filter_width", &g.KW}, {"output_channels", &g.OutC}, {"strides", &g.Stride},
	}
	if !oneD {
		fields = append(fields, struct {
			key string
			dst *int
		}{"input_height", &g.InH}, struct {
			key string
			dst *int
		}{"filter_height", &g.KH})
	}
	shapeOK := true
	for _, f := range fields {
		var err error
		*f.dst, err = r.intMin(f.key, 0, 1)
		if ps.add(err) {
			shapeOK = false
		}
	}
	if oneD {
		// A 1-D convolution is a 2-D one of height 1. input_height and
		// filter_height are not its parameters: like any setting a PI does
		// not use, they are labels (so conv1d and conv2d can share a matrix).
		g.InH, g.KH = 1, 1
	}
	formats := []string{"NCHW", "NHWC"}
	if oneD {
		formats = []string{"NCW", "NWC", "NCHW", "NHWC"}
	}
	var err error
	p.DataFormat, err = r.oneOf("data_format", "", formats)
	ps.add(err)
	p.ChannelsLast = p.DataFormat == "NHWC" || p.DataFormat == "NWC"

	pad, _ := r.get("padding")
	p.Padding = pad
	switch v := pad.(type) {
	case string:
		switch strings.ToLower(v) {
		case "valid":
		case "same":
			// Same-size output needs stride 1 and odd filters (symmetric padding).
			if shapeOK && (g.Stride != 1 || g.KW%2 == 0 || (!oneD && g.KH%2 == 0)) {
				ps.add(&SettingError{"padding", "\"same\" needs strides 1 and odd filter sizes; give the padding as an integer"})
				return
			}
			g.PadW = (g.KW - 1) / 2
			if !oneD {
				g.PadH = (g.KH - 1) / 2
			}
		default:
			ps.add(&SettingError{"padding", fmt.Sprintf("%q is not an integer, \"valid\" or \"same\"", v)})
			return
		}
	default:
		n, ok := integer(v)
		if !ok || n < 0 {
			ps.add(&SettingError{"padding", fmt.Sprintf("must be an integer >= 0, \"valid\" or \"same\", got %v", v)})
			return
		}
		g.PadW = n
		if !oneD {
			g.PadH = n
		}
	}
	if !shapeOK {
		return // the geometry below needs every size
	}
	if err := g.Validate(); err != nil {
		ps.add(&SettingError{"filter_height/filter_width", err.Error()})
		return
	}
	// Sizes that cannot be allocated fail here, by name, not as a crash.
	im2col := float64(g.Batch) * float64(g.OutH()) * float64(g.OutW()) * float64(g.KH) * float64(g.KW) * float64(g.InC)
	for _, t := range []struct {
		what     string
		elements float64
	}{
		{"the input", float64(g.Batch) * float64(g.InH) * float64(g.InW) * float64(g.InC)},
		{"the output", float64(g.Batch) * float64(g.OutH()) * float64(g.OutW()) * float64(g.OutC)},
		{"the filters", float64(g.OutC) * float64(g.KH) * float64(g.KW) * float64(g.InC)},
		{"the im2col matrix", im2col},
	} {
		if t.elements > maxTensorElements {
			ps.add(&SettingError{"batch/input_*/filter_*", fmt.Sprintf("%s would hold %.3g elements, beyond any machine's memory (at most %.3g)", t.what, t.elements, float64(maxTensorElements))})
			return
		}
	}
}

// Bounds that keep absurd settings from crashing the child: far beyond
// any device's memory, well within what an int can count.
const (
	maxMatrixSize     = 1 << 17
	maxTensorElements = 1 << 36
)

func decodePlan(r reader, p *Params, defaultReps, defaultWarm int, ps *problems) {
	var err error
	p.Plan.Warmup, err = r.intMin("warmup", defaultWarm, 0)
	ps.add(err)
	reps, ok := r.get("repetitions")
	switch {
	case !ok && defaultReps > 0:
		reps = defaultReps
	case !ok:
		reps = "auto"
	}
	p.Repetitions = reps
	if s, isStr := reps.(string); isStr && s == "auto" {
		p.Plan.Auto = true
		p.Plan.TargetCI, err = r.positive("target_ci", measure.DefaultTargetCI)
		if !ps.add(err) && p.Plan.TargetCI >= 1 {
			ps.add(&SettingError{"target_ci", fmt.Sprintf("is relative to the median and must be below 1, got %v", p.Plan.TargetCI)})
		}
		secs, err := r.positive("max_seconds", measure.DefaultMaxDuration.Seconds())
		ps.add(err)
		p.Plan.MaxDuration = time.Duration(secs * float64(time.Second))
		p.Plan.MinRepetitions, err = r.intMin("min_repetitions", measure.DefaultMinRepetitions, 1)
		if !ps.add(err) {
			p.Plan.MaxRepetitions, err = r.intMin("max_repetitions", measure.DefaultMaxRepetitions, p.Plan.MinRepetitions)
			ps.add(err)
		}
		return
	}
	n, isInt := integer(reps)
	if !isInt || n < 1 {
		ps.add(&SettingError{"repetitions", fmt.Sprintf("must be an integer >= 1 or \"auto\", got %v", reps)})
		return
	}
	p.Plan.Repetitions = n
}

// placeholder matches {setting} in an exec command. ${NAME} is left to the
// shell, and anything else in braces (JSON, say) is not a setting name.
var placeholder = regexp.MustCompile(`\$?\{[A-Za-z_@][A-Za-z0-9_.@-]*\}`)

func decodeExec(r reader, p *Params, ps *problems) {
	decodeCommand(r, p, ps)
	// Labels of the runs (docs/run.md): device defaults to cpu, as for the
	// other PIs; a version must be text, 1.10 is not 1.1.
	var err error
	p.Device, err = r.str("device", "cpu")
	ps.add(err)
	if p.FrameworkVersion, err = r.str("framework_version", ""); err != nil {
		ps.add(&SettingError{"framework_version", fmt.Sprintf("must be a string (quote it: \"%v\")", r.s["framework_version"])})
	}
}

func decodeCommand(r reader, p *Params, ps *problems) {
	v, ok := r.get("command")
	if !ok {
		ps.add(&SettingError{"command", "required for pi exec: a list such as [./my-pi, --size, \"{matrix_size}\"]"})
		return
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		ps.add(&SettingError{"command", fmt.Sprintf("must be a non-empty list of arguments, got %v", v)})
		return
	}
	for i, a := range list {
		var arg string
		switch x := a.(type) {
		case string:
			arg = x
		case nil, []any, map[string]any:
			ps.add(&SettingError{"command", fmt.Sprintf("argument %d must be a scalar, got %v", i, a)})
			continue
		default:
			arg = models.FormatValue(x)
		}
		arg = placeholder.ReplaceAllStringFunc(arg, func(m string) string {
			if m[0] == '$' {
				return m
			}
			key := m[1 : len(m)-1]
			val, ok := r.s[key]
			if !ok {
				ps.add(&SettingError{"command", fmt.Sprintf("argument %d: {%s} names no setting of this run", i, key)})
			}
			return models.FormatValue(val)
		})
		p.Command = append(p.Command, arg)
	}
	if len(p.Command) > 0 && p.Command[0] == "" {
		ps.add(&SettingError{"command", "the program name is empty"})
	}
}

// Name is the pi.json name of the PI ("PiMatmul"...).
func (p *Params) Name() string { return piNames[p.PI] }

// Parameters is the "@parameters" object of pi.json: what was measured,
// under Thoth's names.
func (p *Params) Parameters() map[string]any {
	m := map[string]any{
		"backend": p.Backend, "device": p.Device,
		"repetitions": p.Repetitions, "warmup": p.Plan.Warmup, "seed": p.Seed,
	}
	if p.Plan.Auto {
		m["target_ci"] = p.Plan.TargetCI
		m["max_seconds"] = p.Plan.MaxDuration.Seconds()
		m["min_repetitions"] = p.Plan.MinRepetitions
		m["max_repetitions"] = p.Plan.MaxRepetitions
	}
	if p.Threads > 0 {
		m["threads"] = p.Threads
	}
	switch p.PI {
	case "import":
		m["module"] = p.Module
		delete(m, "device")
	case "matmul":
		m["dtype"] = p.Dtype
		m["matrix_size"] = p.MatrixSize
	case "conv1d", "conv2d":
		g := p.Conv
		m["dtype"] = p.Dtype
		m["batch"], m["input_width"], m["input_channels"] = g.Batch, g.InW, g.InC
		m["filter_width"], m["output_channels"], m["strides"] = g.KW, g.OutC, g.Stride
		m["padding"], m["data_format"] = p.Padding, p.DataFormat
		if p.PI == "conv2d" {
			m["input_height"], m["filter_height"] = g.InH, g.KH
		}
	}
	return m
}

// FLOPs is the operation count of one repetition, 0 when the PI has none.
func (p *Params) FLOPs() float64 {
	switch p.PI {
	case "matmul":
		return kernels.MatmulFLOPs(p.MatrixSize)
	case "conv1d", "conv2d":
		return p.Conv.FLOPs()
	}
	return 0
}

// SettingKey implements workloads.SettingKeyer.
func (e *SettingError) SettingKey() string { return e.Key }
