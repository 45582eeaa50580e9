package importers

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"time"

	"github.com/seshat-bench/seshat/parsers"
)

// criterion reads what criterion.rs (cargo bench) leaves under
// target/criterion: for each benchmark, <group>/<function>[/<value>]/new/
// holds benchmark.json (its id and throughput), estimates.json (mean,
// median, slope, standard deviation... in nanoseconds, with confidence
// intervals) and sample.json (the samples: iteration counts and their
// total times). Give the target/criterion directory (every new/ below it,
// base/ and change/ ignored) or benchmark.json files. Each benchmark is a
// run holding the three files as written and result.json: the estimates in
// seconds, the time per iteration of every sample (times[i] / iters[i]),
// and the throughput per second when the benchmark declared one.
type criterion struct{}

func init() { register(criterion{}) }

func (criterion) Format() string { return "criterion" }

// Files implements DirImporter: every <...>/new/benchmark.json below dir,
// sorted; symlinks are not followed.
func (criterion) Files(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() == criterionIDFile && filepath.Base(filepath.Dir(path)) == "new" {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

const (
	criterionIDFile     = "benchmark.json"
	criterionEstFile    = "estimates.json"
	criterionSampleFile = "sample.json"
)

type criterionID struct {
	GroupID    string         `json:"group_id"`
	FunctionID *string        `json:"function_id"`
	ValueStr   *string        `json:"value_str"`
	Throughput map[string]any `json:"throughput"`
	FullID     string         `json:"full_id"`
}

type criterionEstimate struct {
	ConfidenceInterval struct {
		ConfidenceLevel float64 `json:"confidence_level"`
		LowerBound      float64 `json:"lower_bound"`
		UpperBound      float64 `json:"upper_bound"`
	} `json:"confidence_interval"`
	PointEstimate float64 `json:"point_estimate"`
	StandardError float64 `json:"standard_error"`
}

type criterionEstimates struct {
	Mean         *criterionEstimate `json:"mean"`
	Median       *criterionEstimate `json:"median"`
	MedianAbsDev *criterionEstimate `json:"median_abs_dev"`
	Slope        *criterionEstimate `json:"slope"`
	StdDev       *criterionEstimate `json:"std_dev"`
}

type criterionSamples struct {
	SamplingMode string    `json:"sampling_mode"`
	Iters        []float64 `json:"iters"`
	Times        []float64 `json:"times"`
}

// CriterionResult is result.json in an imported criterion run directory.
type CriterionResult struct {
	Benchmark string    `json:"benchmark"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// The estimates, per iteration, in seconds; MeanCI is the mean's
	// confidence interval (at CILevel).
	MeanSeconds         float64    `json:"mean_seconds"`
	MeanCI              [2]float64 `json:"mean_ci_seconds"`
	CILevel             float64    `json:"ci_level,omitempty"`
	MedianSeconds       *float64   `json:"median_seconds,omitempty"`
	SlopeSeconds        *float64   `json:"slope_seconds,omitempty"`
	StdDevSeconds       *float64   `json:"std_dev_seconds,omitempty"`
	MedianAbsDevSeconds *float64   `json:"median_abs_dev_seconds,omitempty"`
	// IterationSeconds is every sample's time per iteration.
	IterationSeconds []float64 `json:"iteration_seconds,omitempty"`
	SamplingMode     string    `json:"sampling_mode,omitempty"`
	// Throughput per second, from the typical time (the slope, else the
	// mean), when the benchmark declared one.
	BytesPerSecond    *float64 `json:"bytes_per_second,omitempty"`
	ElementsPerSecond *float64 `json:"elements_per_second,omitempty"`
}

func (criterion) Read(in Input, opts Options) ([]Run, []string, error) {
	dir := filepath.Dir(in.Name)
	est, err := parsers.ReadLimited(filepath.Join(dir, criterionEstFile), parsers.DefaultLimit)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, fmt.Errorf("%s: %w (criterion writes it beside %s)", pe.Path, pe.Err, criterionIDFile)
		}
		return nil, nil, err
	}
	var warnings []string
	sample, err := parsers.ReadLimited(filepath.Join(dir, criterionSampleFile), parsers.DefaultLimit)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("%s: %v: no samples", filepath.Join(dir, criterionSampleFile), unwrapPath(err)))
		sample = nil
	}
	run, ws, err := criterionRun(in, est, sample, opts)
	return run, append(warnings, ws...), err
}

// criterionRun reads one benchmark from its three files (sample may be
// nil).
func criterionRun(in Input, est, sample []byte, opts Options) ([]Run, []string, error) {
	var id criterionID
	if err := parsers.JSON(in.Name, in.Data, &id); err != nil {
		return nil, nil, err
	}
	if id.FullID == "" {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "full_id", Msg: "not a criterion benchmark.json: no full_id"}
	}
	dir := filepath.Dir(in.Name)
	estName := filepath.Join(dir, criterionEstFile)
	var e criterionEstimates
	if err := parsers.JSON(estName, est, &e); err != nil {
		return nil, nil, err
	}
	if e.Mean == nil {
		return nil, nil, &parsers.SyntaxError{File: estName, Field: "mean", Msg: "required"}
	}
	const ns = 1e-9
	res := CriterionResult{Benchmark: id.FullID, MeanSeconds: e.Mean.PointEstimate * ns, CILevel: e.Mean.ConfidenceInterval.ConfidenceLevel,
		MeanCI: [2]float64{e.Mean.ConfidenceInterval.LowerBound * ns, e.Mean.ConfidenceInterval.UpperBound * ns}}
	if !measurement(res.MeanSeconds) {
		return nil, nil, &parsers.SyntaxError{File: estName, Field: "mean.point_estimate", Msg: fmt.Sprintf("%v is not a time", e.Mean.PointEstimate)}
	}
	seconds := func(x *criterionEstimate) *float64 {
		if x == nil || !measurement(x.PointEstimate) {
			return nil
		}
		v := x.PointEstimate * ns
		return &v
	}
	res.MedianSeconds, res.SlopeSeconds = seconds(e.Median), seconds(e.Slope)
	res.StdDevSeconds, res.MedianAbsDevSeconds = seconds(e.StdDev), seconds(e.MedianAbsDev)
	var warnings []string
	total := 0.0
	if sample != nil {
		sampleName := filepath.Join(dir, criterionSampleFile)
		var s criterionSamples
		err := parsers.JSON(sampleName, sample, &s)
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("%v: no samples", err))
		case len(s.Iters) != len(s.Times):
			warnings = append(warnings, fmt.Sprintf("%s: %d iters but %d times: no samples", sampleName, len(s.Iters), len(s.Times)))
		default:
			for i := range s.Iters {
				if !(s.Iters[i] > 0) || !measurement(s.Times[i]) {
					warnings = append(warnings, fmt.Sprintf("%s: field iters/times: sample %d is %v iterations in %v ns: no samples", sampleName, i, s.Iters[i], s.Times[i]))
					res.IterationSeconds = nil
					break
				}
				res.IterationSeconds = append(res.IterationSeconds, s.Times[i]/s.Iters[i]*ns)
				total += s.Times[i] * ns
			}
			res.SamplingMode = s.SamplingMode
		}
	}
	typical := res.MeanSeconds
	if res.SlopeSeconds != nil {
		typical = *res.SlopeSeconds
	}
	if typical > 0 {
		for kind, n := range id.Throughput {
			amount, ok := n.(float64)
			if !ok || !measurement(amount) {
				continue
			}
			v := amount / typical
			switch kind {
			case "Bytes", "BytesDecimal":
				res.BytesPerSecond = &v
			case "Elements":
				res.ElementsPerSecond = &v
			}
		}
	}
	res.Start = opts.start(nil, in)
	res.End = endAfter(res.Start, total)
	data, err := jsonFile(res)
	if err != nil {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: err.Error()}
	}
	settings := map[string]any{"workload": "criterion", "benchmark": id.FullID, "group": id.GroupID}
	if id.FunctionID != nil && *id.FunctionID != "" {
		settings["function"] = *id.FunctionID
	}
	if id.ValueStr != nil && *id.ValueStr != "" {
		settings["input"] = *id.ValueStr
	}
	files := map[string][]byte{criterionIDFile: in.Data, criterionEstFile: est, "result.json": data}
	if sample != nil {
		files[criterionSampleFile] = sample
	}
	return []Run{{Slug: id.FullID, Settings: settings, Files: files, Build: opts.merge(nil)}}, warnings, nil
}
