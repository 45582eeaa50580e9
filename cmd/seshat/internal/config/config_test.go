package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// Every testdata/*.good.yaml must load; every *.bad.yaml must fail with
// the error below (prometheus/common style).
var badConfigs = map[string]string{
	"unknown_key.bad.yaml":         "config file testdata/unknown_key.bad.yaml:3: unknown key parse.filterz; did you mean filters? (valid in parse: filters, no_cache)",
	"unknown_nested_key.bad.yaml":  "config file testdata/unknown_nested_key.bad.yaml:3: unknown key lts.opensearch.urll; did you mean url? (valid in lts.opensearch: export, url, index, index_prefix, kpi_index_suffix, fail_on_error, ca_cert, password_file, bulk_bytes)",
	"unknown_top_key.bad.yaml":     "config file testdata/unknown_top_key.bad.yaml:2: unknown key result_dir; did you mean results_dir? (valid at the top: workload, workload_file, results_dir, parse, run, executor, plots, lts, regression_analyses)",
	"bad_bool.bad.yaml":            "config file testdata/bad_bool.bad.yaml:2: key parse.no_cache: cannot unmarshal !!str `maybe` into bool",
	"bad_int.bad.yaml":             "config file testdata/bad_int.bad.yaml:2: key regression_analyses.window_len: cannot unmarshal !!str `fifty` into int",
	"section_scalar.bad.yaml":      "config file testdata/section_scalar.bad.yaml:1: key parse: want a section (a mapping), found !!int `3`",
	"list.bad.yaml":                "config file testdata/list.bad.yaml:1: want a mapping of sections, found a list",
	"duplicate.bad.yaml":           `config file testdata/duplicate.bad.yaml:2: key workload: mapping key "workload" already defined at line 1`,
	"syntax.bad.yaml":              "config file testdata/syntax.bad.yaml:2: did not find expected ',' or ']'",
	"binary.bad.yaml":              "config file testdata/binary.bad.yaml:1: control character U+0000 is not allowed in YAML",
	"duration.bad.yaml":            `config file testdata/duration.bad.yaml:4: key executor.kubernetes.poll_interval: invalid duration "-5s" (want e.g. 5s, 2m)`,
	"executor_unknown.bad.yaml":    "config file testdata/executor_unknown.bad.yaml:3: unknown key executor.slurm.partitions; did you mean partition? (valid in executor.slurm: partition, account, qos, time_limit, gpu_type, directives, max_parallel, max_array_size, job_name, seshat, poll_interval, grace_period)",
	"unknown_section.bad.yaml":     "config file testdata/unknown_section.bad.yaml:1: unknown key regresion_analyses; did you mean regression_analyses? (valid at the top: workload, workload_file, results_dir, parse, run, executor, plots, lts, regression_analyses)",
	"unknown_section_far.bad.yaml": "config file testdata/unknown_section_far.bad.yaml:2: unknown key reports (valid at the top: workload, workload_file, results_dir, parse, run, executor, plots, lts, regression_analyses)",
}

func TestConfigFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(path, true)
			switch {
			case strings.HasSuffix(name, ".good.yaml"):
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			case strings.HasSuffix(name, ".bad.yaml"):
				want, ok := badConfigs[name]
				if !ok {
					t.Fatalf("no expected error listed for %s", name)
				}
				if err == nil || err.Error() != want {
					t.Fatalf("error\n got %v\nwant %s", err, want)
				}
				if exitcode.Of(err) != exitcode.InvalidInput {
					t.Errorf("exit %d, want %d", exitcode.Of(err), exitcode.InvalidInput)
				}
			default:
				t.Fatalf("%s is neither .good.yaml nor .bad.yaml", name)
			}
		})
	}
	for name := range badConfigs {
		if _, err := os.Stat(filepath.Join("testdata", name)); err != nil {
			t.Errorf("listed fixture missing: %v", err)
		}
	}
}

