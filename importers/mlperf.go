package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/parsers"
)

// mlperf reads MLPerf LoadGen logs: an mlperf_log_summary.txt (and the
// mlperf_log_detail.txt beside it, when there is one). Each summary is one
// run, its directory holding both files as LoadGen wrote them; the mlperf
// workload file reads scenario, mode, validity, samples per second and
// latency percentiles from them with regular expressions. The detail log's
// test_datetime is the run's start.
type mlperf struct{}

func init() { register(mlperf{}) }

func (mlperf) Format() string { return "mlperf" }

// DetailFile is read beside a summary when present.
const (
	SummaryFile = "mlperf_log_summary.txt"
	DetailFile  = "mlperf_log_detail.txt"
)

// ParseSummary reads the "key : value" lines of an MLPerf LoadGen summary.
// Keys are trimmed; later lines do not override earlier ones (the result
// section comes first). It needs the "MLPerf Results Summary" banner.
func ParseSummary(name string, data []byte) (map[string]string, error) {
	if !bytes.Contains(data, []byte("MLPerf Results Summary")) {
		return nil, &parsers.SyntaxError{File: name, Line: 1, Msg: "not an MLPerf LoadGen summary (no \"MLPerf Results Summary\" banner)"}
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.HasPrefix(k, "*") {
			continue
		}
		if _, seen := out[k]; !seen {
			out[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parsers.SyntaxError{File: name, Msg: err.Error()}
	}
	return out, nil
}

// detailTime returns the test_datetime of a detail log (":::MLLOG {json}"
// lines), zero when absent.
func detailTime(data []byte) time.Time {
	for _, line := range bytes.Split(data, []byte("\n")) {
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(":::MLLOG "))
		if !ok || !bytes.Contains(rest, []byte(`"test_datetime"`)) {
			continue
		}
		var ev struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		}
		if json.Unmarshal(rest, &ev) != nil || ev.Key != "test_datetime" {
			continue
		}
		if s, ok := ev.Value.(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

func (mlperf) Read(in Input, opts Options) ([]Run, []string, error) {
	summary, err := ParseSummary(in.Name, in.Data)
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{SummaryFile: in.Data}
	start := opts.start(nil, in)
	var warnings []string
	detailPath := filepath.Join(filepath.Dir(in.Name), DetailFile)
	if detail, err := parsers.ReadLimited(detailPath, parsers.DefaultLimit); err == nil {
		files[DetailFile] = detail
		if t := detailTime(detail); !t.IsZero() && opts.Time.IsZero() {
			start = t
		}
	} else if !os.IsNotExist(unwrapPath(err)) {
		warnings = append(warnings, detailPath+": "+unwrapPath(err).Error())
	}
	settings := map[string]any{"workload": "mlperf"}
	for key, setting := range map[string]string{"Scenario": "scenario", "Mode": "mode", "SUT name": "sut_name"} {
		if v := summary[key]; v != "" {
			settings[setting] = v
		}
	}
	times, err := jsonFile(RunTimes{Start: start, End: start})
	if err != nil {
		return nil, warnings, &parsers.SyntaxError{File: in.Name, Msg: err.Error()}
	}
	files["run.json"] = times
	slug := strings.Join([]string{str(settings["sut_name"]), str(settings["scenario"]), str(settings["mode"])}, "_")
	return []Run{{Slug: slug, Settings: settings, Files: files, Build: opts.merge(nil)}}, warnings, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
