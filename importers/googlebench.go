package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/parsers"
)

// googleBenchmark reads Google Benchmark's JSON output
// (--benchmark_format=json, or --benchmark_out=FILE
// --benchmark_out_format=json): one run per benchmark instance (run_name
// and threads). With --benchmark_repetitions=N the N iteration rows of an
// instance are its samples, one per repetition (each the mean time of its
// iterations), and the aggregate rows (mean, median, stddev, cv, and
// BigO/RMS of a complexity fit) are kept with it, never runs of their own:
// an aggregate is a statistic of the repetitions, not a measurement. The
// run's times are the median aggregate when the file has it (the library's
// own figure), else the median of the repetitions. The context (host,
// CPUs, library build type, the executable's name) gives settings; a
// benchmark that reported an error (SkipWithError) is a failed run (exit
// code 1, its message in stderr.log).
type googleBenchmark struct{}

func init() { register(googleBenchmark{}) }

func (googleBenchmark) Format() string { return "google-benchmark" }

type gbDoc struct {
	Context    map[string]any  `json:"context"`
	Benchmarks json.RawMessage `json:"benchmarks"`
}

// gbRow is one row of "benchmarks"; other numeric members are counters
// (bytes_per_second, items_per_second, user counters).
type gbRow struct {
	Name            string   `json:"name"`
	RunName         string   `json:"run_name"`
	RunType         string   `json:"run_type"`
	Repetitions     int      `json:"repetitions"`
	RepetitionIndex int      `json:"repetition_index"`
	Threads         int      `json:"threads"`
	Iterations      float64  `json:"iterations"`
	RealTime        *float64 `json:"real_time"`
	CPUTime         *float64 `json:"cpu_time"`
	TimeUnit        string   `json:"time_unit"`
	AggregateName   string   `json:"aggregate_name"`
	AggregateUnit   string   `json:"aggregate_unit"`
	ErrorOccurred   bool     `json:"error_occurred"`
	ErrorMessage    string   `json:"error_message"`
	Label           string   `json:"label"`
}

// gbKnown are the members of a row that are not counters.
var gbKnown = map[string]bool{
	"name": true, "family_index": true, "per_family_instance_index": true, "run_name": true, "run_type": true,
	"repetitions": true, "repetition_index": true, "threads": true, "iterations": true, "real_time": true,
	"cpu_time": true, "time_unit": true, "aggregate_name": true, "aggregate_unit": true, "error_occurred": true,
	"error_message": true, "label": true, "skipped": true,
}

