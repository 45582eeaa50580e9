package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// pytestBenchmark reads pytest-benchmark's --benchmark-json output: one run
// per benchmark, whose directory holds benchmark.json, the same document
// restricted to that benchmark (machine_info, commit_info, datetime,
// version and its stats, rounds included), and run.json with its start and
// end. commit_info gives the build (commit, branch, time).
type pytestBenchmark struct{}

func init() { register(pytestBenchmark{}) }

func (pytestBenchmark) Format() string { return "pytest-benchmark" }

type pytestDoc struct {
	MachineInfo map[string]any    `json:"machine_info"`
	CommitInfo  map[string]any    `json:"commit_info"`
	Benchmarks  []json.RawMessage `json:"benchmarks"`
	Datetime    string            `json:"datetime"`
	Version     string            `json:"version"`
}

type pytestBench struct {
	Group    *string        `json:"group"`
	Name     string         `json:"name"`
	Fullname string         `json:"fullname"`
	Params   map[string]any `json:"params"`
	Stats    struct {
		Total float64 `json:"total"`
	} `json:"stats"`
}

// RunTimes is run.json: when an imported run started and ended.
type RunTimes struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

func (pytestBenchmark) Read(in Input, opts Options) ([]Run, []string, error) {
	var doc pytestDoc
	if err := parsers.JSON(in.Name, in.Data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Benchmarks == nil || doc.MachineInfo == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "not a pytest-benchmark JSON document: want machine_info and benchmarks (--benchmark-json output)"}
	}
	build := &models.Build{}
	if id, _ := doc.CommitInfo["id"].(string); id != "" && id != "unknown" {
		build.Commit = id
	}
	if br, _ := doc.CommitInfo["branch"].(string); br != "" && br != "(unknown)" {
		build.Ref = br
	}
	if t, _ := doc.CommitInfo["time"].(string); t != "" {
		if ts, err := time.Parse(time.RFC3339, t); err == nil {
			build.Time = ts.UTC()
		}
	}
	build = opts.merge(build)
	start := opts.start(nil, in)
	if opts.Time.IsZero() {
		// pytest-benchmark writes the UTC time of the session, without a zone.
		if t, err := time.Parse("2006-01-02T15:04:05.999999", doc.Datetime); err == nil {
			start = t.UTC()
		}
	}
	python, _ := doc.MachineInfo["python_version"].(string)
	node, _ := doc.MachineInfo["node"].(string)
	var runs []Run
	var warnings []string
	for i, raw := range doc.Benchmarks {
		var b pytestBench
		if err := parsers.JSON(in.Name, raw, &b); err != nil || b.Fullname == "" {
			warnings = append(warnings, fmt.Sprintf("%s: benchmarks[%d]: not a benchmark (no fullname), skipped", in.Name, i))
			continue
		}
		settings := map[string]any{"workload": "pytest_benchmark", "benchmark": b.Fullname}
		if b.Group != nil && *b.Group != "" {
			settings["group"] = *b.Group
		}
		keys := make([]string, 0, len(b.Params))
		for k := range b.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			settings["param_"+settingKey.ReplaceAllString(k, "_")] = b.Params[k]
		}
		if python != "" {
			settings["python_version"] = python
		}
		if node != "" {
			settings["node"] = node
		}
		one := map[string]any{
			"machine_info": doc.MachineInfo, "commit_info": doc.CommitInfo,
			"benchmarks": []json.RawMessage{raw}, "datetime": doc.Datetime, "version": doc.Version,
		}
		end := start
		if b.Stats.Total > 0 && b.Stats.Total < maxRunSeconds {
			end = start.Add(time.Duration(b.Stats.Total * float64(time.Second)))
		}
		name := b.Name
		if name == "" {
			name = b.Fullname[strings.LastIndex(b.Fullname, ":")+1:]
		}
		bdata, err1 := jsonFile(one)
		tdata, err2 := jsonFile(RunTimes{Start: start, End: end})
		if err := errors.Join(err1, err2); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: benchmarks[%d]: %v, skipped", in.Name, i, err))
			continue
		}
		runs = append(runs, Run{
			Slug:     name,
			Settings: settings,
			Files:    map[string][]byte{"benchmark.json": bdata, "run.json": tdata},
			Build:    build,
		})
	}
	return runs, warnings, nil
}
