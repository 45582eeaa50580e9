package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	seriesCSV  = "../../testdata/series/kpis.csv"
	seriesJSON = "../../testdata/series/step.json"
)

func TestChangePointsGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		golden string
		args   []string
	}{
		{"text", "changepoints/kpis.txt", []string{"changepoints", seriesCSV}},
		{"json", "changepoints/kpis.json", []string{"changepoints", seriesCSV, "--format", "json"}},
		{"one metric", "changepoints/rate.txt", []string{"changepoints", seriesCSV, "--metric", "rate_gflops"}},
		{"JSON input without time", "changepoints/step.txt", []string{"changepoints", seriesJSON}},
		{"JSON input without time, JSON out", "changepoints/step.json", []string{"changepoints", seriesJSON, "--format", "json"}},
		{"zscore", "changepoints/zscore.txt", []string{"changepoints", seriesCSV, "--method", "zscore", "--threshold", "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			golden(t, tc.golden, r.stdout)
		})
	}
}

func TestChangePointsJSONContract(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "changepoints", seriesCSV, "--format", "json")
	var doc struct {
		Series map[string][]map[string]any `json:"series"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	rate := doc.Series["rate_gflops"]
	if len(rate) != 1 || len(doc.Series["import_seconds"]) != 0 {
		t.Fatalf("series %v", doc.Series)
	}
	for _, key := range []string{"index", "time", "mean_before", "mean_after", "stddev_before", "stddev_after", "pvalue", "magnitude", "forward_change_percent"} {
		if _, ok := rate[0][key]; !ok {
			t.Errorf("change point has no %q: %v", key, rate[0])
		}
	}
	// The planted 10% drop at row 30 (2025-03-31).
	if rate[0]["index"] != 30.0 || rate[0]["time"] != "2025-03-31" {
		t.Errorf("change point %v, want index 30 at 2025-03-31", rate[0])
	}
}

func TestChangePointsExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.csv", "")
	headerOnly := write("header.csv", "a,b\n")
	badCell := write("bad.csv", "a,b\n1,2\n3,x\n")
	ragged := write("ragged.csv", "a,b\n1,2\n3\n")
	binary := write("bin.json", "\x00\x01{")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"empty file", []string{empty}, 3, "empty file"},
		{"header only", []string{headerOnly}, 3, "no rows"},
		{"unknown metric", []string{seriesCSV, "--metric", "nope"}, 4, `no series "nope" (series: rate_gflops, latency_ms, import_seconds)`},
		{"unknown method", []string{seriesCSV, "--method", "bayes"}, 4, `unknown method "bayes"`},
		{"method without change points", []string{seriesCSV, "--method", "mannwhitney"}, 4, "mannwhitney compares batches"},
		{"bad window", []string{seriesCSV, "--window-len", "1"}, 4, "window length 1"},
		{"bad p-value", []string{seriesCSV, "--max-pvalue", "2"}, 4, "max p-value 2"},
		{"bad format", []string{seriesCSV, "--format", "xml"}, 4, `"xml" is not text or json`},
		{"bad cell", []string{badCell}, 4, `bad.csv:3: row 2, column "b": "x" is not a number`},
		{"ragged row", []string{ragged}, 4, "ragged.csv:3: row 2 has 1 fields, the header has 2"},
		{"binary", []string{binary}, 4, "binary content"},
		{"no file", []string{}, 4, "one series file is required"},
		{"missing file", []string{filepath.Join(dir, "nope.csv")}, 4, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, append([]string{"changepoints"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d with %q", r.code, r.stderr, tc.code, tc.msg)
			}
			if r.code != 0 && r.stdout != "" {
				t.Errorf("output on failure: %q", r.stdout)
			}
		})
	}
}

func TestChangePointsSettings(t *testing.T) {
	t.Parallel()
	// min_magnitude 0.2 from the environment drops both changes (10% and 15%).
	r := runSeshat(t, map[string]string{"SESHAT_MIN_MAGNITUDE": "0.2"}, "changepoints", seriesCSV)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "no change point in 3 series") {
		t.Errorf("SESHAT_MIN_MAGNITUDE=0.2: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The same from seshat.yaml; the flag wins over the file.
	cfg := filepath.Join(t.TempDir(), "seshat.yaml")
	if err := os.WriteFile(cfg, []byte("regression_analyses:\n  min_magnitude: 0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runSeshat(t, nil, "--config", cfg, "changepoints", seriesCSV)
	if !strings.HasPrefix(r.stdout, "no change point in 3 series") {
		t.Errorf("config min_magnitude 0.2:\n%s%s", r.stdout, r.stderr)
	}
	r = runSeshat(t, nil, "--config", cfg, "changepoints", seriesCSV, "--min-magnitude", "0.12")
	if !strings.Contains(r.stdout, "latency_ms") || strings.Contains(r.stdout, "rate_gflops  30") {
		t.Errorf("--min-magnitude 0.12 over the config: want only the 15%% change:\n%s%s", r.stdout, r.stderr)
	}
}

func TestChangePointsOutputFile(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "cps.json")
	r := runSeshat(t, nil, "changepoints", seriesCSV, "--format", "json", "--output", out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil || !json.Valid(data) {
		t.Errorf("output file: %v %q", err, data)
	}
}

// TestChangePointsSpikeIsNotAChange: column b forward-fills to [2, 2, 3],
// whose last value alone is a spike, not a new level; no method reports it.
func TestChangePointsSpikeIsNotAChange(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "spike.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n1.1,\n1.2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"edivisive", "segment", "zscore", "threshold"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, "changepoints", path, "--method", method)
			if r.code != 0 || r.stdout != "no change point in 2 series: a, b\n" {
				t.Errorf("exit %d, stdout %q; want 0 and no change point", r.code, r.stdout)
			}
			if !strings.Contains(r.stderr, `series "b": 3 point(s): `) || !strings.Contains(r.stderr, "needs at least") {
				t.Errorf("stderr %q: want a too-few-points warning for b", r.stderr)
			}
			r = runSeshat(t, nil, "changepoints", path, "--method", method, "--format", "json")
			if r.code != 0 || !strings.Contains(r.stdout, `"b": []`) {
				t.Errorf("JSON: exit %d, stdout %s", r.code, r.stdout)
			}
		})
	}
}

func TestChangePointsBadValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, file string
		code       int
		stdout     string // a line of the output
		stderr     string
	}{
		{"constant", write("const.csv", "a\n5\n5\n5\n5\n5\n5\n"), 0, "no change point in 1 series: a", "all 6 values are equal"},
		{"one point", write("one.csv", "a\n5\n"), 0, "no change point in 1 series: a", "1 point(s)"},
		{"two points", write("two.csv", "a\n5\n6\n"), 0, "no change point in 1 series: a", "2 point(s)"},
		{"NaN", write("nan.csv", "a\n1\nNaN\n2\n"), 4, "", `nan.csv:3: row 2, column "a": "NaN" is not a finite number`},
		{"infinite", write("inf.csv", "a\n1\n2\n-Inf\n"), 4, "", `inf.csv:4: row 3, column "a": "-Inf" is not a finite number`},
		{"a column with no value", write("nothing.csv", "a,b\n1,\n2,\n1,\n2,\n"), 0, "no change point in 2 series: a, b", `series "b" has no values`},
		// A gap is the value before it: 1 1 1 1 5 5, a level of two points.
		{"gaps", write("gaps.csv", "a,b\n1,0\n,0\n1,0\n,0\n5,0\n,0\n"), 0, "a       4      1            5", `series "b": all 6 values are equal`},
		// From a mean of 0 the change in percent is undefined: "-", not +0%.
		{"from 0", write("zero.csv", "a\n0\n0\n0\n0\n2\n2\n2\n2\n"), 0, "a       4      0            2           0              0             0        1.0000     -", ""},
		{"a failed run at 0", write("dip.csv", "a\n10\n10.1\n9.9\n10\n0\n10.1\n9.9\n10\n10.1\n"), 0, "no change point in 1 series: a", ""},
	}
	for _, tc := range tests {
		for _, method := range []string{"edivisive", "segment", "zscore", "threshold"} {
			if method == "segment" && tc.name == "gaps" {
				continue // a level of two points at the end is a spike to segment
			}
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				r := runSeshat(t, nil, "changepoints", tc.file, "--method", method)
				if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
					t.Errorf("exit %d\n%s%s\nwant exit %d, output with %q, stderr with %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
				}
			})
		}
	}
}

// TestChangePointsFromZero: a change from a level of 0 is found, and its
// change in percent, undefined, is null in JSON rather than 0.
func TestChangePointsFromZero(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "zero.csv")
	if err := os.WriteFile(path, []byte("a\n0\n0\n0\n0\n2\n2\n2\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, nil, "changepoints", path, "--format", "json")
	var doc struct {
		Series map[string][]map[string]any `json:"series"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %s%s", err, r.stdout, r.stderr)
	}
	a := doc.Series["a"]
	if len(a) != 1 || a[0]["index"] != 4.0 {
		t.Fatalf("change points %v, want one at 4", a)
	}
	if v, ok := a[0]["forward_change_percent"]; !ok || v != nil {
		t.Errorf("forward_change_percent %v, want null", v)
	}
}
