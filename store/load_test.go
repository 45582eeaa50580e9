package store

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
)

func TestExitCodeSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		content  string // "" : no exit_code file
		dir      bool   // exit_code is a directory
		state    State
		code     *int
		complete bool
		warning  []string
	}{
		{name: "zero", content: "0\n", state: StateParsed, code: ptr(0), complete: true},
		{name: "non-zero is still parsed", content: "3\n", state: StateParsed, code: ptr(3), complete: true},
		{name: "killed by a signal", content: "-9", state: StateParsed, code: ptr(-9), complete: true},
		{name: "missing: incomplete, not parsed", state: StateIncomplete, warning: []string{"exit_code: missing"}},
		{name: "empty", content: "\n", state: StateFailed, warning: []string{"exit_code", "empty exit code"}},
		{name: "not an integer", content: "done\n", state: StateFailed, warning: []string{"exit_code", `"done" is not an integer`}},
		{name: "binary", content: "\x00\xff\xfe\x01", state: StateFailed, warning: []string{"exit_code", "binary"}},
		{name: "huge", content: strings.Repeat("0", 10000), state: StateFailed, warning: []string{"exit_code", "too large"}},
		{name: "a directory", dir: true, state: StateFailed, warning: []string{"exit_code", "not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tree := merge(run("r", "size: 1\n", tt.content, nil), run("ok", "size: 2\n", "0", nil))
			if tt.dir {
				tree["r/exit_code/"] = ""
			}
			writeTree(t, dir, tree)
			m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake())})
			e := entry(t, m, "r")
			if e.State != tt.state || e.Complete != tt.complete || !reflect.DeepEqual(e.ExitCode, tt.code) {
				t.Errorf("state %v complete %v exit code %v; want %v %v %v", e.State, e.Complete, deref(e.ExitCode), tt.state, tt.complete, deref(tt.code))
			}
			if parsed := e.Results != nil; parsed != (tt.state == StateParsed) {
				t.Errorf("results %v with state %v", e.Results, e.State)
			}
			if tt.code != nil && e.Results.(*fakeResult).ExitCode != *tt.code {
				t.Errorf("ParseOnce saw exit code %d", e.Results.(*fakeResult).ExitCode)
			}
			if tt.warning != nil {
				wantWarning(t, e.Warnings, tt.warning...)
				if len(e.Warnings) != 1 {
					t.Errorf("warnings %q, want one", e.Warnings)
				}
			} else if len(e.Warnings) != 0 {
				t.Errorf("warnings %q", e.Warnings)
			}
			if other := entry(t, m, "ok"); other.State != StateParsed {
				t.Errorf("the other entry is %v", other.State)
			}
		})
	}
}

func ptr(i int) *int { return &i }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestSettingsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"settings.top.yaml":    "a: top\nb: top\nc: top\nd: top\nworkload: fake\n",
		"e/settings.b.yaml":    "b: b\nc: b\n",
		"e/settings.a.yaml":    "b: a\nc: a\ne: a\n",
		"e/r/settings.z.yaml":  "c: z\n",
		"e/r/settings.yaml":    "d: own\n",
		"e/r/exit_code":        "0",
		"e/r2/settings.yaml":   "d: own2\n",
		"e/r2/exit_code":       "0",
		"f/settings.yaml.yaml": "ignored: true\n",
		"f/r/settings.yaml":    "",
		"f/r/exit_code":        "0",
	})
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake())})
	want := map[string]models.Settings{
		"e/r":  {"a": "top", "b": "b", "c": "z", "d": "own", "e": "a", "workload": "fake"},
		"e/r2": {"a": "top", "b": "b", "c": "b", "d": "own2", "e": "a", "workload": "fake"},
		"f/r":  {"a": "top", "b": "top", "c": "top", "d": "top", "workload": "fake", "ignored": true},
	}
	for path, s := range want {
		if got := entry(t, m, path).Settings; !reflect.DeepEqual(got, s) {
			t.Errorf("%s: settings %v, want %v", path, got, s)
		}
	}
}

func TestBrokenSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		map[string]string{"bad/settings.yaml": "workload: fake\nsize: [1\n", "bad/exit_code": "0"},
		map[string]string{"list/settings.yaml": "- workload\n", "list/exit_code": "0"},
		map[string]string{"exp/settings.p.yaml": "a: 1\na: 2\n"},
		run("exp/r1", "size: 1\n", "0", nil),
		run("exp/r2", "size: 2\n", "0", nil),
		map[string]string{"noworkload/settings.yaml": "size: 3\n", "noworkload/exit_code": "0"},
		map[string]string{"huge/settings.yaml": "workload: fake\nx: " + strings.Repeat("x", 2<<20) + "\n", "huge/exit_code": "0"},
		// Not files: named, never opened (a FIFO would wait for a writer).
		map[string]string{"fifo/settings.yaml": fifo, "fifo/exit_code": "0", "fifo/pi.json": "{}"},
		map[string]string{"gone/settings.yaml": symlinkPrefix + "nowhere", "gone/exit_code": "0"},
		map[string]string{"pipes/settings.p.yaml": fifo},
		run("pipes/r", "size: 5\n", "0", nil),
		run("good", "size: 4\n", "0", nil),
	))
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake())})
	want := map[string][]string{
		"bad":        {"bad/settings.yaml:", "did not find expected"},
		"list":       {"list/settings.yaml:1:", "mapping"},
		"exp/r1":     {"exp/settings.p.yaml:2:", "already defined"},
		"exp/r2":     {"exp/settings.p.yaml:2:", "already defined"},
		"noworkload": {"no `workload` setting"},
		"huge":       {"huge/settings.yaml", "too large"},
		"fifo":       {"fifo/settings.yaml", "not a regular file"},
		"gone":       {"gone/settings.yaml", "no such file"},
		"pipes/r":    {"pipes/settings.p.yaml", "not a regular file"},
	}
	for path, frag := range want {
		e := entry(t, m, path)
		if e.State != StateFailed || e.Results != nil {
			t.Errorf("%s: state %v", path, e.State)
		}
		wantWarning(t, e.Warnings, frag...)
	}
	if e := entry(t, m, "good"); e.State != StateParsed {
		t.Errorf("good: state %v, warnings %q", e.State, e.Warnings)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("entries with broken settings taken for duplicates: %q", m.Warnings)
	}
}

func TestWorkloadSelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(run("a", "", "0", nil), map[string]string{"b/settings.yaml": "workload: other\n", "b/exit_code": "0"}))
	other := newFake()
	other.name = "other"

	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake(), other)})
	if entry(t, m, "a").Workload != "fake" || entry(t, m, "b").Workload != "other" {
		t.Errorf("workloads %s %s", entry(t, m, "a").Workload, entry(t, m, "b").Workload)
	}

	m = mustLoad(t, Options{ResultsDir: dir, Workload: "fake", NoCache: true, Lookup: lookup(newFake())})
	if s := m.Stats(); s.Parsed != 2 {
		t.Errorf("--workload fake: %v", s)
	}

	_, err := Load(context.Background(), Options{ResultsDir: dir, Lookup: lookup(newFake())})
	if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), `unknown workload other (in b)`) {
		t.Errorf("unknown workload: %v (exit %d)", err, exitcode.Of(err))
	}

	// Without Lookup entries are discovered and checked, not parsed.
	m = mustLoad(t, Options{ResultsDir: dir})
	for _, e := range m.Entries {
		if e.Results != nil || !e.Complete {
			t.Errorf("%s: results %v complete %v", e.Path, e.Results, e.Complete)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(run("r", "size: 1\n", "0", nil), map[string]string{"file": "", "empty/skip": ""}))
	tests := []struct {
		name string
		opts Options
		code exitcode.Code
		msg  string
	}{
		{"missing results directory", Options{ResultsDir: dir + "/nope"}, exitcode.InvalidInput, "nope"},
		{"results directory is a file", Options{ResultsDir: dir + "/file"}, exitcode.InvalidInput, "not a directory"},
		{"no test roots", Options{ResultsDir: dir + "/empty"}, exitcode.NoData, "no test roots"},
		{"nothing matches the filters", Options{ResultsDir: dir, Filters: Filters{"size": {2}}}, exitcode.NoData, "size=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(context.Background(), tt.opts)
			if err == nil || exitcode.Of(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v (exit %d), want exit %d naming %q", err, exitcode.Of(err), tt.code, tt.msg)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, Options{ResultsDir: dir, Lookup: lookup(newFake())}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestFiltersSelectEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("a", "size: 512\ndtype: float32\n", "0", nil),
		run("b", "size: 512.0\ndtype: float64\n", "0", nil),
		run("c", "size: \"512\"\ndtype: float32\n", "0", nil),
		run("d", "size: 1024\ndtype: float32\n", "0", nil),
		run("e", "dtype: float32\n", "0", nil),
	))
	tests := []struct {
		filters string
		want    []string
	}{
		{"", []string{"a", "b", "c", "d", "e"}},
		{"size=512", []string{"a", "b"}},
		{"size=512.0", []string{"a", "b"}},
		{"size=\"512\"", []string{"c"}},
		{"size=512:1024", []string{"a", "b", "d"}},
		{"size=512:1024,dtype=float32", []string{"a", "d"}},
		{"dtype=float32", []string{"a", "c", "d", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.filters, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilters(tt.filters)
			if err != nil {
				t.Fatal(err)
			}
			m := mustLoad(t, Options{ResultsDir: dir, Filters: f, NoCache: true, Lookup: lookup(newFake())})
			if got := entryPaths(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entries %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParserPanicFailsOnlyItsEntry(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("a", "size: 1\n", "0", nil),
		run("b", "size: 2\npanic: true\n", "0", nil),
		run("c", "size: 3\nfail: true\n", "0", nil),
		run("d", "size: 4\n", "0", nil),
	))
	m := mustLoad(t, Options{ResultsDir: dir, Workers: 2, Lookup: lookup(newFake())})
	want := map[string]string{"a": "parsed", "b": "failed", "c": "failed", "d": "parsed"}
	if got := states(m); !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	wantWarning(t, entry(t, m, "b").Warnings, "internal error in the fake parser", "boom")
	wantWarning(t, entry(t, m, "c").Warnings, "parser gave up")
	if got := m.Stats().String(); got != "parsed 4 entries: 0 cached, 2 parsed, 0 incomplete, 2 failed" {
		t.Errorf("stats line %q", got)
	}
}

func TestMatrix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, merge(
		run("e1/r0", "size: 512\ndtype: f32\n\"@repeat\": 0\n", "0", nil),
		run("e1/r1", "size: 512\ndtype: f32\n\"@repeat\": 1\n", "0", nil),
		run("e1/r2", "size: 64\ndtype: f32\n\"@repeat\": 0\n", "0", nil),
		run("e1/r3", "size: 1024\ndtype: f32\n\"@repeat\": 0\n", "0", nil),
		run("e2/dup", "dtype: f32\nsize: 512.0\n\"@repeat\": 0\n", "0", nil),
		run("e2/r4", "size: 8\ndtype: bf16\n\"@repeat\": 0\n", "", nil),
		run("e2/r5", "size: 8\ndtype: true\n\"@repeat\": 0\n", "0", nil),
	))
	m := mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(newFake())})
	if got, want := entryPaths(m), []string{"e1/r0", "e1/r1", "e1/r2", "e1/r3", "e2/r4", "e2/r5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if len(m.Warnings) != 1 || !hasWarning(m.Warnings, "e2/dup", "e1/r0", "duplicate") {
		t.Errorf("warnings %q, want one naming e2/dup and e1/r0", m.Warnings)
	}
	wantVars := map[string][]any{"size": {8, 64, 512, 1024}, "dtype": {"bf16", "f32", true}}
	if !reflect.DeepEqual(m.Variables, wantVars) {
		t.Errorf("variables %v, want %v", m.Variables, wantVars)
	}
	if got := m.VariableKeys(); !reflect.DeepEqual(got, []string{"dtype", "size"}) {
		t.Errorf("variable keys %v", got)
	}
}

