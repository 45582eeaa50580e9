package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFiles creates files (path -> content) under dir.
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

// smallTree is a results directory of two complete pi runs.
func smallTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"expe/settings.expe.yaml": "workload: pi\npi: matmul\n",
		"expe/a/settings.yaml":    "size: 1\n",
		"expe/a/exit_code":        "0\n",
		"expe/b/settings.yaml":    "size: 2\n",
		"expe/b/exit_code":        "0\n",
	})
	return dir
}

// matrixPaths decodes an --output-matrix document and lists its entries.
func matrixPaths(t *testing.T, out string) []string {
	t.Helper()
	var doc struct {
		Entries []struct {
			Path string `json:"path"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("matrix document: %v\n%s", err, out)
	}
	paths := []string{}
	for _, e := range doc.Entries {
		paths = append(paths, e.Path)
	}
	return paths
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tree := smallTree(t)
	empty := t.TempDir()
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr []string
	}{
		{"success", nil, []string{"parse", "--results-dir", tree}, 0, []string{"parsed 2 entries"}},
		{"unknown flag", nil, []string{"parse", "--results-dir", tree, "--bogus"}, 4, []string{"unknown flag --bogus (seshat parse --help lists the flags)"}},
		{"unknown root flag", nil, []string{"--bogus", "version"}, 4, []string{"--bogus"}},
		{"unknown shorthand", nil, []string{"parse", "-Z"}, 4, []string{"-Z"}},
		{"bad bool value", nil, []string{"parse", "--results-dir", tree, "--pretty=maybe"}, 4, []string{`"maybe"`, "--pretty"}},
		{"flag without its value", nil, []string{"parse", "--results-dir"}, 4, []string{"--results-dir"}},
		{"unknown command", nil, []string{"frobnicate"}, 4, []string{`unknown command "frobnicate"`}},
		{"unexpected argument", nil, []string{"parse", "--results-dir", tree, "extra"}, 4, []string{`"extra"`}},
		{"missing --results-dir", nil, []string{"parse"}, 4, []string{"--results-dir is required"}},
		{"malformed filters", nil, []string{"parse", "--results-dir", tree, "--filters", "size"}, 4, []string{"--filters", `"size"`}},
		{"unknown workload", nil, []string{"parse", "--results-dir", tree, "--workload", "nope"}, 4, []string{`unknown workload "nope"`}},
		{"bad env value", map[string]string{"SESHAT_PRETTY": "maybe"}, []string{"parse", "--results-dir", tree}, 4, []string{"SESHAT_PRETTY", "--pretty"}},
		{"explicit config missing", nil, []string{"parse", "--results-dir", tree, "--config", filepath.Join(empty, "none.yaml")}, 4, []string{"none.yaml", "no such file"}},
		{"config from env missing", map[string]string{"SESHAT_CONFIG": filepath.Join(empty, "env.yaml")}, []string{"parse", "--results-dir", tree}, 4, []string{"env.yaml"}},
		{"results directory missing", nil, []string{"parse", "--results-dir", filepath.Join(empty, "gone")}, 4, []string{"gone", "no such file"}},
		{"no test roots", nil, []string{"parse", "--results-dir", empty}, 3, []string{"no test roots"}},
		{"nothing matches", nil, []string{"parse", "--results-dir", tree, "--filters", "size=3"}, 3, []string{"size=3"}},
		{"unknown completion shell", nil, []string{"completion", "tcsh"}, 4, []string{`"tcsh"`, "bash"}},
		{"completion without a shell", nil, []string{"completion"}, 4, []string{"bash, fish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, tt.env, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr does not mention %q:\n%s", s, r.stderr)
				}
			}
			if tt.code != 0 && r.stdout != "" {
				t.Errorf("stdout on error: %q", r.stdout)
			}
		})
	}
}

func TestConfigFileErrors(t *testing.T) {
	t.Parallel()
	tree := smallTree(t)
	fixtures := filepath.Join("internal", "config", "testdata")
	tests := []struct {
		name   string
		file   string
		stderr string
	}{
		{"unknown key", "unknown_key.bad.yaml", "unknown_key.bad.yaml:3: unknown key parse.filterz"},
		{"unknown nested key", "unknown_nested_key.bad.yaml", "unknown_nested_key.bad.yaml:3: unknown key lts.opensearch.urll"},
		{"bad value", "bad_bool.bad.yaml", "bad_bool.bad.yaml:2: key parse.no_cache"},
		{"not a mapping", "list.bad.yaml", "list.bad.yaml:1: want a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, how := range []struct {
				env  map[string]string
				args []string
			}{
				{nil, []string{"parse", "--results-dir", tree, "--config", filepath.Join(fixtures, tt.file)}},
				{map[string]string{"SESHAT_CONFIG": filepath.Join(fixtures, tt.file)}, []string{"parse", "--results-dir", tree}},
			} {
				r := runSeshat(t, how.env, how.args...)
				if r.code != 4 || !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("exit %d, stderr %q; want 4 and %q", r.code, r.stderr, tt.stderr)
				}
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	tree := smallTree(t)
	cfgDir := t.TempDir()
	writeFiles(t, cfgDir, map[string]string{
		"dirs.yaml":      "results_dir: " + filepath.Join(cfgDir, "from-file") + "\n",
		"filters.yaml":   "results_dir: " + tree + "\nparse:\n  filters: size=1\n",
		"badfilter.yaml": "results_dir: " + tree + "\nparse:\n  filters: not-a-filter\n",
	})
	cfg := func(name string) string { return filepath.Join(cfgDir, name) }
	t.Run("results_dir", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name  string
			env   map[string]string
			args  []string
			named string
		}{
			{"file", nil, nil, "from-file"},
			{"env over file", map[string]string{"SESHAT_RESULTS_DIR": filepath.Join(cfgDir, "from-env")}, nil, "from-env"},
			{"flag over env", map[string]string{"SESHAT_RESULTS_DIR": filepath.Join(cfgDir, "from-env")},
				[]string{"--results-dir", filepath.Join(cfgDir, "from-flag")}, "from-flag"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				r := runSeshat(t, tt.env, append([]string{"parse", "--config", cfg("dirs.yaml")}, tt.args...)...)
				// The directories do not exist: the error names the one used.
				if r.code != 4 || !strings.Contains(r.stderr, tt.named) {
					t.Errorf("exit %d, stderr %q; want 4 naming %s", r.code, r.stderr, tt.named)
				}
			})
		}
	})
	t.Run("filters", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name   string
			config string
			env    map[string]string
			args   []string
			want   []string
		}{
			{"no config", "", nil, []string{"--results-dir", tree}, []string{"expe/a", "expe/b"}},
			{"file", "filters.yaml", nil, nil, []string{"expe/a"}},
			{"env over file", "filters.yaml", map[string]string{"SESHAT_FILTERS": "size=2"}, nil, []string{"expe/b"}},
			{"flag over env", "filters.yaml", map[string]string{"SESHAT_FILTERS": "size=2"}, []string{"--filters", "size=1:2"}, []string{"expe/a", "expe/b"}},
			{"a bad value in the file is overridden", "badfilter.yaml", map[string]string{"SESHAT_FILTERS": "size=2"}, nil, []string{"expe/b"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				args := []string{"parse", "--output-matrix", "-", "--no-cache"}
				if tt.config != "" {
					args = append(args, "--config", cfg(tt.config))
				}
				r := runSeshat(t, tt.env, append(args, tt.args...)...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				if got := matrixPaths(t, r.stdout); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("entries %v, want %v", got, tt.want)
				}
			})
		}
	})
	t.Run("the bad value when not overridden", func(t *testing.T) {
		t.Parallel()
		r := runSeshat(t, nil, "parse", "--config", cfg("badfilter.yaml"))
		if r.code != 4 || !strings.Contains(r.stderr, "not-a-filter") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

func TestBoolFlagsFromEnv(t *testing.T) {
	t.Parallel()
	tree := smallTree(t)
	plain := runSeshat(t, nil, "parse", "--results-dir", tree, "--output-matrix", "-")
	pretty := runSeshat(t, map[string]string{"SESHAT_PRETTY": "true"}, "parse", "--results-dir", tree, "--output-matrix", "-")
	if plain.code != 0 || pretty.code != 0 {
		t.Fatalf("exit %d, %d: %s %s", plain.code, pretty.code, plain.stderr, pretty.stderr)
	}
	if strings.Count(plain.stdout, "\n") != 1 || !strings.Contains(pretty.stdout, "\n  \"entries\": [") {
		t.Errorf("SESHAT_PRETTY not applied:\nplain %q\npretty %q", plain.stdout, pretty.stdout)
	}
	// The flag still wins over the environment.
	flag := runSeshat(t, map[string]string{"SESHAT_PRETTY": "true"}, "parse", "--results-dir", tree, "--output-matrix", "-", "--pretty=false")
	if flag.stdout != plain.stdout {
		t.Errorf("--pretty=false did not win over SESHAT_PRETTY")
	}
	// SESHAT_QUIET, as -q, keeps stderr for errors: no warnings, no stats line.
	writeFiles(t, tree, map[string]string{"expe/c/settings.yml": "size: 3\n", "expe/c/exit_code": "0\n"})
	noisy := runSeshat(t, nil, "parse", "--results-dir", tree)
	quiet := runSeshat(t, map[string]string{"SESHAT_QUIET": "1"}, "parse", "--results-dir", tree)
	if !strings.Contains(noisy.stderr, "warning: expe/c: settings.yml: accepted") {
		t.Errorf("no warning about settings.yml: %q", noisy.stderr)
	}
	if quiet.code != 0 || quiet.stderr != "" {
		t.Errorf("SESHAT_QUIET=1: stderr %q", quiet.stderr)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "seshat ") || !strings.Contains(r.stdout, "go1.") || r.stderr != "" {
		t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	tests := []struct{ shell, marker string }{
		{"bash", "__start_seshat"},
		{"zsh", "#compdef seshat"},
		{"fish", "complete -c seshat"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, "completion", tt.shell)
			if r.code != 0 || !strings.Contains(r.stdout, tt.marker) || r.stderr != "" {
				t.Errorf("exit %d, stderr %q, script lacks %q", r.code, r.stderr, tt.marker)
			}
		})
	}
}

// TestDefaultConfigFile reads ./seshat.yaml, so it changes directory and
// cannot run in parallel.
func TestDefaultConfigFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"seshat.yaml": "parse:\n  filterz: x\n"})
	t.Chdir(dir)
	r := runSeshat(t, nil, "parse", "--results-dir", dir)
	if r.code != 4 || !strings.Contains(r.stderr, "seshat.yaml:2: unknown key parse.filterz") {
		t.Errorf("broken ./seshat.yaml: exit %d, stderr %q", r.code, r.stderr)
	}
	// Printing the version or a completion script, or looking at the host,
	// does not read it.
	for _, args := range [][]string{{"version"}, {"completion", "bash"}, {"host", "check", "--sample", "0"}} {
		if r := runSeshat(t, nil, args...); r.code != 0 {
			t.Errorf("%v beside a broken seshat.yaml: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	writeFiles(t, dir, map[string]string{"seshat.yaml": "results_dir: " + smallTree(t) + "\n"})
	if r := runSeshat(t, nil, "parse"); r.code != 0 {
		t.Errorf("results_dir from ./seshat.yaml: exit %d, stderr %q", r.code, r.stderr)
	}
}
