package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// asv reads airspeed velocity's result files, results/<machine>/<commit
// hash>-<environment>.json, in asv's format version 2 (asv 0.5 and later:
// each benchmark a row of the columns result_columns names). One run per
// benchmark and parameter combination (asv's result holds one value per
// combination of its params, in itertools.product order). The file's
// commit_hash and date (the commit's) give build.json; the benchmark's
// started_at and duration the run's times; params (the machine's and the
// environment's) and the machine.json beside the file give settings. A
// combination asv recorded no value for (null: the benchmark failed) is a
// failed run, exit code 1. What the value is comes from the benchmark's
// name, as asv names them: time_ and timeraw_ are seconds, mem_ and
// peakmem_ bytes, track_ a number in the benchmark's own unit.
type asv struct{}

func init() { register(asv{}) }

func (asv) Format() string { return "asv" }

type asvDoc struct {
	CommitHash    string            `json:"commit_hash"`
	EnvName       string            `json:"env_name"`
	Date          *float64          `json:"date"`
	Params        map[string]any    `json:"params"`
	Python        string            `json:"python"`
	Requirements  map[string]any    `json:"requirements"`
	ResultColumns []string          `json:"result_columns"`
	Results       json.RawMessage   `json:"results"`
	Version       *int              `json:"version"`
	Durations     map[string]any    `json:"durations"`
	EnvVars       map[string]string `json:"env_vars"`
}

// AsvMachineFile is asv's description of the machine, beside its results.
const AsvMachineFile = "machine.json"

