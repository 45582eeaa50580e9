package importers

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// gobench reads the Go benchmark format (`go test -bench` output, and any
// tool writing it) with golang.org/x/perf/benchfmt: one run per result
// line; file configuration lines (goos, pkg, cpu...) become settings; the
// repetitions of one benchmark (-count) become repeats (@repeat); values
// are in benchfmt's tidied units (sec/op, B/op, allocs/op, B/s) and the
// unit metadata lines (better=, assume=) are kept with them.
type gobench struct{}

func init() { register(gobench{}) }

func (gobench) Format() string { return "gobench" }

// GobenchResult is result.json in an imported gobench run directory.
type GobenchResult struct {
	// Name is the full benchmark name as written (BenchmarkDot/n=64-2).
	Name       string             `json:"name"`
	Benchmark  string             `json:"benchmark"`
	Procs      int                `json:"procs,omitempty"`
	Iterations int                `json:"iterations"`
	Start      time.Time          `json:"start"`
	End        time.Time          `json:"end"`
	Values     map[string]float64 `json:"values"`
	// Units holds the unit metadata of the file: unit -> key -> value.
	Units map[string]map[string]string `json:"units,omitempty"`
	// Line is where the result was read from, in the original file.
	Line int `json:"line"`
}

var procsSuffix = regexp.MustCompile(`-([0-9]+)$`)

var settingKey = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func (gobench) Read(in Input, opts Options) ([]Run, []string, error) {
	r := benchfmt.NewReader(bytes.NewReader(in.Data), in.Name)
	build := opts.merge(nil)
	start := opts.start(build, in)
	units := map[string]map[string]string{}
	var runs []Run
	var warnings []string
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			warnings = append(warnings, rec.Error())
		case *benchfmt.UnitMetadata:
			if units[rec.Unit] == nil {
				units[rec.Unit] = map[string]string{}
			}
			units[rec.Unit][rec.Key] = rec.Value
		case *benchfmt.Result:
			run, err := gobenchRun(rec, start, build, units)
			if err != nil {
				file, line := rec.Pos()
				warnings = append(warnings, fmt.Sprintf("%s:%d: %v, skipped", file, line, err))
				continue
			}
			runs = append(runs, run)
		}
	}
	if err := r.Err(); err != nil {
		return runs, warnings, &parsers.SyntaxError{File: in.Name, Msg: err.Error()}
	}
	if len(runs) == 0 && len(warnings) > 0 {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: fmt.Sprintf("no benchmark result, %d malformed lines (first: %s)", len(warnings), warnings[0])}
	}
	return runs, warnings, nil
}

func gobenchRun(rec *benchfmt.Result, start time.Time, build *models.Build, units map[string]map[string]string) (Run, error) {
	full := string(rec.Name.Full())
	bench, procs := full, 0
	if m := procsSuffix.FindStringSubmatch(full); m != nil {
		bench = full[:len(full)-len(m[0])]
		procs, _ = strconv.Atoi(m[1])
	}
	settings := map[string]any{"workload": "gobench", "benchmark": bench}
	if procs > 0 {
		settings["procs"] = procs
	}
	for _, c := range rec.Config {
		if !c.File {
			continue
		}
		k := settingKey.ReplaceAllString(c.Key, "_")
		if k == "" || k == "workload" || k == "benchmark" || k == "procs" {
			k = "config_" + k
		}
		settings[k] = strings.TrimSpace(string(c.Value))
	}
	res := GobenchResult{Name: full, Benchmark: bench, Procs: procs, Iterations: rec.Iters, Start: start, End: start,
		Values: map[string]float64{}, Units: map[string]map[string]string{}}
	_, res.Line = rec.Pos()
	for _, v := range rec.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			return Run{}, fmt.Errorf("%v %s is not a measurement", v.Value, v.Unit)
		}
		res.Values[v.Unit] = v.Value
		if md := units[v.Unit]; md != nil {
			res.Units[v.Unit] = md
		}
	}
	if sec, ok := res.Values["sec/op"]; ok && sec > 0 && rec.Iters > 0 && sec*float64(rec.Iters) < maxRunSeconds {
		res.End = start.Add(time.Duration(sec * float64(rec.Iters) * float64(time.Second)))
	}
	if len(res.Units) == 0 {
		res.Units = nil
	}
	data, err := jsonFile(res)
	if err != nil {
		return Run{}, err
	}
	return Run{
		Slug:     fmt.Sprintf("%s_procs=%d", bench, procs),
		Settings: settings,
		Files:    map[string][]byte{"result.json": data},
		Build:    build,
	}, nil
}
