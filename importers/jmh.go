package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/parsers"
)

// jmh reads the JSON result file of the Java Microbenchmark Harness (-rf
// json, jmh-result.json): one run per entry (benchmark method, mode and
// parameter values), whose directory holds jmh.json (the entry as JMH
// wrote it) and result.json. The primary metric's score is the run's
// value, every iteration of every fork in rawData a sample; the score is
// also given in a unit that does not depend on the run's settings:
// throughput (mode thrpt, scoreUnit ops/<time unit>) in operations per
// second, the other modes (avgt, sample, ss: <time unit>/op) in seconds
// per operation. The params are settings (param_<name>, and together
// params); so are mode, threads, forks and the JVM's version.
type jmh struct{}

func init() { register(jmh{}) }

func (jmh) Format() string { return "jmh" }

type jmhEntry struct {
	JMHVersion            string               `json:"jmhVersion"`
	Benchmark             string               `json:"benchmark"`
	Mode                  string               `json:"mode"`
	Threads               int                  `json:"threads"`
	Forks                 int                  `json:"forks"`
	JDKVersion            string               `json:"jdkVersion"`
	VMName                string               `json:"vmName"`
	WarmupIterations      int                  `json:"warmupIterations"`
	WarmupTime            string               `json:"warmupTime"`
	MeasurementIterations int                  `json:"measurementIterations"`
	MeasurementTime       string               `json:"measurementTime"`
	Params                map[string]string    `json:"params"`
	PrimaryMetric         *jmhMetric           `json:"primaryMetric"`
	SecondaryMetrics      map[string]jmhMetric `json:"secondaryMetrics"`
}

type jmhMetric struct {
	Score           *float64    `json:"score"`
	ScoreError      any         `json:"scoreError"` // a number, or "NaN" as JMH writes it
	ScoreConfidence []any       `json:"scoreConfidence"`
	ScoreUnit       string      `json:"scoreUnit"`
	RawData         [][]float64 `json:"rawData"`
}