// GoogleBenchmarkResult is result.json in an imported google-benchmark run
// directory: the instance's times in seconds.
type GoogleBenchmarkResult struct {
	Benchmark string    `json:"benchmark"`
	Threads   int       `json:"threads"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// RealTimeSeconds and CPUTimeSeconds are per iteration: the median
	// aggregate, else the median of the repetitions.
	RealTimeSeconds *float64 `json:"real_time_seconds,omitempty"`
	CPUTimeSeconds  *float64 `json:"cpu_time_seconds,omitempty"`
	// The samples: one per repetition, in order.
	RealTimeSamples []float64 `json:"real_time_samples_seconds,omitempty"`
	CPUTimeSamples  []float64 `json:"cpu_time_samples_seconds,omitempty"`
	Iterations      []float64 `json:"iterations,omitempty"`
	// Counters are the median aggregate's (else the repetitions' median):
	// bytes_per_second, items_per_second, user counters.
	Counters map[string]float64 `json:"counters,omitempty"`
	// Aggregates by name (mean, median, stddev, cv...): times in seconds
	// (cv, a ratio, as written), counters as written.
	Aggregates map[string]map[string]float64 `json:"aggregates,omitempty"`
	// CV is the cv aggregate of the real time (stddev / mean).
	CV    *float64 `json:"real_time_cv,omitempty"`
	Label string   `json:"label,omitempty"`
	Error string   `json:"error,omitempty"`
	// Line is where the instance's first row starts in the original file.
	Line int `json:"line"`
}

// gbInstance gathers the rows of one benchmark instance.
type gbInstance struct {
	runName    string
	threads    int
	line       int
	iterations []gbRow
	aggregates []gbRow
	counters   []map[string]float64 // of iterations, then of aggregates
	raw        []json.RawMessage
}

func (googleBenchmark) Read(in Input, opts Options) ([]Run, []string, error) {
	var doc gbDoc
	if err := parsers.JSON(in.Name, in.Data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Context == nil || doc.Benchmarks == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "not a Google Benchmark JSON document: want context and benchmarks (--benchmark_format=json output)"}
	}
	rows, err := jsonMembers(in.Name, in.Data, "benchmarks")
	if err != nil {
		return nil, nil, err
	}
	if rows == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "benchmarks", Msg: "not an array"}
	}
	var warnings []string
	var order []string
	instances := map[string]*gbInstance{}
	for i, m := range rows {
		var row gbRow
		var all map[string]any
		err := m.decode(in.Name, &row)
		if err == nil {
			err = m.decode(in.Name, &all)
		}
		if err == nil && row.Name == "" && row.RunName == "" {
			err = fmt.Errorf("%s:%d: no name", in.Name, m.Line)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v, skipped", memberName("benchmarks", i, m), err))
			continue
		}
		aggregate := row.RunType == "aggregate" || (row.RunType == "" && row.AggregateName != "")
		runName := row.RunName
		if runName == "" { // before run_name (library < 1.5): name_mean...
			runName = strings.TrimSuffix(row.Name, "_"+row.AggregateName)
		}
		key := fmt.Sprintf("%s\x00%d", runName, row.Threads)
		inst := instances[key]
		if inst == nil {
			inst = &gbInstance{runName: runName, threads: row.Threads, line: m.Line}
			instances[key] = inst
			order = append(order, key)
		}
		counters := map[string]float64{}
		for k, v := range all {
			if f, ok := v.(float64); ok && !gbKnown[k] {
				counters[k] = f
			}
		}
		if aggregate {
			inst.aggregates = append(inst.aggregates, row)
		} else {
			inst.iterations = append(inst.iterations, row)
		}
		inst.counters = append(inst.counters, counters)
		inst.raw = append(inst.raw, json.RawMessage(m.Raw))
	}
	build := opts.merge(nil)
	start := opts.start(build, in)
	if date, _ := doc.Context["date"].(string); date != "" && opts.Time.IsZero() {
		// RFC 3339 since library 1.5; "2006-01-02 15:04:05" (local) before.
		for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006/01/02-15:04:05"} {
			if t, err := time.Parse(layout, date); err == nil {
				start = t.UTC()
				break
			}
		}
	}
	context := gbContextSettings(doc.Context)
	var runs []Run
	for _, key := range order {
		inst := instances[key]
		run, err := gbRun(inst, doc.Context, context, start)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s:%d: benchmark %s: %v, skipped", in.Name, inst.line, inst.runName, err))
			continue
		}
		run.Build = build
		runs = append(runs, run)
	}
	if len(runs) == 0 && len(warnings) > 0 {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: fmt.Sprintf("no benchmark read, %d malformed (first: %s)", len(warnings), warnings[0])}
	}
	return runs, warnings, nil
}

// gbContextSettings are the settings every run of a file shares.
func gbContextSettings(ctx map[string]any) map[string]any {
	out := map[string]any{}
	if v, ok := ctx["host_name"].(string); ok && v != "" {
		out["host_name"] = v
	}
	if v, ok := ctx["num_cpus"].(float64); ok && v > 0 && v < 1<<31 {
		out["num_cpus"] = int(v)
	}
	if v, ok := ctx["library_build_type"].(string); ok && v != "" {
		out["library_build_type"] = v
	}
	if v, ok := ctx["executable"].(string); ok && v != "" {
		// Its name, not the path it was run from.
		out["executable"] = path.Base(strings.ReplaceAll(v, `\`, "/"))
	}
	return out
}

func gbRun(inst *gbInstance, ctx, context map[string]any, start time.Time) (Run, error) {
	res := GoogleBenchmarkResult{Benchmark: inst.runName, Threads: inst.threads, Start: start, End: start, Line: inst.line}
	unitOf := func(r gbRow) (float64, error) {
		if r.TimeUnit == "" {
			return 1e-9, nil // the library's default
		}
		s, ok := timeUnitSeconds(r.TimeUnit)
		if !ok {
			return 0, fmt.Errorf("time_unit %q is not a time unit", r.TimeUnit)
		}
		return s, nil
	}
	var errs []string
	wall := 0.0
	for _, r := range inst.iterations {
		if r.ErrorOccurred {
			if r.ErrorMessage != "" && !slices.Contains(errs, r.ErrorMessage) {
				errs = append(errs, r.ErrorMessage)
			}
			if r.ErrorMessage == "" && len(errs) == 0 {
				errs = append(errs, "error_occurred")
			}
			continue
		}
		unit, err := unitOf(r)
		if err != nil {
			return Run{}, err
		}
		if r.RealTime == nil || r.CPUTime == nil || !measurement(*r.RealTime, *r.CPUTime, r.Iterations) {
			return Run{}, errors.New("repetition without a real_time and cpu_time that can be measurements")
		}
		res.RealTimeSamples = append(res.RealTimeSamples, *r.RealTime*unit)
		res.CPUTimeSamples = append(res.CPUTimeSamples, *r.CPUTime*unit)
		res.Iterations = append(res.Iterations, r.Iterations)
		wall += *r.RealTime * unit * r.Iterations
		if r.Label != "" {
			res.Label = r.Label
		}
	}
	n := len(inst.iterations)
	for i, r := range inst.aggregates {
		if res.Aggregates == nil {
			res.Aggregates = map[string]map[string]float64{}
		}
		agg := map[string]float64{}
		for k, v := range inst.counters[n+i] {
			agg[k] = v
		}
		unit, err := unitOf(r)
		if err != nil {
			return Run{}, err
		}
		if r.AggregateUnit == "percentage" { // cv: a ratio, not a time
			unit = 1
		}
		if r.RealTime != nil && r.CPUTime != nil && measurement(*r.RealTime, *r.CPUTime) {
			agg["real_time"] = *r.RealTime * unit
			agg["cpu_time"] = *r.CPUTime * unit
		}
		res.Aggregates[r.AggregateName] = agg
	}
	if med, ok := res.Aggregates["median"]; ok && med["real_time"] > 0 {
		rt, ct := med["real_time"], med["cpu_time"]
		res.RealTimeSeconds, res.CPUTimeSeconds = &rt, &ct
	} else if len(res.RealTimeSamples) > 0 {
		rt, ct := analyze.Median(res.RealTimeSamples), analyze.Median(res.CPUTimeSamples)
		res.RealTimeSeconds, res.CPUTimeSeconds = &rt, &ct
	}
	if cv, ok := res.Aggregates["cv"]["real_time"]; ok {
		res.CV = &cv
	}
	res.Counters = gbCounters(inst, res.Aggregates)
	res.End = endAfter(start, wall)
	exit := 0
	files := map[string][]byte{}
	if len(errs) > 0 {
		exit = 1
		res.Error = strings.Join(errs, "; ")
		files["stderr.log"] = []byte(res.Error + "\n")
	}
	if res.RealTimeSeconds == nil && exit == 0 {
		return Run{}, errors.New("no repetition and no median aggregate: nothing measured")
	}
	data, err := jsonFile(res)
	if err != nil {
		return Run{}, err
	}
	doc, err := jsonFile(map[string]any{"context": ctx, "benchmarks": inst.raw})
	if err != nil {
		return Run{}, err
	}
	files["result.json"] = data
	files["benchmark.json"] = doc
	settings := map[string]any{"workload": "google_benchmark", "benchmark": inst.runName, "threads": inst.threads}
	if family, _, ok := strings.Cut(inst.runName, "/"); ok {
		settings["family"] = family
	} else {
		settings["family"] = inst.runName
	}
	for k, v := range context {
		settings[k] = v
	}
	return Run{Slug: inst.runName, Settings: settings, Files: files, ExitCode: exit}, nil
}

// gbCounters are an instance's counters: the median aggregate's, else the
// median of the repetitions'.
func gbCounters(inst *gbInstance, aggregates map[string]map[string]float64) map[string]float64 {
	out := map[string]float64{}
	if med, ok := aggregates["median"]; ok {
		for k, v := range med {
			if k != "real_time" && k != "cpu_time" {
				out[k] = v
			}
		}
	} else {
		byName := map[string][]float64{}
		for i := range inst.iterations {
			if inst.iterations[i].ErrorOccurred {
				continue
			}
			for k, v := range inst.counters[i] {
				byName[k] = append(byName[k], v)
			}
		}
		for k, vs := range byName {
			out[k] = analyze.Median(vs)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
