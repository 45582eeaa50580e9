package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestVersionFlag: `seshat --version` prints what `seshat version` prints.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	verb := runSeshat(t, nil, "version")
	flag := runSeshat(t, nil, "--version")
	if flag.code != 0 || flag.stdout != verb.stdout || !strings.HasPrefix(flag.stdout, "seshat ") || flag.stderr != "" {
		t.Errorf("--version: exit %d stdout %q stderr %q; version prints %q", flag.code, flag.stdout, flag.stderr, verb.stdout)
	}
}

// TestFlagValueCompletion: shell completion offers the values of the
// enumerated flags (cobra's hidden __complete command is what the shell
// scripts call).
func TestFlagValueCompletion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"changepoints", "--method", ""}, []string{"edivisive", "threshold", "zscore"}},
		{[]string{"regression", "--method", ""}, []string{"edivisive", "mannwhitney", "segment", "threshold", "zscore"}},
		{[]string{"regression", "--method", "ma"}, []string{"mannwhitney"}},
		{[]string{"changepoints", "--format", ""}, []string{"json", "text"}},
		{[]string{"history", "--format", ""}, []string{"json", "table"}},
		{[]string{"kpis", "--format", ""}, []string{"json", "openmetrics"}},
		{[]string{"parse", "--workload", ""}, []string{"pi"}},
		{[]string{"upload", "--workload", ""}, []string{"pi"}},
		{[]string{"visualize", "--generate", "report: "}, []string{"report: Rate per batch", "report: Error report"}},
		{[]string{"visualize", "--generate", "plot: "}, []string{"plot: Rate box plot"}},
		{[]string{"visualize", "--generate", ""}, []string{"report: Error report", "report: KPI history", "plot: Rate box plot"}},
		{[]string{"compare", "--format", ""}, []string{"text", "csv", "markdown", "json"}},
		{[]string{"run", "--executor", ""}, []string{"local", "slurm", "kubernetes"}},
		{[]string{"regression", "--executor", ""}, []string{"local", "slurm", "kubernetes"}},
		{[]string{"import", ""}, []string{"asv", "criterion", "gobench", "google-benchmark", "hyperfine", "jmh", "mlperf", "pytest-benchmark", "thoth"}},
		{[]string{"download", "--mode", ""}, []string{"cache-only", "prefer-cache", "important", "all"}},
		{[]string{"download", "--workload", ""}, []string{"pi"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, append([]string{"__complete"}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if r.code != 0 || len(lines) == 0 || lines[len(lines)-1] != ":4" {
				t.Fatalf("exit %d, want values and :4 (no file completion); stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			values := lines[:len(lines)-1]
			for i, v := range values {
				values[i], _, _ = strings.Cut(v, "\t") // a description may follow
			}
			for _, w := range tc.want {
				if !slices.Contains(values, w) {
					t.Errorf("completions %q lack %q", values, w)
				}
			}
			for i, v := range values {
				if !strings.HasPrefix(v, tc.args[len(tc.args)-1]) {
					t.Errorf("completion %q does not start with what was typed", v)
				}
				if slices.Contains(values[:i], v) {
					t.Errorf("completion %q offered twice", v)
				}
			}
		})
	}
}

// TestEnumeratedFlagsComplete: every flag of the tree that takes one of a
// known set of values (an output format, a method, an executor, a
// workload, a report or plot) has its values completed, whichever command
// it belongs to, so that a command added later does not lose them.
func TestEnumeratedFlagsComplete(t *testing.T) {
	t.Parallel()
	enumerated := []string{"format", "method", "executor", "workload", "generate", "mode"}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, name := range enumerated {
			if c.Hidden || c.LocalFlags().Lookup(name) == nil {
				continue
			}
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				t.Errorf("%s --%s: no completion of its values", c.CommandPath(), name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newDocRoot())
}
