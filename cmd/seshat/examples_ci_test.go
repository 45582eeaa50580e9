package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
)

const ciDir = "../../examples/ci"

// pendingVerbs are verbs the CI examples call that other branches are
// building; a command line naming one is checked once the verb is in the
// tree, and only logged before. Remove them as they land.
var pendingVerbs = map[string]bool{}

// TestCIConfig: the CI seshat.yaml loads with no unknown key, and the
// verbs take its values (file < env < flags still holds).
func TestCIConfig(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(ciDir, "seshat.yaml")
	l, err := config.Load(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	f := l.File
	if f.ResultsDir != "results" || f.LTS.Store != "sqlite:.seshat/lts.db" || f.LTS.OpenSearch.Export.Enabled == nil ||
		f.Regression.FailOnRegression == nil || !*f.Regression.FailOnRegression || f.Regression.ReportDir != "regression" {
		t.Errorf("CI config lost a key the jobs rely on: %+v", f)
	}

	r := runSeshat(t, nil, "--config", cfg, "dashboards")
	if r.code != 0 || !strings.Contains(r.stdout, `"title":"ci-seshat-kpis"`) || !strings.Contains(r.stdout, `\"field\":\"framework_version\"`) {
		t.Errorf("dashboards with the CI config: exit %d, want the ci-seshat-kpis index split by framework_version\n%s", r.code, r.stderr)
	}

	// The benchmark the jobs run is valid: its points, without running them.
	bench := filepath.Join(ciDir, "benchmark.yaml")
	r = runSeshat(t, nil, "--config", cfg, "run", "--dry-run", "--benchmark", bench, "--results-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("run --dry-run of %s: exit %d\n%s", bench, r.code, r.stderr)
	}
	if n := strings.Count(r.stdout+r.stderr, "ci_matmul/"); n != 18 {
		t.Errorf("run --dry-run lists %d points of ci_matmul, want 2 dtypes x 3 sizes x 3 repeats = 18\n%s%s", n, r.stdout, r.stderr)
	}
}

// TestCIABBenchmark: the A/B benchmark of ab-pull-request.yml is valid,
// its two sides alternating from round to round, and the job judges head
// against base.
func TestCIABBenchmark(t *testing.T) {
	t.Parallel()
	bench := filepath.Join(ciDir, "ab-benchmark.yaml")
	r := runSeshat(t, nil, "run", "--dry-run", "--benchmark", bench, "--results-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("run --dry-run of %s: exit %d\n%s", bench, r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "pr_ab/"); n != 20 {
		t.Errorf("run --dry-run lists %d points, want 2 sides x 2 sizes x 5 repeats = 20\n%s", n, r.stdout)
	}
	// Round 0 starts with base, round 1 with head.
	if !strings.Contains(r.stdout, "pr_ab/000__side=base_matrix_size=256_repeat=0") || !strings.Contains(r.stdout, "pr_ab/004__side=head_matrix_size=512_repeat=1") {
		t.Errorf("the rounds do not alternate:\n%s", r.stdout)
	}
	job, err := os.ReadFile(filepath.Join(ciDir, "ab-pull-request.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(job), "--benchmark examples/ci/ab-benchmark.yaml") || !strings.Contains(string(job), "--baseline side=base") {
		t.Errorf("ab-pull-request.yml does not run ab-benchmark.yaml and judge with --baseline side=base")
	}
}

// TestCICommands parses the CI job definitions as YAML and checks every
// seshat command line they hold against the command tree: the verb exists
// and takes the flags and arguments given.
func TestCICommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		keys []string // the keys holding shell scripts
		want []string // verbs the job must run
	}{
		{"github-actions.yml", []string{"run"}, []string{"run", "parse", "upload", "visualize", "dashboards", "regression"}},
		{"gitlab-ci.yml", []string{"script", "before_script", "after_script"}, []string{"run", "parse", "upload", "visualize", "dashboards", "regression"}},
		{"ab-pull-request.yml", []string{"run"}, []string{"run", "regression"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(ciDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var doc yaml.Node
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%s: %v", tt.file, err)
			}
			var scripts []string
			collectScripts(&doc, tt.keys, &scripts)
			var verbs []string
			for _, s := range scripts {
				for _, args := range seshatCommands(s) {
					verbs = append(verbs, args[0])
					if err := checkCommandLine(args); err != nil {
						if pendingVerbs[args[0]] && strings.Contains(err.Error(), "unknown verb") {
							t.Logf("seshat %s: not in this build yet", strings.Join(args, " "))
							continue
						}
						t.Errorf("%s: seshat %s: %v", tt.file, strings.Join(args, " "), err)
					}
				}
			}
			for _, v := range tt.want {
				if !slices.Contains(verbs, v) {
					t.Errorf("%s runs no seshat %s (found %v)", tt.file, v, verbs)
				}
			}
		})
	}
}

// collectScripts gathers the scalar strings (or lists of them) found under
// the given keys anywhere in the document.
func collectScripts(n *yaml.Node, keys []string, out *[]string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			collectScripts(c, keys, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !slices.Contains(keys, k.Value) {
				collectScripts(v, keys, out)
				continue
			}
			switch v.Kind {
			case yaml.ScalarNode:
				*out = append(*out, v.Value)
			case yaml.SequenceNode:
				for _, item := range v.Content {
					*out = append(*out, item.Value)
				}
			}
		}
	}
}

