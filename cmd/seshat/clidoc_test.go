package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

const cliDoc = "../../docs/cli.md"

// TestCLIReference renders the command reference from the command tree and
// compares it with docs/cli.md, so the document cannot drift from the
// flags: go test ./cmd/seshat -run TestCLIReference -update rewrites it.
func TestCLIReference(t *testing.T) {
	t.Parallel()
	got := renderCLIReference(newDocRoot())
	if *update {
		if err := os.WriteFile(cliDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s is out of date with the command tree (go test ./cmd/seshat -run TestCLIReference -update, then review the diff):\n%s",
			cliDoc, firstDiff(got, string(want)))
	}
}

// TestCLIReferenceCoversTree: every visible verb and every flag has its
// place in the reference, and every config key is listed.
func TestCLIReferenceCoversTree(t *testing.T) {
	t.Parallel()
	root := newDocRoot()
	doc := renderCLIReference(root)
	for _, c := range visibleCommands(root) {
		if !strings.Contains(doc, "\n## "+c.CommandPath()+"\n") && !strings.Contains(doc, "\n### "+c.CommandPath()+"\n") {
			t.Errorf("no section for %s", c.CommandPath())
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return // tuning knobs for benchmarks, not for users
			}
			if !strings.Contains(doc, "`--"+f.Name+"`") {
				t.Errorf("%s --%s is not documented", c.CommandPath(), f.Name)
			}
		})
	}
	for _, k := range config.Keys() {
		if !strings.Contains(doc, "| `"+k.Name+"` |") {
			t.Errorf("config key %s is not listed", k.Name)
		}
	}
}

func newDocRoot() *cobra.Command {
	p := &process{ctx: context.Background(), getenv: func(string) (string, bool) { return "", false },
		stdin: &bytes.Buffer{}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	return newRootCmd(p)
}

// visibleCommands lists the commands a user can call, depth first in name
// order, the root excluded.
func visibleCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	subs := c.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, s := range subs {
		if !s.IsAvailableCommand() || s.Name() == "help" {
			continue
		}
		out = append(out, s)
		out = append(out, visibleCommands(s)...)
	}
	return out
}

var exitCodes = []struct {
	code exitcode.Code
	what string
}{
	{exitcode.Success, "success"},
	{exitcode.Failure, "error: I/O, network, internal; an input that exists but cannot be read; `seshat run` when a PI run failed"},
	{exitcode.RegressionFound, "a regression analysis found an unacknowledged regression"},
	{exitcode.NoData, "no results, or no data to work on: a results directory without runs, a store holding nothing"},
	{exitcode.InvalidInput, "invalid input: flags, arguments, config file, benchmark file, strict LTS validation, an input file or directory that does not exist"},
}