func TestFullConfig(t *testing.T) {
	t.Parallel()
	l, err := Load("testdata/full.good.yaml", true)
	if err != nil {
		t.Fatal(err)
	}
	f := l.File
	if f.Workload != "pi" || f.Parse.Filters != "matrix_size=512:1024,dtype=float32" || f.Parse.NoCache == nil || *f.Parse.NoCache {
		t.Errorf("parse section: %+v", f.Parse)
	}
	if f.Run.Python != "python3.11" || f.Run.BuildID != "nightly-12" || f.Run.Commit != "0123abcd" || f.Run.Ref != "main" {
		t.Errorf("run section: %+v", f.Run)
	}
	if f.LTS.OpenSearch.URL != "https://opensearch.example:9200" || f.LTS.OpenSearch.Export.Enabled == nil || !*f.LTS.OpenSearch.Export.Enabled {
		t.Errorf("lts section: %+v", f.LTS)
	}
	r := f.Regression
	if !reflect.DeepEqual(r.ComparisonKeys, []string{"framework_version"}) || *r.WindowLen != 50 || *r.MaxPValue != 0.001 {
		t.Errorf("regression section: %+v", r)
	}
}

func TestLoadMissing(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "seshat.yaml")
	l, err := Load(missing, false)
	if err != nil || l == nil || l.lookup("results_dir") != nil {
		t.Errorf("implicit missing file: %v, %v", l, err)
	}
	_, err = Load(missing, true)
	if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), missing) {
		t.Errorf("explicit missing file: %v (exit %d)", err, exitcode.Of(err))
	}
	_, err = Load(t.TempDir(), true)
	if err == nil || exitcode.Of(err) != exitcode.Failure {
		t.Errorf("a directory: %v (exit %d)", err, exitcode.Of(err))
	}
}

// newTestCmd is a command with one flag of each kind, bound to config keys.
func newTestCmd(t *testing.T) (*cobra.Command, *struct {
	dir     string
	noCache bool
	keys    []string
	window  int
}) {
	t.Helper()
	v := &struct {
		dir     string
		noCache bool
		keys    []string
		window  int
	}{}
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	f := cmd.Flags()
	f.StringVar(&v.dir, "results-dir", "default", "")
	f.BoolVar(&v.noCache, "no-cache", false, "")
	f.StringSliceVar(&v.keys, "comparison-keys", nil, "")
	f.IntVar(&v.window, "window-len", 50, "")
	BindKey(f, "results-dir", "results_dir")
	BindKey(f, "no-cache", "parse.no_cache")
	BindKey(f, "comparison-keys", "regression_analyses.comparison_keys")
	BindKey(f, "window-len", "regression_analyses.window_len")
	return cmd, v
}

