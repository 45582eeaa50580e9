package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/download"
	"github.com/seshat-bench/seshat/importers"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/runner/executors"
	"github.com/seshat-bench/seshat/workloads"
)

// flagValues are the values shell completion offers for the enumerated
// flags, by command and flag; "*" applies to every command with the flag.
var flagValues = map[string]map[string]func() []string{
	"*": {"workload": func() []string { return workloads.Builtin().Names() }},
	"changepoints": {
		"method": pipeline.ChangePointMethods,
		"format": func() []string { return []string{pipeline.FormatText, pipeline.FormatJSON} },
	},
	"regression": {"method": analyze.Names, "executor": executorNames},
	"run":        {"executor": executorNames},
	"compare":    {"format": func() []string { return compare.Formats }},
	"download":   {"mode": download.ModeNames},
	"check":      {"format": func() []string { return []string{pipeline.FormatText, pipeline.FormatJSON} }}, // host check
	"history":    {"format": func() []string { return []string{pipeline.FormatTable, pipeline.FormatJSON} }},
	"kpis":       {"format": func() []string { return []string{pipeline.FormatOpenMetrics, pipeline.FormatJSON} }},
	"visualize":  {"generate": func() []string { return pipeline.Generators(workloads.Builtin()) }, "history-axis": plotting.HistoryAxes},
}

func executorNames() []string { return executors.Names }

// argValues are the values shell completion offers for a command's first
// argument; the later ones complete as files.
var argValues = map[string]func() []string{
	"import": importers.Formats,
}

// matching keeps the values that start with what was typed, each once
// (several workloads draw a report of the same name, each described in
// its own words: the first description is kept). A value may carry a
// description after a tab.
func matching(values []string, typed string) []cobra.Completion {
	var out []cobra.Completion
	seen := map[string]bool{}
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if !strings.HasPrefix(name, typed) || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, v)
	}
	return out
}

// registerCompletions makes shell completion suggest the values of the
// enumerated flags (and no file names for them).
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, table := range []map[string]func() []string{flagValues["*"], flagValues[c.Name()]} {
			for flag, values := range table {
				if c.LocalFlags().Lookup(flag) == nil {
					continue
				}
				_ = c.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
					return matching(values(), typed), cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
		if values, ok := argValues[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveDefault
				}
				return matching(values(), typed), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeExpe completes `run --expe` with the experiments of the benchmark
// file: --benchmark, else the one the config file or the environment
// names (resolved as a run would). Nothing when there is none or it does
// not load.
func completeExpe(g *globals, benchmark *string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if err := g.setup(cmd); err != nil || *benchmark == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names, err := pipeline.ExperimentNames(*benchmark)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return matching(names, typed), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSides completes the sides of `compare`: build:ID with the builds
// of the store (--store, resolved as compare would; the latest first, with
// their commit and run count) once what is typed can only be one, else
// file names (a results directory, an LTS file).
func completeSides(g *globals, store *string, conn *pipeline.StoreConnection) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= 2 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if !strings.HasPrefix(typed, compare.BuildPrefix) && !(typed != "" && strings.HasPrefix(compare.BuildPrefix, typed)) {
			return nil, cobra.ShellCompDirectiveDefault
		}
		if err := g.setup(cmd); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		g.credentials(conn)
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		builds, err := pipeline.StoredBuilds(ctx, g.env(), *store, *conn)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		values := make([]string, len(builds))
		for i, b := range builds {
			desc := fmt.Sprintf("%d runs, %s", b.Runs, b.Last.UTC().Format("2006-01-02 15:04"))
			if b.Commit != "" {
				desc = b.Commit[:min(7, len(b.Commit))] + ", " + desc
			}
			values[i] = compare.BuildPrefix + b.ID + "\t" + desc
		}
		return matching(values, typed), cobra.ShellCompDirectiveNoFileComp
	}
}