func renderCLIReference(root *cobra.Command) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Command reference\n\n")
	w("<!-- Generated from the command tree by cmd/seshat/clidoc_test.go; do not edit.\n")
	w("     Rewrite with: go test ./cmd/seshat -run TestCLIReference -update -->\n\n")
	w("`%s`: %s.\n\n", root.Name(), root.Short)
	w("Data goes to stdout or `--output`, logs and progress to stderr. Every flag can also be\n")
	w("set by an environment variable, `SESHAT_` and the flag's name in capitals with `_` for `-`\n")
	w("(`--results-dir` is `SESHAT_RESULTS_DIR`; an empty value counts as unset; lists are\n")
	w("comma-separated), and many by a key of the config file, `seshat.yaml` in the current\n")
	w("directory or `--config FILE`. The command line wins over the environment, which wins over\n")
	w("the file. Unknown config keys are errors naming the key and line, the nearest valid\n")
	w("name and every valid one beside it; an unknown flag names the nearest flag of the command\n")
	w("(`unknown flag --buidl-id; did you mean --build-id?`).\n\n")
	w("`--filters` has one syntax everywhere, `k=v1:v2,k2=v` (every key must take one of its values),\n")
	w("and one of two meanings, said in each verb's table: the verbs that parse a results directory\n")
	w("(`parse`, `kpis`, `upload`, `visualize`, `regression`) select entries by *setting*, values\n")
	w("read as YAML (`matrix_size=512` matches the number); `history` selects stored runs by *KPI\n")
	w("label*, values compared as text, as `regression --ignored-entries` does (and `build=ID`,\n")
	w("`commit=PREFIX` select builds).\n\n")
	w("Text tables (`regression`, `compare`, `history`) fit 100 columns: the labels every row shares\n")
	w("are printed once above the table (`key: value`), each row shows the labels that differ, a cell\n")
	w("still too long is cut with `…`, and long notes are numbered below the table. The whole data\n")
	w("is in `--format json` (`history`, `compare`; `csv` too for `compare`) and in the files of\n")
	w("`regression --report-dir`.\n\n")
	w("Shell completion (`seshat completion bash|zsh|fish|powershell`) offers the values of the\n")
	w("enumerated flags, the experiments of the benchmark file for `run --expe` (`--benchmark`, else\n")
	w("the config file's `run.benchmark`), and the builds of the store for the `build:ID` sides of\n")
	w("`compare` (`--store`, latest first).\n\n")

	w("## Exit status\n\n| status | meaning |\n|---|---|\n")
	for _, e := range exitCodes {
		w("| %d | %s |\n", e.code, e.what)
	}
	w("\nThe status is never a count. Warnings (a missing artifact, a KPI that could not be computed)\n")
	w("go to stderr and do not change it.\n\n")
	w("An input named on the command line (`--benchmark`, `--results-dir`, `--lts`, `--ack`, `--plots`,\n")
	w("`--history FILE`, `--config`, `--workload-file`, `--ca-cert`, `--password-file`, the series file\n")
	w("of `changepoints`, the result sets of `compare`, the inputs of `import`, the file of\n")
	w("`workload check`) that does not exist, or is not a directory where one is wanted, is invalid\n")
	w("input (4) in every command: the path must be fixed.\n")
	w("One that exists but cannot be read is an error (1). A SQLite store that does not exist yet is\n")
	w("an empty store to `history`, which exits 3; `regression --history` and `visualize --history`,\n")
	w("which name a store to judge or draw its history, refuse it (4): a mistyped path would read as\n")
	w("an empty history. `upload` creates a store file, but in a directory that does not exist only\n")
	w("with `--create` (the default store's `.seshat` excepted); a store path that is a directory is\n")
	w("refused (4).\n\n")

	w("## Environment\n\nBeside the `SESHAT_<FLAG>` variables:\n\n| variable | meaning |\n|---|---|\n")
	for _, v := range config.Variables {
		w("| `%s` | %s |\n", v.Name, v.Meaning)
	}
	w("\n## Global flags\n\nEvery command takes them. `-q` keeps stderr for errors: no progress, warnings, statistics\n")
	w("or summaries (a failed run is still named). `seshat --version` prints what `seshat version` prints.\n\n")
	writeFlags(&b, root.PersistentFlags())

	for _, c := range visibleCommands(root) {
		level := "##"
		if c.Parent() != root {
			level = "###"
		}
		w("\n%s %s\n\n%s.\n\n```\n%s\n```\n", level, c.CommandPath(), strings.TrimSuffix(c.Short, "."), c.UseLine())
		if long := strings.TrimSpace(c.Long); long != "" && c.Parent() == root {
			w("\n%s\n", long)
		}
		if c.Example != "" {
			w("\nExamples:\n\n```sh\n%s\n```\n", strings.TrimRight(c.Example, "\n"))
		}
		if subs := visibleCommands(c); len(subs) > 0 {
			var names []string
			for _, s := range subs {
				names = append(names, "`"+s.Name()+"`")
			}
			w("\nSubcommands: %s.\n", strings.Join(names, ", "))
		}
		if c.LocalNonPersistentFlags().HasAvailableFlags() {
			w("\n")
			writeFlags(&b, c.LocalNonPersistentFlags())
		}
	}

	w("\n## Config file keys\n\n")
	w("The sections of `seshat.yaml` and the flags each key sets (`examples/ci/seshat.yaml` is a\n")
	w("complete example). A key no flag reads yet is accepted and ignored.\n\n")
	w("| key | type | flags |\n|---|---|---|\n")
	bound := boundKeys(root)
	for _, k := range config.Keys() {
		flags := bound[k.Name]
		cell := "—"
		if len(flags) > 0 {
			cell = strings.Join(flags, ", ")
		}
		w("| `%s` | %s | %s |\n", k.Name, k.Type, cell)
	}
	return b.String()
}

func writeFlags(b *strings.Builder, fs *pflag.FlagSet) {
	fmt.Fprintf(b, "| flag | type | default | environment | config key | meaning |\n|---|---|---|---|---|---|\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name += ", `-" + f.Shorthand + "`"
		}
		_, usage := pflag.UnquoteUsage(f)
		def := f.DefValue
		if _, isSlice := f.Value.(pflag.SliceValue); isSlice {
			def = strings.Trim(def, "[]")
		}
		if def != "" {
			def = "`" + def + "`"
		}
		key := ""
		if k := config.BoundKey(f); k != "" {
			key = "`" + k + "`"
		}
		env := "`" + config.EnvName(f.Name) + "`"
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", name, flagType(f), def, env, key, cell(usage))
	})
}

func flagType(f *pflag.Flag) string {
	switch t := f.Value.Type(); t {
	case "stringSlice":
		return "strings (comma-separated)"
	case "stringArray":
		return "string (repeatable)"
	case "float64":
		return "number"
	default:
		return t
	}
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// boundKeys maps each config key to the flags that read it.
func boundKeys(root *cobra.Command) map[string][]string {
	out := map[string][]string{}
	for _, c := range visibleCommands(root) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if key := config.BoundKey(f); key != "" {
				out[key] = append(out[key], fmt.Sprintf("`%s --%s`", c.Name(), f.Name))
			}
		})
	}
	return out
}