func TestApplyPrecedence(t *testing.T) {
	t.Parallel()
	cfg, err := Parse("seshat.yaml", []byte("results_dir: from-file\nparse:\n  no_cache: true\n"+
		"regression_analyses:\n  comparison_keys: [a, b]\n  window_len: 20\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		dir     string
		noCache bool
		keys    []string
		window  int
	}{
		{"file", nil, nil, "from-file", true, []string{"a", "b"}, 20},
		{"env over file", nil, map[string]string{"SESHAT_RESULTS_DIR": "from-env", "SESHAT_NO_CACHE": "false",
			"SESHAT_COMPARISON_KEYS": "c,d", "SESHAT_WINDOW_LEN": "30"}, "from-env", false, []string{"c", "d"}, 30},
		{"flag over env", []string{"--results-dir", "from-flag", "--no-cache=false", "--comparison-keys", "e", "--window-len", "40"},
			map[string]string{"SESHAT_RESULTS_DIR": "from-env", "SESHAT_NO_CACHE": "true", "SESHAT_COMPARISON_KEYS": "c"},
			"from-flag", false, []string{"e"}, 40},
		{"empty env is unset", nil, map[string]string{"SESHAT_RESULTS_DIR": ""}, "from-file", true, []string{"a", "b"}, 20},
		{"env bool 1", nil, map[string]string{"SESHAT_NO_CACHE": "1"}, "from-file", true, []string{"a", "b"}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd, v := newTestCmd(t)
			if err := cmd.Flags().Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) (string, bool) { s, ok := tt.env[k]; return s, ok }
			if err := Apply(cmd, getenv, cfg); err != nil {
				t.Fatal(err)
			}
			if v.dir != tt.dir || v.noCache != tt.noCache || !reflect.DeepEqual(v.keys, tt.keys) || v.window != tt.window {
				t.Errorf("got %q %v %q %d, want %q %v %q %d", v.dir, v.noCache, v.keys, v.window, tt.dir, tt.noCache, tt.keys, tt.window)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		env    map[string]string
		want   string
	}{
		{"bad env bool", "", map[string]string{"SESHAT_NO_CACHE": "maybe"}, `SESHAT_NO_CACHE: invalid value "maybe" for --no-cache`},
		{"bad env int", "", map[string]string{"SESHAT_WINDOW_LEN": "x"}, `SESHAT_WINDOW_LEN: invalid value "x" for --window-len`},
		{"list for a single value", "results_dir: [a, b]\n", nil, "config file seshat.yaml:1: key results_dir: a list is not valid here"},
		{"mapping for a single value", "results_dir: {a: b}\n", nil, "config file seshat.yaml:1: key results_dir: a mapping is not valid here"},
		{"mapping in a list", "regression_analyses:\n  comparison_keys: [{a: b}]\n", nil, "list items must be single values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &Loaded{Path: "seshat.yaml"}
			if tt.config != "" {
				// Parse would refuse some of these shapes; build the tree only.
				cfg = mustTree(t, tt.config)
			}
			cmd, _ := newTestCmd(t)
			getenv := func(k string) (string, bool) { s, ok := tt.env[k]; return s, ok }
			err := Apply(cmd, getenv, cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitcode.Of(err) != exitcode.InvalidInput {
				t.Errorf("error %v (exit %d), want %q", err, exitcode.Of(err), tt.want)
			}
		})
	}
}

// mustTree builds a Loaded from the YAML tree alone: shapes that File
// refuses (a list where a string goes) still reach Apply for keys whose
// types differ between the file and a flag.
func mustTree(t *testing.T, data string) *Loaded {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatal(err)
	}
	return &Loaded{Path: "seshat.yaml", root: doc.Content[0]}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for flag, want := range map[string]string{"results-dir": "SESHAT_RESULTS_DIR", "no-cache": "SESHAT_NO_CACHE", "v": "SESHAT_V"} {
		if got := EnvName(flag); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", flag, got, want)
		}
	}
}

// An alias variable sets its flag after the flag's own variable; a
// fallback fills a flag its own sources leave unset, its variable over its
// key, and never over the flag's own key.
func TestApplyAliasAndFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config string
		env          map[string]string
		noCache      bool
		history      string
	}{
		{"defaults", "", nil, false, "default"},
		{"alias", "", map[string]string{"SESHAT_IGNORE_CACHE": "1"}, true, "default"},
		{"own variable over alias", "", map[string]string{"SESHAT_NO_CACHE": "false", "SESHAT_IGNORE_CACHE": "1"}, false, "default"},
		{"fallback key", "lts:\n  store: sqlite:up.db\n", nil, false, "sqlite:up.db"},
		{"fallback variable over fallback key", "lts:\n  store: sqlite:up.db\n", map[string]string{"SESHAT_STORE": "sqlite:env.db"}, false, "sqlite:env.db"},
		{"own key over fallback", "lts:\n  store: sqlite:up.db\nregression_analyses:\n  history: sqlite:hist.db\n",
			map[string]string{"SESHAT_STORE": "sqlite:env.db"}, false, "sqlite:hist.db"},
		{"own variable over all", "regression_analyses:\n  history: sqlite:hist.db\n",
			map[string]string{"SESHAT_HISTORY": "sqlite:mine.db", "SESHAT_STORE": "sqlite:env.db"}, false, "sqlite:mine.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse("seshat.yaml", []byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			var noCache bool
			var history string
			cmd := &cobra.Command{Use: "x"}
			f := cmd.Flags()
			f.BoolVar(&noCache, "no-cache", false, "")
			f.StringVar(&history, "history", "default", "")
			BindKey(f, "no-cache", "parse.no_cache")
			BindEnv(f, "no-cache", EnvIgnoreCache)
			BindKey(f, "history", "regression_analyses.history")
			BindFallback(f, "history", "SESHAT_STORE", "lts.store")
			getenv := func(k string) (string, bool) { s, ok := tt.env[k]; return s, ok }
			if err := Apply(cmd, getenv, cfg); err != nil {
				t.Fatal(err)
			}
			if noCache != tt.noCache || history != tt.history {
				t.Errorf("no-cache %v, history %q; want %v, %q", noCache, history, tt.noCache, tt.history)
			}
			if got := ReadKeys(f.Lookup("history")); !reflect.DeepEqual(got, []string{"regression_analyses.history", "lts.store"}) {
				t.Errorf("ReadKeys = %v", got)
			}
		})
	}
}

