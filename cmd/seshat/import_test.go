package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const gobenchData = "../../importers/testdata/gobench/"

// TestImportedGoBenchRegression: go test -bench output imported for three
// builds of one history (the same file: each import is a build of its own,
// with run ids of its own, so no upload replaces another), then the output
// of a build whose SortInts does twice the work is judged a regression by
// the default method (exit 2) on every KPI it regressed, and nothing else
// is; the same history with an equal build passes.
func TestImportedGoBenchRegression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := "sqlite:" + filepath.Join(dir, "lts.db")
	importRun := func(results, input, build, when string) {
		t.Helper()
		r := runSeshat(t, nil, "import", "gobench", gobenchData+input, "--results-dir", results,
			"--build-id", build, "--commit", build, "--time", when, "--build-time", when)
		if r.code != 0 {
			t.Fatalf("import %s: exit %d: %s", input, r.code, r.stderr)
		}
	}
	for i, build := range []string{"c1", "c2", "c3"} {
		results := filepath.Join(dir, build)
		importRun(results, "old.txt", build, fmt.Sprintf("2026-01-0%dT10:00:00Z", i+1))
		r := runSeshat(t, nil, "upload", "--results-dir", results, "--store", store)
		if r.code != 0 || !strings.Contains(r.stderr, "32 new, 0 replaced") {
			t.Fatalf("upload %s: exit %d, want 32 new runs: %s", build, r.code, r.stderr)
		}
	}
	slow := filepath.Join(dir, "c4")
	importRun(slow, "new.txt", "c4", "2026-01-04T10:00:00Z")
	r := runSeshat(t, nil, "regression", "--results-dir", slow, "--history", store,
		"--report-dir", filepath.Join(dir, "report"))
	if r.code != 2 {
		t.Fatalf("regression on the slower build: exit %d, want 2: %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, kpi := range []string{"allocs_per_op", "allocated_bytes_per_op", "time_per_op_seconds"} {
		// The table may shorten a long entry name with "…".
		if !slices.ContainsFunc(kpiRows(r.stdout, kpi), regexp.MustCompile(`^\d+ +benchmark=SortIn\S* +regression `).MatchString) {
			t.Errorf("no %s regression of SortInts:\n%s", kpi, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, " regression "); n != 3 {
		t.Errorf("%d regressions, want SortInts' three:\n%s", n, r.stdout)
	}
	same := filepath.Join(dir, "c5")
	importRun(same, "old.txt", "c5", "2026-01-05T10:00:00Z")
	r = runSeshat(t, nil, "regression", "--results-dir", same, "--history", store,
		"--report-dir", filepath.Join(dir, "report-same"))
	if r.code != 0 {
		t.Fatalf("regression on an equal build: exit %d, want 0: %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// importPair imports old.txt and new.txt as two results directories.
func importPair(t *testing.T) (string, string) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, x := range []struct{ results, input, when string }{{a, "old.txt", "2026-01-01T00:00:00Z"}, {b, "new.txt", "2026-01-02T00:00:00Z"}} {
		r := runSeshat(t, nil, "import", "gobench", gobenchData+x.input, "--results-dir", x.results, "--expe", "kernels", "--time", x.when)
		if r.code != 0 {
			t.Fatalf("import: exit %d: %s", r.code, r.stderr)
		}
	}
	return a, b
}

func TestCompareGoBenchGolden(t *testing.T) {
	t.Parallel()
	a, b := importPair(t)
	for _, format := range []string{"text", "csv", "markdown", "json"} {
		r := runSeshat(t, nil, "compare", a, b, "--format", format)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		out := strings.NewReplacer(a, "old", b, "new").Replace(r.stdout)
		checkGolden(t, "compare_gobench."+format, out)
	}
	if r := runSeshat(t, nil, "compare", a, b, "--fail-on-worse"); r.code != 2 {
		t.Errorf("--fail-on-worse with SortInts twice slower: exit %d, want 2", r.code)
	}
	if r := runSeshat(t, nil, "compare", a, a, "--fail-on-worse"); r.code != 0 {
		t.Errorf("a side against itself: exit %d, want 0: %s", r.code, r.stderr)
	}
}

// TestCompareStoreBuildsGolden: two builds of a store compare as the two
// results directories they were uploaded from (the same tables, names
// aside), in every format; a build and a directory compare too.
func TestCompareStoreBuildsGolden(t *testing.T) {
	t.Parallel()
	a, b := importPair(t)
	dir := t.TempDir()
	store := "sqlite:" + filepath.Join(dir, "lts.db")
	for _, side := range []struct{ results, build string }{{a, "old"}, {b, "new"}} {
		// The payloads as upload stores them once entries carry their
		// build.json: metadata.build set.
		file := filepath.Join(dir, side.build+".json")
		if r := runSeshat(t, nil, "parse", "--results-dir", side.results, "--output-lts", file); r.code != 0 {
			t.Fatalf("parse: exit %d: %s", r.code, r.stderr)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var payloads []map[string]any
		if err := json.Unmarshal(data, &payloads); err != nil {
			t.Fatal(err)
		}
		for _, p := range payloads {
			p["metadata"].(map[string]any)["build"] = map[string]any{"id": side.build, "commit": side.build + "-sha"}
		}
		data, _ = json.Marshal(payloads)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runSeshat(t, nil, "upload", "--lts", file, "--store", store); r.code != 0 || !strings.Contains(r.stderr, "32 new") {
			t.Fatalf("upload: exit %d: %s", r.code, r.stderr)
		}
	}
	names := strings.NewReplacer("build:old", "old", "build:new", "new")
	for _, format := range []string{"text", "csv", "markdown", "json"} {
		r := runSeshat(t, nil, "compare", "--store", store, "build:old", "build:new", "--format", format)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		if format == "text" {
			checkGolden(t, "compare_gobench_builds.text", r.stdout)
		}
		want, err := os.ReadFile(filepath.Join(goldenDir, "compare_gobench."+format))
		if err != nil {
			t.Fatal(err)
		}
		if got := names.Replace(r.stdout); got != string(want) {
			t.Errorf("%s: the builds do not compare as their directories:\n%s", format, firstDiff(got, string(want)))
		}
	}
	r := runSeshat(t, nil, "compare", "--store", store, "build:old", b, "--fail-on-worse")
	if r.code != 2 || !strings.Contains(r.stdout, "A: build:old\nB: "+b) {
		t.Errorf("a build against a directory: exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--store", store, "build:old", "build:nope"}, 3, `no run of build "nope" in sqlite:`},
		{[]string{"--store", "sqlite:" + filepath.Join(dir, "none.db"), "build:old", "build:new"}, 3, "none.db"},
		{[]string{"--store", store, "build:", "build:new"}, 4, `"build:" names no build`},
	} {
		if r := runSeshat(t, nil, append([]string{"compare"}, tc.args...)...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q: %s", tc.args, r.code, tc.code, tc.want, r.stderr)
		}
	}
}

// benchstatUnits maps benchstat's units to the gobench workload's KPIs.
var benchstatUnits = map[string]string{
	"sec/op": "time_per_op_seconds", "B/s": "throughput_bytes_per_second",
	"B/op": "allocated_bytes_per_op", "allocs/op": "allocs_per_op",
}

// TestCompareAgreesWithBenchstat runs benchstat (golang.org/x/perf/cmd/benchstat,
// found on PATH or in SESHAT_TEST_BENCHSTAT) and seshat compare on the same
// two go test -bench outputs: for every benchmark x unit, both say "~" or
// both report a change of the same sign.
func TestCompareAgreesWithBenchstat(t *testing.T) {
	bin := os.Getenv("SESHAT_TEST_BENCHSTAT")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("benchstat"); err != nil {
			t.Skip("benchstat not found: go install golang.org/x/perf/cmd/benchstat@<version> and put it on PATH or in SESHAT_TEST_BENCHSTAT")
		}
	}
	out, err := exec.Command(bin, "-format", "csv", gobenchData+"old.txt", gobenchData+"new.txt").Output()
	if err != nil {
		t.Fatalf("benchstat: %v", err)
	}
	theirs := map[string]string{} // kpi + entry -> "~" or the delta
	unit := ""
	for _, line := range strings.Split(string(out), "\n") {
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) < 7 {
			continue
		}
		if rec[0] == "" && rec[1] != "" && !strings.Contains(rec[1], "/") || rec[0] == "" && benchstatUnits[rec[1]] != "" {
			unit = rec[1]
			continue
		}
		if k := benchstatUnits[unit]; k != "" && rec[0] != "" && rec[0] != "geomean" {
			entry := rec[0][:strings.LastIndex(rec[0], "-")] // Dot/n=64-2 -> Dot/n=64
			theirs[k+" "+entry] = rec[5]
		}
	}
	a, b := importPair(t)
	r := runSeshat(t, nil, "compare", a, b, "--format", "csv")
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, row := range rows[1:] {
		kpi, entry, delta, significant := row[1], row[4], row[13], row[15] == "true"
		if entry == "geomean" {
			continue
		}
		want, ok := theirs[kpi+" "+entry]
		if !ok {
			t.Errorf("%s %s: not in benchstat's output", kpi, entry)
			continue
		}
		checked++
		switch {
		case want == "~" && significant:
			t.Errorf("%s %s: benchstat says ~, seshat %s%%", kpi, entry, delta)
		case want != "~" && !significant:
			t.Errorf("%s %s: benchstat says %s, seshat ~", kpi, entry, want)
		case want != "~" && (want[0] == '-') != strings.HasPrefix(delta, "-"):
			t.Errorf("%s %s: benchstat says %s, seshat %s%%", kpi, entry, want, delta)
		}
	}
	if checked != len(theirs) || checked < 10 {
		t.Errorf("checked %d of benchstat's %d results", checked, len(theirs))
	}
}

// TestImportExpeStaysInTheResultsDirectory: `seshat import --expe ../../x`
// wrote its experiment two levels above the results directory. --expe is
// checked as `seshat run` checks experiment names: exit 4 naming the flag,
// nothing written anywhere.
func TestImportExpeStaysInTheResultsDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	work := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	input, err := filepath.Abs(gobenchData + "old.txt")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(work, "res2")
	r := runSeshat(t, nil, "import", "gobench", input, "--results-dir", results, "--expe", filepath.Join(results, "..", "..", "x"))
	r2 := runSeshat(t, nil, "import", "gobench", input, "--results-dir", results, "--expe", "../../x")
	for _, r := range []result{r, r2} {
		if r.code != 4 || !strings.Contains(r.stderr, "--expe") || !strings.Contains(r.stderr, "experiment names become directory names") {
			t.Errorf("exit %d, want 4 naming --expe and what a name may hold:\n%s", r.code, r.stderr)
		}
	}
	var written []string
	filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
		if path != base && path != filepath.Join(base, "a") && path != work {
			written = append(written, path)
		}
		return nil
	})
	if len(written) != 0 {
		t.Errorf("a refused import wrote %d files and directories: %v...", len(written), written[:min(3, len(written))])
	}
}

