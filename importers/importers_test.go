package importers

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads"
)

var update = flag.Bool("update", false, "rewrite the golden artifact trees in testdata/golden")

// tree renders a directory for a golden: every file by path, small ones
// with their content, large ones by size and SHA-256.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(data) > 3000 || strings.HasPrefix(filepath.ToSlash(rel), "original/") || strings.Contains(rel, "original/") {
			fmt.Fprintf(&b, "== %s (%d bytes, sha256 %x)\n", filepath.ToSlash(rel), len(data), sha256.Sum256(data))
			return nil
		}
		fmt.Fprintf(&b, "== %s\n%s", filepath.ToSlash(rel), data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden (go test -update to accept):\n%s", name, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, a, b)
		}
	}
	return ""
}

// TestImportGoldens imports the real files of each format in testdata and
// compares the artifact trees written with the goldens.
func TestImportGoldens(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		format string
		inputs []string
		opts   Options
		runs   int
	}{
		{"gobench", []string{"testdata/gobench/old.txt"}, Options{Time: at, Build: models.Build{Commit: "0123abc", Ref: "main"}}, 32},
		{"pytest-benchmark", []string{"testdata/pytest/benchmark.json"}, Options{}, 5},
		{"mlperf", []string{"testdata/mlperf/offline/mlperf_log_summary.txt", "testdata/mlperf/singlestream/mlperf_log_summary.txt"}, Options{Time: at}, 2},
		{"thoth", []string{"testdata/thoth/inspection-test-e666815e.json"}, Options{}, 5},
		{"thoth", []string{"testdata/thoth/pi_matmul.json"}, Options{Time: at}, 1},
		{"google-benchmark", []string{"testdata/googlebench/kernels.json"}, Options{Build: models.Build{Commit: "0123abc"}}, 6},
		{"google-benchmark", []string{"testdata/googlebench/aggregates_only.json"}, Options{Time: at}, 6},
		{"hyperfine", []string{"testdata/hyperfine/commands.json", "testdata/hyperfine/scan.json"}, Options{Time: at}, 6},
		{"criterion", []string{"testdata/criterion/target/criterion"}, Options{Time: at, Build: models.Build{Commit: "0123abc"}}, 4},
		{"asv", []string{"testdata/asv/results/Docker_Container/" + asvResultFile}, Options{}, 6},
		{"jmh", []string{"testdata/jmh/jcasbin-jmh-result.json", "testdata/jmh/jmh-demo-jmh-result.json"}, Options{Time: at}, 5},
	} {
		name := tc.format + "_" + expeName(tc.inputs[0])
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s, err := Import(tc.format, tc.inputs, dir, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if s.Runs != tc.runs || len(s.Dirs) != 1 {
				t.Fatalf("summary %+v, want %d runs in one directory", s, tc.runs)
			}
			golden(t, name+".txt", tree(t, dir))
			// Importing again into the same experiment is refused: nothing
			// already there is mixed with it.
			if _, err := Import(tc.format, tc.inputs, dir, tc.opts); err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Errorf("second import: %v, want already exists", err)
			}
		})
	}
}

// asvResultFile is the real asv result file in testdata/asv (its name is
// asv's: commit, then environment).
const asvResultFile = "05baf11f-virtualenv-py3.12-matplotlib-netcdf4-numpy-pandas-pint-pooch-pyproj-scipy-traitlets-xarray.json"

func TestImportRefusesOtherFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, input, want string }{
		{"pytest-benchmark", "testdata/thoth/pi_matmul.json", "not a pytest-benchmark JSON document"},
		{"mlperf", "testdata/pytest/benchmark.json", "not an MLPerf LoadGen summary"},
		{"thoth", "testdata/pytest/benchmark.json", "neither a Thoth PI result"},
		{"gobench", "testdata/mlperf/offline/mlperf_log_detail.txt", "no gobench result"},
		{"nope", "testdata/pytest/benchmark.json", `unknown format "nope"`},
	} {
		_, err := Import(tc.format, []string{tc.input}, t.TempDir(), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error()+tc.format, tc.format) {
			t.Errorf("%s %s: %v, want %q", tc.format, tc.input, err, tc.want)
		}
	}
}

// TestImportStaysInTheResultsDirectory: --expe names a directory right
// below the results directory, as `seshat run` names experiments; one that
// leaves it (`../../x`, an absolute path, a path below) is invalid input,
// and nothing is written anywhere. Write itself never writes outside the
// results directory, whatever experiment it is given or a symlink in the
// tree points to.
func TestImportStaysInTheResultsDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	results := filepath.Join(base, "a", "res2")
	for _, expe := range []string{"../../x", "..", "/tmp/x", "sub/x", ".hidden", `x\..\y`} {
		_, err := Import("gobench", []string{"testdata/gobench/old.txt"}, results, Options{Expe: expe})
		if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "--expe") ||
			!strings.Contains(err.Error(), models.ExperimentNameRule) {
			t.Errorf("--expe %q: %v (exit %d), want invalid input naming --expe and the rule", expe, err, exitcode.Of(err))
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("refused imports wrote %v", entries)
	}

	in := []Input{{Name: "bench.txt", Data: []byte("BenchmarkX 1 2 ns/op\n")}}
	runs := []Run{{Slug: "x", Settings: map[string]any{"workload": "gobench"}}}
	if err := Write(results, "../../x", "gobench", in, runs); err == nil {
		t.Errorf("Write into ../../x: no error")
	}
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(results, "link")); err != nil {
		t.Fatal(err)
	}
	if err := Write(results, "link/e", "gobench", in, runs); err == nil {
		t.Errorf("Write through a symlink out of the results directory: no error")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("Write wrote outside the results directory: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(base, "x")); err == nil {
		t.Errorf("Write wrote %s", filepath.Join(base, "x"))
	}
}