// Resolve finds the config file (--config, else SESHAT_CONFIG, else
// seshat.yaml when present and read), applies it and reads the variables
// that mirror no flag.
func TestResolve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "ci.yaml")
	if err := os.WriteFile(file, []byte("results_dir: from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newCmd := func() (*cobra.Command, *string) {
		var dir, configPath string
		cmd := &cobra.Command{Use: "x"}
		cmd.Flags().StringVar(&configPath, "config", "", "")
		cmd.Flags().StringVar(&dir, "results-dir", "", "")
		BindKey(cmd.Flags(), "results-dir", "results_dir")
		return cmd, &dir
	}
	env := map[string]string{EnvConfig: file, EnvResultsBaseURL: "https://ci.example/r/", EnvOpenSearchUsername: "ci", EnvOpenSearchPassword: "pw"}
	getenv := func(k string) (string, bool) { s, ok := env[k]; return s, ok }
	cmd, resultsDir := newCmd()
	s, err := Resolve(cmd, getenv, false)
	if err != nil || s.File == nil || s.File.Path != file || *resultsDir != "from-file" {
		t.Fatalf("SESHAT_CONFIG: %+v, %v, results dir %q", s, err, *resultsDir)
	}
	if s.ResultsBaseURL != "https://ci.example/r/" || s.OpenSearchUsername != "ci" || s.OpenSearchPassword != "pw" {
		t.Errorf("variables: %+v", s)
	}
	cmd, _ = newCmd()
	if err := cmd.Flags().Parse([]string{"--config", filepath.Join(dir, "none.yaml")}); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(cmd, getenv, false); exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("--config wins over SESHAT_CONFIG, and a missing one is invalid: %v", err)
	}
	cmd, _ = newCmd()
	if s, err := Resolve(cmd, func(string) (string, bool) { return "", false }, false); err != nil || s.File != nil {
		t.Errorf("a command that reads no config: %+v, %v", s, err)
	}
}

// TestDurations: duration keys are decoded when the file is, Go's way,
// with a bare 0 meaning no time; a list is not a duration.
func TestDurations(t *testing.T) {
	t.Parallel()
	l, err := Parse("seshat.yaml", []byte("run:\n  timeout: 0\nregression_analyses:\n  budget: 1m30s\nexecutor:\n  slurm:\n    grace_period: 2s\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := l.File
	if f.Run.Timeout != 0 || time.Duration(f.Regression.Budget) != 90*time.Second || time.Duration(f.Executor.Slurm.GracePeriod) != 2*time.Second {
		t.Errorf("durations: timeout %v, budget %v, grace_period %v", f.Run.Timeout, f.Regression.Budget, f.Executor.Slurm.GracePeriod)
	}
	_, err = Parse("seshat.yaml", []byte("run:\n  timeout: [1s]\n"))
	want := `config file seshat.yaml:2: key run.timeout: want a duration (e.g. 5s, 2m), found a list`
	if err == nil || err.Error() != want || exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("error %v, want %s", err, want)
	}
}
