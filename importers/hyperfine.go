package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/seshat-bench/seshat/parsers"
)

// hyperfine reads hyperfine's --export-json output: one run per command
// (per parameter value of a scan: -P, -L), whose directory holds
// hyperfine.json, the document restricted to that result (times, exit
// codes, parameters), and run.json with its start and end. Every timing of
// `times` is a sample; the parameters are settings (param_<name>) and,
// together, the params setting. A command that exited non-zero in any run
// (hyperfine -i) is a failed run: its exit code is the first non-zero one
// (1 when it was killed by a signal: hyperfine writes no code then).
type hyperfine struct{}

func init() { register(hyperfine{}) }

func (hyperfine) Format() string { return "hyperfine" }

type hyperfineDoc struct {
	Results json.RawMessage `json:"results"`
}

type hyperfineResult struct {
	Command    string         `json:"command"`
	Mean       *float64       `json:"mean"`
	Median     *float64       `json:"median"`
	Times      []float64      `json:"times"`
	ExitCodes  []*int         `json:"exit_codes"`
	Parameters map[string]any `json:"parameters"`
}

func (hyperfine) Read(in Input, opts Options) ([]Run, []string, error) {
	var doc hyperfineDoc
	if err := parsers.JSON(in.Name, in.Data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Results == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "not a hyperfine JSON document: want results (--export-json output)"}
	}
	results, err := jsonMembers(in.Name, in.Data, "results")
	if err != nil {
		return nil, nil, err
	}
	if results == nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Field: "results", Msg: "not an array"}
	}
	build := opts.merge(nil)
	// hyperfine ran the commands one after the other: each starts where
	// the one before ended.
	start := opts.start(build, in)
	var runs []Run
	var warnings []string
	for i, m := range results {
		var r hyperfineResult
		if err := m.decode(in.Name, &r); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v, skipped", memberName("results", i, m), err))
			continue
		}
		if err := hyperfineCheck(r); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %s:%d: %v, skipped", memberName("results", i, m), in.Name, m.Line, err))
			continue
		}
		total := 0.0
		for _, t := range r.Times {
			total += t
		}
		end := endAfter(start, total)
		one, err1 := jsonFile(map[string]any{"results": []json.RawMessage{m.Raw}})
		times, err2 := jsonFile(RunTimes{Start: start, End: end})
		if err := errors.Join(err1, err2); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %s:%d: %v, skipped", memberName("results", i, m), in.Name, m.Line, err))
			continue
		}
		start = end
		settings := map[string]any{"workload": "hyperfine", "command": r.Command}
		values := map[string]string{}
		for k, v := range r.Parameters {
			values[k] = fmt.Sprint(v)
		}
		params := addParams(settings, values)
		exit := 0
		for _, c := range r.ExitCodes {
			if c == nil {
				exit = 1
				break
			}
			if *c != 0 {
				exit = *c
				break
			}
		}
		slug := r.Command
		if len(params) > 0 {
			slug = strings.Join(params, "_")
		}
		runs = append(runs, Run{
			Slug:     slug,
			Settings: settings,
			Files:    map[string][]byte{"hyperfine.json": one, "run.json": times},
			Build:    build,
			ExitCode: exit,
		})
	}
	if len(runs) == 0 && len(warnings) > 0 {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: fmt.Sprintf("no command read, %d malformed (first: %s)", len(warnings), warnings[0])}
	}
	return runs, warnings, nil
}

// hyperfineCheck refuses a result that names no command or whose timings
// cannot be measurements.
func hyperfineCheck(r hyperfineResult) error {
	switch {
	case strings.TrimSpace(r.Command) == "":
		return errors.New("no command")
	case len(r.Times) == 0 && r.Mean == nil:
		return errors.New("no times and no mean")
	case !measurement(r.Times...):
		return errors.New("times holds a negative timing")
	case r.Mean != nil && !measurement(*r.Mean), r.Median != nil && !measurement(*r.Median):
		return errors.New("mean or median is negative")
	}
	return nil
}