// TestImportRepeatsAcrossInputs: the same benchmark in two inputs is two
// repeats of one point, never two duplicates the parse would drop.
func TestImportRepeatsAcrossInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Import("gobench", []string{"testdata/gobench/old.txt", "testdata/gobench/new.txt"}, dir, Options{Expe: "both"})
	if err != nil || s.Runs != 64 {
		t.Fatalf("%+v %v", s, err)
	}
	last, err := filepath.Glob(filepath.Join(dir, "both", "063__*"))
	if err != nil || len(last) != 1 || !strings.HasSuffix(last[0], "_repeat=15") {
		t.Errorf("last run %v, want the 16th repeat of Itoa", last)
	}
}

// TestWriteCompletesTheBuild: build.json always names its build, as seshat
// run names it: the CI run, else the commit, else the import (the same
// id when the same inputs are imported again); no build, no build.json.
func TestWriteCompletesTheBuild(t *testing.T) {
	t.Parallel()
	in := []Input{{Name: "bench.txt", Data: []byte("BenchmarkX 1 2 ns/op\n")}}
	tests := []struct {
		name  string
		build *models.Build
		want  string // the id; "" for no build.json
	}{
		{"--commit", &models.Build{Commit: "0123abc"}, "0123abc"},
		{"CI run", &models.Build{Commit: "0123abc", CI: &models.CI{Engine: "jenkins", RunID: "perf-17"}}, "jenkins-perf-17"},
		{"--build-id", &models.Build{ID: "nightly-3", Commit: "0123abc"}, "nightly-3"},
		{"--ref alone", &models.Build{Ref: "main"}, "import-"},
		{"nothing", nil, ""},
		{"empty", &models.Build{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ids []string
			for range 2 {
				results := t.TempDir()
				dir := filepath.Join(results, "e")
				if err := Write(results, "e", "gobench", in, []Run{{Slug: "x", Settings: map[string]any{"workload": "gobench"}, Build: tt.build}}); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(filepath.Join(dir, "000__x", "build.json"))
				if tt.want == "" {
					if err == nil {
						t.Errorf("build.json written for no build:\n%s", data)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := parsers.Build("build.json", data)
				if err != nil {
					t.Fatalf("build.json does not parse: %v\n%s", err, data)
				}
				if !strings.HasPrefix(b.ID, tt.want) || !strings.Contains(string(data), `"id"`) {
					t.Errorf("build.json id %q, want %q\n%s", b.ID, tt.want, data)
				}
				ids = append(ids, b.ID)
			}
			if ids[0] != ids[1] {
				t.Errorf("importing the same input twice gave builds %q and %q", ids[0], ids[1])
			}
		})
	}
}

// TestRunIDsFollowTheBuild: the same input imported for another build,
// commit or time gets other run ids (uploading it must not replace the
// earlier build's runs); imported again as it was, the same ids.
func TestRunIDsFollowTheBuild(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ids := func(opts Options) []string {
		t.Helper()
		dir := t.TempDir()
		opts.Expe = "e"
		if _, err := Import("gobench", []string{"testdata/gobench/old.txt"}, dir, opts); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "e", "*", ".uuid"))
		var out []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.TrimSpace(string(data)))
		}
		if len(out) != 32 {
			t.Fatalf("%d runs", len(out))
		}
		return out
	}
	base := Options{Time: at, Build: models.Build{Commit: "c1"}}
	first := ids(base)
	if again := ids(base); strings.Join(again, " ") != strings.Join(first, " ") {
		t.Error("the same import twice gave other ids")
	}
	seen := map[string]string{}
	for _, id := range first {
		seen[id] = "c1"
	}
	for name, opts := range map[string]Options{
		"another commit":   {Time: at, Build: models.Build{Commit: "c2"}},
		"another build id": {Time: at, Build: models.Build{Commit: "c1", ID: "b7"}},
		"another time":     {Time: at.Add(time.Hour), Build: models.Build{Commit: "c1"}},
	} {
		for _, id := range ids(opts) {
			if prev, dup := seen[id]; dup {
				t.Errorf("%s: run id %s already given to %s", name, id, prev)
			}
			seen[id] = name
		}
	}
}

// TestBuiltinWorkloadFiles: every embedded workload file of an importer
// is a valid workload of its file's name (they are parsed only when a
// command first asks for one, where a broken one would panic).
func TestBuiltinWorkloadFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("workloads", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workload files: %v", err)
	}
	b := workloads.Builtin()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		w, ok := b.Get(name)
		if !ok || w.Name() != name {
			t.Errorf("%s: built-in workload %q not found (%v)", f, name, b.Names())
		}
	}
}