// seshatCommands returns the arguments of every seshat command in a shell
// script: words at a command position, up to the next operator.
func seshatCommands(script string) [][]string {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var cmds [][]string
	for _, line := range strings.Split(script, "\n") {
		words := shellWords(line)
		atCommand := true
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case w.op:
				atCommand = true
			case atCommand && slices.Contains([]string{"if", "then", "else", "elif", "do", "while", "until", "!", "time"}, w.text):
			case atCommand && strings.Contains(w.text, "=") && !w.quoted:
				// VAR=value before a command
			case atCommand && w.text == "seshat" && !w.quoted:
				var args []string
				for i++; i < len(words) && !words[i].op; i++ {
					args = append(args, words[i].text)
				}
				if len(args) > 0 {
					cmds = append(cmds, args)
				}
				atCommand = true
			default:
				atCommand = false
			}
		}
	}
	return cmds
}

type word struct {
	text   string
	quoted bool // holds a quote: never a command name
	op     bool // ; && || | > >> < and redirections end a command
}

// shellWords splits one line of shell into words and operators, with
// single and double quotes; enough for the CI examples, not a shell.
func shellWords(line string) []word {
	var words []word
	var cur strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if inWord {
			words = append(words, word{text: cur.String(), quoted: quoted})
		}
		cur.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '#' && !inWord:
			flush()
			return words
		case c == ' ' || c == '\t':
			flush()
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				j = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 1
		case strings.IndexByte(";&|<>", c) >= 0:
			// 2>&1, >>, && and || are single operators.
			if cur.String() == "2" || cur.String() == "1" {
				cur.Reset()
				inWord = false
			}
			flush()
			j := i
			for j+1 < len(line) && strings.IndexByte(";&|<>", line[j+1]) >= 0 {
				j++
			}
			words = append(words, word{text: line[i : j+1], op: true})
			i = j
			if strings.ContainsAny(line[i:i+1], "<>") {
				// The redirection's target is not an argument.
				for i+1 < len(line) && line[i+1] == ' ' {
					i++
				}
				for i+1 < len(line) && line[i+1] != ' ' {
					i++
				}
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// checkCommandLine finds the command of args in a fresh command tree and
// parses its flags and arguments as cobra would, without running it.
func checkCommandLine(args []string) error {
	p := &process{ctx: context.Background(), getenv: func(string) (string, bool) { return "", false },
		stdin: &bytes.Buffer{}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	root := newRootCmd(p)
	if !slices.ContainsFunc(root.Commands(), func(c *cobra.Command) bool { return c.Name() == args[0] }) {
		return errUnknownVerb(args[0], root)
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

func errUnknownVerb(name string, root *cobra.Command) error {
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	sort.Strings(names)
	return &unknownVerbError{name: name, known: names}
}

type unknownVerbError struct {
	name  string
	known []string
}

func (e *unknownVerbError) Error() string {
	return "unknown verb " + e.name + " (the tree has " + strings.Join(e.known, ", ") + ")"
}

func TestSeshatCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         [][]string
	}{
		{"plain", "seshat run --benchmark b.yaml", [][]string{{"run", "--benchmark", "b.yaml"}}},
		{"continuation", "seshat parse \\\n  --results-dir r", [][]string{{"parse", "--results-dir", "r"}}},
		{"or", "seshat run || run_status=$?", [][]string{{"run"}}},
		{"redirect", "seshat kpis --format json > out.json 2>&1", [][]string{{"kpis", "--format", "json"}}},
		{"in if", "if [ -n x ]; then seshat upload; fi", [][]string{{"upload"}}},
		{"quoted", `echo "seshat run: failed" >&2`, nil},
		{"path", "go build -o bin/seshat ./cmd/seshat", nil},
		{"config file", "cat seshat.yaml", nil},
		{"comment", "true # seshat run", nil},
		{"env prefix", "SESHAT_QUIET=1 seshat version", [][]string{{"version"}}},
		{"quoted value", `seshat visualize --generate "report: Scaling"`, [][]string{{"visualize", "--generate", "report: Scaling"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := seshatCommands(tt.script)
			if len(got) != len(tt.want) {
				t.Fatalf("%q: got %q, want %q", tt.script, got, tt.want)
			}
			for i := range got {
				if !slices.Equal(got[i], tt.want[i]) {
					t.Errorf("%q: got %q, want %q", tt.script, got, tt.want)
				}
			}
		})
	}
}

// TestCheckCommandLine: the check refuses what cobra would refuse.
func TestCheckCommandLine(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"parse", "--no-such-flag"}, {"no-such-verb"}, {"dashboards", "extra"}} {
		if err := checkCommandLine(args); err == nil {
			t.Errorf("seshat %s: accepted", strings.Join(args, " "))
		}
	}
	if err := checkCommandLine([]string{"parse", "--results-dir", "r", "--output-matrix", "m.json"}); err != nil {
		t.Errorf("valid command refused: %v", err)
	}
}