// JMHResult is result.json in an imported jmh run directory.
type JMHResult struct {
	Benchmark string    `json:"benchmark"`
	Mode      string    `json:"mode"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// Score and its unit as JMH wrote them; ScoreError is the half-width
	// of the 99.9% confidence interval (absent when JMH could not compute
	// it: one iteration).
	Score      float64  `json:"score"`
	ScoreError *float64 `json:"score_error,omitempty"`
	ScoreUnit  string   `json:"score_unit"`
	// Samples are every iteration's score, fork after fork, in ScoreUnit;
	// ForkSamples counts them per fork.
	Samples     []float64 `json:"samples,omitempty"`
	ForkSamples []int     `json:"fork_samples,omitempty"`
	// The score and samples in a fixed unit: operations per second
	// (thrpt), seconds per operation (the other modes).
	OpsPerSecond        *float64  `json:"ops_per_second,omitempty"`
	OpsPerSecondSamples []float64 `json:"ops_per_second_samples,omitempty"`
	SecondsPerOp        *float64  `json:"seconds_per_op,omitempty"`
	SecondsPerOpSamples []float64 `json:"seconds_per_op_samples,omitempty"`
	// GCAllocBytesPerOp is the gc profiler's ·gc.alloc.rate.norm.
	GCAllocBytesPerOp *float64 `json:"gc_alloc_bytes_per_op,omitempty"`
	// Line is where the entry starts in the original file.
	Line int `json:"line"`
}

func (jmh) Read(in Input, opts Options) ([]Run, []string, error) {
	var probe []map[string]json.RawMessage
	if err := parsers.JSON(in.Name, in.Data, &probe); err != nil {
		return nil, nil, err
	}
	if len(probe) > 0 && (probe[0]["benchmark"] == nil || probe[0]["primaryMetric"] == nil) {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "not a JMH result file: want a list of results with benchmark and primaryMetric (-rf json)"}
	}
	entries, err := jsonMembers(in.Name, in.Data)
	if err != nil {
		return nil, nil, err
	}
	build := opts.merge(nil)
	// JMH ran the entries one after the other.
	start := opts.start(build, in)
	var runs []Run
	var warnings []string
	for i, m := range entries {
		var e jmhEntry
		err := m.decode(in.Name, &e)
		if err == nil && (e.Benchmark == "" || e.PrimaryMetric == nil || e.PrimaryMetric.Score == nil) {
			err = fmt.Errorf("%s:%d: no benchmark or no primaryMetric.score", in.Name, m.Line)
		}
		var run Run
		if err == nil {
			run, start, err = jmhRun(in.Name, e, m, start)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v, skipped", memberName("results", i, m), err))
			continue
		}
		run.Build = build
		runs = append(runs, run)
	}
	if len(runs) == 0 && len(warnings) > 0 {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: fmt.Sprintf("no result read, %d malformed (first: %s)", len(warnings), warnings[0])}
	}
	return runs, warnings, nil
}

func jmhRun(file string, e jmhEntry, m jsonMember, start time.Time) (Run, time.Time, error) {
	pm := e.PrimaryMetric
	res := JMHResult{Benchmark: e.Benchmark, Mode: e.Mode, Score: *pm.Score, ScoreUnit: pm.ScoreUnit, Line: m.Line}
	if !measurement(res.Score) {
		return Run{}, start, fmt.Errorf("%s:%d: field primaryMetric.score: %v is not a measurement", file, m.Line, res.Score)
	}
	if f, ok := pm.ScoreError.(float64); ok && measurement(f) {
		res.ScoreError = &f
	}
	for _, fork := range pm.RawData {
		if !measurement(fork...) {
			return Run{}, start, fmt.Errorf("%s:%d: field primaryMetric.rawData: a negative score", file, m.Line)
		}
		res.Samples = append(res.Samples, fork...)
		res.ForkSamples = append(res.ForkSamples, len(fork))
	}
	perUnit := func(f func(float64) float64) []float64 {
		out := make([]float64, len(res.Samples))
		for i, s := range res.Samples {
			out[i] = f(s)
		}
		return out
	}
	if e.Mode == "thrpt" {
		if u, ok := strings.CutPrefix(pm.ScoreUnit, "ops/"); ok {
			if sec, ok := timeUnitSeconds(u); ok {
				f := func(x float64) float64 { return x / sec }
				v := f(res.Score)
				res.OpsPerSecond, res.OpsPerSecondSamples = &v, perUnit(f)
			}
		}
	} else if u, ok := strings.CutSuffix(pm.ScoreUnit, "/op"); ok {
		if sec, ok := timeUnitSeconds(u); ok {
			f := func(x float64) float64 { return x * sec }
			v := f(res.Score)
			res.SecondsPerOp, res.SecondsPerOpSamples = &v, perUnit(f)
		}
	}
	if gc, ok := e.SecondaryMetrics["·gc.alloc.rate.norm"]; ok && gc.Score != nil && gc.ScoreUnit == "B/op" && measurement(*gc.Score) {
		v := *gc.Score
		res.GCAllocBytesPerOp = &v
	}
	res.Start = start
	res.End = endAfter(start, jmhSeconds(e))
	data, err1 := jsonFile(res)
	entry, err2 := jsonFile([]json.RawMessage{m.Raw})
	if err := errors.Join(err1, err2); err != nil {
		return Run{}, start, err
	}
	settings := map[string]any{"workload": "jmh", "benchmark": e.Benchmark, "mode": e.Mode, "threads": e.Threads, "forks": e.Forks}
	if e.JDKVersion != "" {
		settings["jdk_version"] = e.JDKVersion
	}
	if e.VMName != "" {
		settings["vm_name"] = e.VMName
	}
	params := addParams(settings, e.Params)
	slug := e.Benchmark[strings.LastIndex(e.Benchmark, ".")+1:] + "_" + e.Mode
	if len(params) > 0 {
		slug += "_" + strings.Join(params, "_")
	}
	return Run{Slug: slug, Settings: settings, Files: map[string][]byte{"jmh.json": entry, "result.json": data}}, res.End, nil
}

// jmhSeconds is about how long JMH ran an entry: forks x (warmup and
// measurement iterations x their time); 0 when the file does not say.
func jmhSeconds(e jmhEntry) float64 {
	iteration := func(s string) float64 {
		num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
		if !ok {
			return 0
		}
		n, err := strconv.ParseFloat(num, 64)
		sec, known := timeUnitSeconds(unit)
		if err != nil || !known || !measurement(n) {
			return 0
		}
		return n * sec
	}
	forks := max(e.Forks, 1)
	total := float64(forks) * (float64(e.WarmupIterations)*iteration(e.WarmupTime) + float64(e.MeasurementIterations)*iteration(e.MeasurementTime))
	if !measurement(total) {
		return 0
	}
	return total
}