// TestDeterministicOrder: the matrix document does not depend on the number
// of workers or on scheduling.
func TestDeterministicOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var tree []map[string]string
	for i := range 60 {
		tree = append(tree, run(
			[]string{"x", "y", "z"}[i%3]+"/"+string(rune('a'+i%26))+strings.Repeat("r", i/26),
			"size: "+[]string{"1", "2", "3", "4"}[i%4]+"\n\"@repeat\": "+string(rune('0'+i%10))+"\n", "0", nil))
	}
	writeTree(t, dir, merge(tree...))
	var first []byte
	for _, workers := range []int{1, 2, 8, 32, 0} {
		m := mustLoad(t, Options{ResultsDir: dir, Workers: workers, NoCache: true, Lookup: lookup(newFake())})
		var b bytes.Buffer
		if err := m.WriteJSON(&b, false); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("workers=%d: output differs", workers)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	m := &Matrix{
		Entries: []*Entry{
			{Path: "a", Settings: models.Settings{"z": 1, "a": "x"}, ExitCode: ptr(0), Complete: true, Results: map[string]int{"rate": 2}},
			{Path: "b", Settings: models.Settings{}, Warnings: []string{"exit_code: missing"}},
		},
		Variables: map[string][]any{"z": {1, 2}, "a": {"x"}},
	}
	var b bytes.Buffer
	if err := m.WriteJSON(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `{"entries":[{"path":"a","settings":{"a":"x","z":1},"exit_code":0,"complete":true,"results":{"rate":2},"warnings":[]},` +
		`{"path":"b","settings":{},"exit_code":null,"complete":false,"results":null,"warnings":["exit_code: missing"]}],` +
		`"variables":{"a":["x"],"z":[1,2]}}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := (&Matrix{}).WriteJSON(&b, true); err != nil || b.String() != "{\n  \"entries\": [],\n  \"variables\": null\n}\n" {
		t.Errorf("empty matrix: %q, %v", b.String(), err)
	}
}

// TestSettingValuesOfRepeatedValues: values equal as EqualValues says are
// one value, the last one given (512 then 512.0 then 512 is the int 512);
// 0 and -0 are two; lists are values too.
func TestSettingValuesOfRepeatedValues(t *testing.T) {
	t.Parallel()
	negZero := math.Copysign(0, -1)
	var entries []*Entry
	for _, v := range []any{512, 512, 512.0, 0.0, negZero, 512, []any{1, 2}, []any{1, 2}, "a", "a"} {
		entries = append(entries, &Entry{Settings: models.Settings{"v": v, "@repeat": 0}})
	}
	got := SettingValues(entries)["v"]
	if len(got) != 5 {
		t.Fatalf("values %#v, want 5", got)
	}
	kinds := map[string]any{}
	for _, v := range got {
		kinds[models.CanonicalValue(v)] = v
	}
	if v := kinds["n:512"]; v != 512 {
		t.Errorf("512 kept as %#v, want the int given last", v)
	}
	if v, ok := kinds["n:-0"].(float64); !ok || !math.Signbit(v) {
		t.Errorf("-0 kept as %#v", kinds["n:-0"])
	}
	if _, ok := kinds["n:0"]; !ok {
		t.Errorf("0 lost: %#v", got)
	}
	if _, ok := SettingValues(entries)["@repeat"]; ok {
		t.Error("@repeat among the setting values")
	}
}
