package declared

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

var update = flag.Bool("update", false, "rewrite the golden error messages in testdata/bad")

// TestSpecErrors: every bad workload file is refused with every problem
// named by file, line and key (goldens beside each file).
func TestSpecErrors(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) < 4 {
		t.Fatalf("bad files %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(f, data)
		if err == nil {
			t.Errorf("%s: accepted", f)
			continue
		}
		got := err.Error() + "\n"
		golden := strings.TrimSuffix(f, ".yaml") + ".err"
		if *update {
			os.WriteFile(golden, []byte(got), 0o644)
			continue
		}
		want, _ := os.ReadFile(golden)
		if got != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", f, got, want)
		}
		for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
			if line = strings.TrimSpace(line); strings.HasSuffix(line, "problems:") {
				continue
			}
			if !strings.HasPrefix(line, f+":") {
				t.Errorf("%s: %q does not name the file and line", f, line)
			}
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var toyRun = map[string]string{
	"settings.yaml": "workload: toy_server\nmodel: tiny\n",
	"exit_code":     "0\n",
	".uuid":         "6f1c2a9e-3b47-4d2e-9a51-0c8e7b1d2f34\n",
	"conf.yaml":     "server:\n  version: 2.1.0\n",
	// The output directory resolves by glob: the last sorted match wins.
	"a__output/report.json": `{"throughput": {"rps": 1.0}}`,
	"b__output/report.json": `{"throughput": {"rps": 812.5}, "started": "2025-06-02T08:00:00Z",
	  "latency": [{"q": 0.5, "ms": 4.1}, {"q": 0.99, "ms": 11.8}], "samples": [3, 1, 2]}`,
	"steps.csv":  "step,seconds\n1,0.5\n2,0.7\n3,\n4,0.6\n",
	"server.log": "boot\nrps=700.5\nwarm\nrps=805.25\nbye\n",
}

func load(t *testing.T, path string) *Workload {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func parse(t *testing.T, w *Workload, dir string) *store.Matrix {
	t.Helper()
	m, err := store.Load(context.Background(), store.Options{ResultsDir: dir, Lookup: func(name string) (store.Parser, bool) {
		return w, name == w.Name()
	}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExtract reads every kind of value from one run and builds a strictly
// valid payload with its KPIs.
func TestExtract(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "run"), toyRun)
	w := load(t, "testdata/good.yaml")
	m := parse(t, w, dir)
	e := m.Entries[0]
	if len(e.Warnings) != 0 {
		t.Errorf("warnings %v", e.Warnings)
	}
	r := e.Results.(*Results)
	num := func(name string, want float64) {
		t.Helper()
		d, ok := r.Values[name]
		if !ok || d.Number == nil || math.Abs(*d.Number-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s = %+v, want %v", name, d.Any(), want)
		}
	}
	num("rps", 812.5)
	num("p99", 0.0118)
	num("step_median", 0.6)
	num("step_count", 3)
	num("logged", 805.25) // a regex keeps its last match
	num("first_logged", 700.5)
	if d := r.Values["version"]; d.String == nil || *d.String != "2.1.0" {
		t.Errorf("version %+v", d.Any())
	}
	if d := r.Values["samples"]; len(d.Numbers) != 3 {
		t.Errorf("samples %+v", d.Any())
	}
	if !r.Start.Equal(time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)) || r.UUID != "6f1c2a9e-3b47-4d2e-9a51-0c8e7b1d2f34" {
		t.Errorf("start %v uuid %s", r.Start, r.UUID)
	}
	p, warnings := lts.Build(e, w, lts.Options{})
	if err := lts.Validate(p, w.KPIs()); err != nil || len(warnings) != 0 {
		t.Fatalf("payload: %v %v", err, warnings)
	}
	if p.Metadata.Labels["version"] != "2.1.0" || p.Metadata.Labels["model"] != "tiny" {
		t.Errorf("labels %v", p.Metadata.Labels)
	}
	if got := p.KPIs["sample_mean"].Value; got != 2 {
		t.Errorf("sample_mean %v", got)
	}
}

// TestDegrades: missing and broken files are warnings naming the file;
// strict validation names the required values and labels missing.
func TestDegrades(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := map[string]string{
		"settings.yaml":         "workload: toy_server\n",
		"exit_code":             "0\n",
		"conf.yaml":             "server: [unclosed\n",
		"a__output/report.json": `{"throughput": {"rps": "fast"}, "started": "2025-06-02T08:00:00Z"}`,
		"steps.csv":             "step,seconds\n1,\"x\n",
	}
	writeFiles(t, filepath.Join(dir, "run"), run)
	w := load(t, "testdata/good.yaml")
	e := parse(t, w, dir).Entries[0]
	all := strings.Join(e.Warnings, "\n")
	for _, want := range []string{"conf.yaml:1:", `value rps: $.throughput.rps: "fast" is not a number`, "steps.csv:", "server.log: missing"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	p, _ := lts.Build(e, w, lts.Options{})
	err := lts.Validate(p, w.KPIs())
	if err == nil {
		t.Fatal("strict validation accepted a run without its required values")
	}
	for _, want := range []string{"results.rps: required", "results.version: required", "metadata.labels.model: required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation %v lacks %q", err, want)
		}
	}
	if !strings.HasPrefix(p.Metadata.TestUUID, "") || len(p.Metadata.TestUUID) != 36 {
		t.Errorf("derived test_uuid %q", p.Metadata.TestUUID)
	}
}

// TestCacheFollowsTheWorkloadFile: a second parse is cached; editing the
// workload file (its hash is in the parser version) parses again.
func TestCacheFollowsTheWorkloadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "exp", "run"), toyRun)
	w := load(t, "testdata/good.yaml")
	if m := parse(t, w, dir); !strings.Contains(m.Stats().String(), "0 cached, 1 parsed") {
		t.Fatalf("first parse: %s", m.Stats())
	}
	if m := parse(t, w, dir); !strings.Contains(m.Stats().String(), "1 cached, 0 parsed") {
		t.Fatalf("second parse: %s", m.Stats())
	}
	data, _ := os.ReadFile("testdata/good.yaml")
	edited, err := New("edited.yaml", []byte(strings.Replace(string(data), "scale: 0.001", "scale: 1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	m := parse(t, edited, dir)
	if !strings.Contains(m.Stats().String(), "0 cached, 1 parsed") {
		t.Fatalf("after editing the workload file: %s", m.Stats())
	}
	if d := m.Entries[0].Results.(*Results).Values["p99"]; d.Number == nil || *d.Number != 11.8 {
		t.Errorf("p99 after the edit: %+v", d.Any())
	}
}

// TestRegisterTwice: loading the same file again is harmless; another
// file with the same name, or pi's name, is refused.
func TestRegisterTwice(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Replace(mustRead(t, "testdata/good.yaml"), "name: toy_server", "name: toy_register", 1))
	w1, _ := New("a.yaml", data)
	w2, _ := New("b.yaml", data)
	builtin := workloads.Builtin()
	r, _, err := Register(builtin, w1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := builtin.Get(w1.Name()); ok {
		t.Errorf("Register changed the registry it was given")
	}
	if again, got, err := Register(r, w2); err != nil || got != w1 || again != r {
		t.Errorf("same content again: %v %v", got, err)
	}
	other, _ := New("c.yaml", append(data, []byte("description: other\n")...))
	if _, _, err := Register(r, other); err == nil || !strings.Contains(err.Error(), "already defined by a.yaml") {
		t.Errorf("a different file: %v", err)
	}
	piFile, _ := New("pi.yaml", []byte(strings.Replace(string(data), "name: toy_register", "name: "+workloadtest.Name, 1)))
	if _, _, err := Register(r, piFile); err == nil || !strings.Contains(err.Error(), "already defined by a built-in workload") {
		t.Errorf("a built-in's name: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLabelsFormatLikeSettings: a label from a setting or from a value is
// written as models.FormatValue writes it, the text of the settings in
// slugs, SESHAT_<KEY> variables and pi's labels.
func TestLabelsFormatLikeSettings(t *testing.T) {
	t.Parallel()
	spec := strings.Replace(mustRead(t, "testdata/good.yaml"), "labels:\n",
		"labels:\n  knob: {setting: knob}\n  pair: {setting: pair}\n  rate: {value: rps}\n", 1)
	w, err := New("labels.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	run := maps.Clone(toyRun)
	run["settings.yaml"] = "workload: toy_server\nmodel: tiny\nknob: 1.0e-8\npair: [a, 1]\n"
	run["b__output/report.json"] = `{"throughput": {"rps": 1e21}}`
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "run"), run)
	e := parse(t, w, dir).Entries[0]
	got := w.Labels(e)
	want := map[string]string{"knob": "1e-08", "pair": `["a",1]`, "rate": "1e+21"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"knob", "pair"} {
		if s := models.FormatValue(e.Settings[k]); got[k] != s {
			t.Errorf("label %s = %q, the setting's text is %q", k, got[k], s)
		}
	}
}

// TestDistributionSplit: a distribution report with split draws one figure
// per value of that setting (numbers in order), never mixing them in a
// box; split is refused on another kind of report.
func TestDistributionSplit(t *testing.T) {
	t.Parallel()
	spec := mustRead(t, "testdata/good.yaml") +
		"plots:\n  - {name: Rate, kind: distribution, kpis: [rps], batch: model, split: load}\n"
	w, err := New("split.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, s := range []struct{ model, load, rps string }{
		{"tiny", "16", "30"}, {"big", "16", "31"}, {"tiny", "4", "10"}, {"big", "4", "11"}, {"tiny", "4", "12"},
	} {
		run := maps.Clone(toyRun)
		run["settings.yaml"] = fmt.Sprintf("workload: toy_server\nmodel: %s\nload: %s\n\"@repeat\": %d\n", s.model, s.load, i)
		run["b__output/report.json"] = `{"throughput": {"rps": ` + s.rps + `}}`
		delete(run, ".uuid")
		writeFiles(t, filepath.Join(dir, fmt.Sprintf("run%d", i)), run)
	}
	m := parse(t, w, dir)
	vars := map[string][]any{}
	for k, v := range m.Variables {
		vars[k] = v
	}
	page, err := w.build(&plotting.Context{Context: context.Background(), Workload: w.Name(), Entries: m.Entries, Variables: vars}, w.spec.Plots[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Sections) != 1 || len(page.Sections[0].Figures) != 2 {
		t.Fatalf("sections %+v, want one with two figures", page.Sections)
	}
	for i, want := range []struct {
		name string
		rows int
	}{{"distribution_rps_load_4", 3}, {"distribution_rps_load_16", 2}} {
		f := page.Sections[0].Figures[i]
		if f.Name != want.name || f.Data.Nrow() != want.rows || !strings.Contains(f.Caption, "one box per model") {
			t.Errorf("figure %d: %s, %d runs, caption %q; want %s with %d runs", i, f.Name, f.Data.Nrow(), f.Caption, want.name, want.rows)
		}
	}
	bad := strings.Replace(spec, "kind: distribution", "kind: scaling, x: load", 1)
	if _, err := New("bad.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "plots.0.split: only a distribution report is split") {
		t.Errorf("split on a scaling report: %v", err)
	}
}