// TestImportedFormatsParseAndUpload: the real files of every format that
// `seshat import` reads become runs that parse strictly (--output-lts
// validates each payload) and upload, failed runs included.
func TestImportedFormatsParseAndUpload(t *testing.T) {
	t.Parallel()
	const data = "../../importers/testdata/"
	for _, tc := range []struct {
		format string
		inputs []string
		runs   int
	}{
		{"google-benchmark", []string{data + "googlebench/kernels.json", data + "googlebench/aggregates_only.json"}, 12},
		{"hyperfine", []string{data + "hyperfine/commands.json", data + "hyperfine/scan.json"}, 6},
		{"criterion", []string{data + "criterion/target/criterion"}, 4},
		{"asv", []string{data + "asv/results/Docker_Container/05baf11f-virtualenv-py3.12-matplotlib-netcdf4-numpy-pandas-pint-pooch-pyproj-scipy-traitlets-xarray.json"}, 6},
		{"jmh", []string{data + "jmh/jcasbin-jmh-result.json", data + "jmh/jmh-demo-jmh-result.json"}, 5},
		{"gobench", []string{gobenchData + "old.txt"}, 32},
		{"pytest-benchmark", []string{data + "pytest/benchmark.json"}, 5},
		{"mlperf", []string{data + "mlperf/offline/mlperf_log_summary.txt"}, 1},
		{"thoth", []string{data + "thoth/inspection-test-e666815e.json"}, 5},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			results := filepath.Join(dir, "results")
			args := append([]string{"import", tc.format}, tc.inputs...)
			r := runSeshat(t, nil, append(args, "--results-dir", results, "--expe", "e", "--commit", "c1", "--time", "2026-01-02T03:04:05Z")...)
			if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("imported %d runs", tc.runs)) {
				t.Fatalf("import: exit %d, want %d runs: %s", r.code, tc.runs, r.stderr)
			}
			lts := filepath.Join(dir, "lts.json")
			if r := runSeshat(t, nil, "parse", "--results-dir", results, "--output-lts", lts); r.code != 0 {
				t.Fatalf("parse --output-lts: exit %d: %s", r.code, r.stderr)
			}
			var payloads []map[string]any
			if data, err := os.ReadFile(lts); err != nil || json.Unmarshal(data, &payloads) != nil || len(payloads) != tc.runs {
				t.Fatalf("%s: %d payloads, want %d (%v)", lts, len(payloads), tc.runs, err)
			}
			r = runSeshat(t, nil, "upload", "--results-dir", results, "--store", "sqlite:"+filepath.Join(dir, "lts.db"))
			if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("%d new", tc.runs)) {
				t.Fatalf("upload: exit %d, want %d new runs: %s", r.code, tc.runs, r.stderr)
			}
		})
	}
}
