package importers

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/parsers"
)

// TestImportBadInput: an empty, truncated, wrong-typed or huge file of
// each JSON format is reported naming the file and, where the file has
// one, the line and the field; a wrong-typed row of a file is skipped with
// a warning and the other rows are imported.
func TestImportBadInput(t *testing.T) {
	t.Parallel()
	crit := "testdata/criterion/target/criterion/fib/10/new/"
	for _, tc := range []struct {
		format string
		real   string // the real file the bad ones are made of
		// wrong replaces the first match with a value of the wrong type;
		// field is what the message names.
		wrong, with, field string
		// rowSkipped: the wrong-typed row is skipped, the rest imported.
		rowSkipped bool
	}{
		{"google-benchmark", "testdata/googlebench/kernels.json", `"real_time": [0-9.e+-]+`, `"real_time": "fast"`, "field real_time", true},
		{"hyperfine", "testdata/hyperfine/commands.json", `"mean": [0-9.e+-]+`, `"mean": "slow"`, "field mean", true},
		{"asv", "testdata/asv/results/Docker_Container/" + asvResultFile, `\[\[0\.00566928181797266\]`, `["fast"`, `field results["apparent_temp_benchmarks.TimeSuite.time_apparent_temperature"] result`, true},
		{"jmh", "testdata/jmh/jcasbin-jmh-result.json", `"score" : [0-9.e+-]+`, `"score" : "high"`, "field primaryMetric.score", true},
		{"criterion", crit + "estimates.json", `"point_estimate":[0-9.e+-]+`, `"point_estimate":"quick"`, "field mean.point_estimate", false},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			real, err := os.ReadFile(tc.real)
			if err != nil {
				t.Fatal(err)
			}
			loc := regexp.MustCompile(tc.wrong).FindIndex(real)
			if loc == nil {
				t.Fatalf("%s: no %s", tc.real, tc.wrong)
			}
			wrong := append(append(append([]byte(nil), real[:loc[0]]...), tc.with...), real[loc[1]:]...)
			line := 1 + bytes.Count(real[:loc[0]], []byte("\n"))
			name := filepath.Base(tc.real)
			for _, bad := range []struct {
				what string
				data []byte
				want []string
			}{
				{"empty", nil, []string{name + ":1:", "empty document"}},
				{"truncated", real[:len(real)/2], []string{name + ":", "truncated JSON document"}},
				{"wrong-typed", wrong, []string{fmt.Sprintf("%s:%d:", name, line), tc.field}},
				{"huge", nil, []string{name, parsers.ErrTooLarge.Error()}},
			} {
				input := writeBad(t, tc.format, tc.real, bad.data, bad.what == "huge")
				s, err := Import(tc.format, []string{input}, t.TempDir(), Options{Expe: "e"})
				msg := fmt.Sprint(err)
				if bad.what == "wrong-typed" && tc.rowSkipped {
					if err != nil || s.Runs == 0 || len(s.Warnings) != 1 {
						t.Errorf("%s: %v, %d runs, warnings %q: want the other rows imported and one warning", bad.what, err, s.Runs, s.Warnings)
						continue
					}
					msg = s.Warnings[0]
				} else if err == nil {
					t.Errorf("%s: imported %d runs, want an error", bad.what, s.Runs)
					continue
				}
				for _, w := range bad.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: %q does not name %q", bad.what, msg, w)
					}
				}
			}
		})
	}
}

// writeBad writes a bad copy of a real file in a new directory, by the
// same name, with the files a criterion benchmark.json needs beside it (a
// bad estimates.json is one of them), and returns the path to import.
// huge makes it one byte over the size limit (sparse: nothing written).
func writeBad(t *testing.T, format, real string, data []byte, huge bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "new")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(real))
	if format == "criterion" {
		for _, f := range []string{criterionIDFile, criterionSampleFile} {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(real), f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if huge {
		if err := os.Truncate(path, parsers.DefaultLimit+1); err != nil {
			t.Fatal(err)
		}
	}
	if format == "criterion" {
		return filepath.Dir(dir) // the tree: Files finds new/benchmark.json
	}
	return path
}