// AsvResult is result.json in an imported asv run directory.
type AsvResult struct {
	Benchmark string `json:"benchmark"`
	// Params are this combination's parameter values, as asv wrote them
	// (Python reprs).
	Params []string  `json:"params,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	// Kind is time, timeraw, mem, peakmem or track (the name's prefix).
	Kind string `json:"kind"`
	// Value is asv's result; by kind also as TimeSeconds, MemoryBytes,
	// PeakMemoryBytes or TrackValue. Absent when the benchmark failed.
	Value           *float64 `json:"value,omitempty"`
	TimeSeconds     *float64 `json:"time_seconds,omitempty"`
	MemoryBytes     *float64 `json:"memory_bytes,omitempty"`
	PeakMemoryBytes *float64 `json:"peak_memory_bytes,omitempty"`
	TrackValue      *float64 `json:"track_value,omitempty"`
	// Samples, when asv recorded them (--record-samples).
	Samples []float64 `json:"samples,omitempty"`
	// Stats are the stats_ columns of this combination: ci_99_a, ci_99_b,
	// q_25, q_75, number, repeat.
	Stats map[string]float64 `json:"stats,omitempty"`
	// Version is the benchmark's code version (a hash asv computes).
	Version string `json:"version,omitempty"`
	// Line is where the benchmark's row starts in the original file.
	Line int `json:"line"`
}

func (asv) Read(in Input, opts Options) ([]Run, []string, error) {
	var doc asvDoc
	if err := parsers.JSON(in.Name, in.Data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Results == nil || doc.CommitHash == "" {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "not an asv result file: want commit_hash and results (results/<machine>/<commit>-<env>.json)"}
	}
	if doc.Version == nil || *doc.Version != 2 || doc.ResultColumns == nil {
		v := "none"
		if doc.Version != nil {
			v = fmt.Sprint(*doc.Version)
		}
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "version", Msg: fmt.Sprintf("asv result format version %s: want 2, with result_columns (asv update converts older results)", v)}
	}
	rows, err := jsonMembers(in.Name, in.Data, "results")
	if err != nil {
		return nil, nil, err
	}
	if rows == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "results", Msg: "not an object"}
	}
	var warnings []string
	build := &models.Build{Commit: doc.CommitHash}
	if doc.Date != nil && *doc.Date > 0 && *doc.Date < 1e15 {
		build.Time = time.UnixMilli(int64(*doc.Date)).UTC()
	}
	build = opts.merge(build)
	settings := asvSettings(doc)
	files := map[string][]byte{}
	machinePath := filepath.Join(filepath.Dir(in.Name), AsvMachineFile)
	if data, err := parsers.ReadLimited(machinePath, parsers.DefaultLimit); err == nil {
		var machine map[string]any
		if err := parsers.JSON(machinePath, data, &machine); err != nil {
			warnings = append(warnings, err.Error())
		} else {
			for _, k := range []string{"machine", "arch", "cpu", "num_cpu", "os", "ram"} {
				if _, ok := settings[k]; !ok && machine[k] != nil {
					settings[k] = asvSettingValue(machine[k])
				}
			}
			files[AsvMachineFile] = data
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		warnings = append(warnings, fmt.Sprintf("%s: %v", machinePath, unwrapPath(err)))
	}
	col := map[string]int{}
	for i, c := range doc.ResultColumns {
		col[c] = i
	}
	if _, ok := col["result"]; !ok {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "result_columns", Msg: "no result column"}
	}
	var runs []Run
	for _, m := range rows {
		rs, err := asvRuns(in, m, col, doc, settings, files, opts, build)
		var se *parsers.SyntaxError
		if errors.As(err, &se) {
			warnings = append(warnings, fmt.Sprintf("%v, skipped", err)) // it names the benchmark
			continue
		} else if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v, skipped", memberName("results", 0, m), err))
			continue
		}
		runs = append(runs, rs...)
	}
	if len(runs) == 0 && len(warnings) > 0 {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: fmt.Sprintf("no benchmark read, %d malformed (first: %s)", len(warnings), warnings[0])}
	}
	return runs, warnings, nil
}

// asvSettings are the settings every run of a file shares: the machine's
// and environment's params, the Python version, the environment's name,
// and the version of each requirement that names one (req_<name>).
func asvSettings(doc asvDoc) map[string]any {
	out := map[string]any{}
	for k, v := range doc.Params {
		if _, req := doc.Requirements[k]; req || v == nil {
			continue
		}
		if s := asvSettingValue(v); s != "" {
			out[settingKey.ReplaceAllString(k, "_")] = s
		}
	}
	for k, v := range doc.Requirements {
		if s := asvSettingValue(v); s != "" {
			out["req_"+settingKey.ReplaceAllString(k, "_")] = s
		}
	}
	if doc.Python != "" {
		out["python"] = doc.Python
	}
	if doc.EnvName != "" {
		out["env_name"] = doc.EnvName
	}
	return out
}

// asvSettingValue is a machine or environment param as a setting: asv
// writes them as strings ("64" CPUs); numbers are kept as numbers.
func asvSettingValue(v any) any {
	switch x := v.(type) {
	case string:
		return parsers.ScalarValue(strings.TrimSpace(x))
	case float64, bool:
		return x
	}
	return ""
}

// asvRow is one benchmark's row, by column name.
type asvRow struct {
	result    []*float64
	params    [][]string
	version   string
	startedAt *float64
	duration  *float64
	stats     map[string][]*float64
	samples   [][]float64
}

func decodeAsvRow(in Input, m jsonMember, col map[string]int) (asvRow, error) {
	var cells []json.RawMessage
	if err := m.decode(in.Name, &cells); err != nil {
		return asvRow{}, err
	}
	var r asvRow
	get := func(name string, v any) error {
		i, ok := col[name]
		if !ok || i >= len(cells) || string(cells[i]) == "null" {
			return nil
		}
		if err := json.Unmarshal(cells[i], v); err != nil {
			return &parsers.SyntaxError{File: in.Name, Line: m.Line, Field: fmt.Sprintf("results[%q] %s", m.Name, name), Msg: strings.TrimPrefix(err.Error(), "json: ")}
		}
		return nil
	}
	errs := []error{get("result", &r.result), get("params", &r.params), get("version", &r.version),
		get("started_at", &r.startedAt), get("duration", &r.duration), get("samples", &r.samples)}
	for name := range col {
		if stat, ok := strings.CutPrefix(name, "stats_"); ok {
			var v []*float64
			errs = append(errs, get(name, &v))
			if v != nil {
				if r.stats == nil {
					r.stats = map[string][]*float64{}
				}
				r.stats[stat] = v
			}
		}
	}
	return r, errors.Join(errs...)
}

func asvRuns(in Input, m jsonMember, col map[string]int, doc asvDoc, shared map[string]any, extra map[string][]byte, opts Options, build *models.Build) ([]Run, error) {
	r, err := decodeAsvRow(in, m, col)
	if err != nil {
		return nil, err
	}
	combos := [][]string{nil}
	for _, values := range r.params {
		var next [][]string
		for _, c := range combos {
			for _, v := range values {
				next = append(next, append(append([]string(nil), c...), v))
			}
		}
		combos = next
		if len(combos) > 1<<16 {
			return nil, fmt.Errorf("%s:%d: more than %d parameter combinations", in.Name, m.Line, 1<<16)
		}
	}
	if len(r.result) != len(combos) {
		return nil, fmt.Errorf("%s:%d: %d results for %d parameter combinations", in.Name, m.Line, len(r.result), len(combos))
	}
	name := m.Name
	kind := name[strings.LastIndex(name, ".")+1:]
	kind, _, _ = strings.Cut(kind, "_")
	start := opts.start(build, in)
	if opts.Time.IsZero() && r.startedAt != nil && *r.startedAt > 0 && *r.startedAt < 1e15 {
		start = time.UnixMilli(int64(*r.startedAt)).UTC()
	}
	end := start
	if r.duration != nil {
		end = endAfter(start, *r.duration)
	}
	var runs []Run
	for i, combo := range combos {
		res := AsvResult{Benchmark: name, Params: combo, Start: start, End: end, Kind: kind, Version: r.version, Line: m.Line}
		exit := 0
		files := map[string][]byte{}
		if v := r.result[i]; v == nil {
			exit = 1
			files["stderr.log"] = []byte("asv recorded no result: the benchmark failed\n")
		} else {
			val := *v
			res.Value = &val
			switch kind {
			case "time", "timeraw":
				res.TimeSeconds = &val
			case "mem":
				res.MemoryBytes = &val
			case "peakmem":
				res.PeakMemoryBytes = &val
			case "track":
				res.TrackValue = &val
			}
		}
		if i < len(r.samples) {
			res.Samples = r.samples[i]
		}
		for stat, values := range r.stats {
			if i < len(values) && values[i] != nil {
				if res.Stats == nil {
					res.Stats = map[string]float64{}
				}
				res.Stats[stat] = *values[i]
			}
		}
		data, err := jsonFile(res)
		if err != nil {
			return nil, err
		}
		files["result.json"] = data
		for k, v := range extra {
			files[k] = v
		}
		settings := map[string]any{"workload": "asv", "benchmark": name}
		for k, v := range shared {
			settings[k] = v
		}
		slug := name
		if len(combo) > 0 {
			settings["params"] = strings.Join(combo, ", ")
			for j, v := range combo {
				settings[fmt.Sprintf("param_%d", j+1)] = parsers.ScalarValue(strings.Trim(v, `'"`))
			}
			slug += "_" + strings.Join(combo, "_")
		}
		runs = append(runs, Run{Slug: slug, Settings: settings, Files: files, Build: build, ExitCode: exit})
	}
	return runs, nil
}
