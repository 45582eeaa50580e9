package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/workloads"
)

// flagValues are the values shell completion offers for the enumerated
// flags, by command and flag; "*" applies to every command with the flag.
var flagValues = map[string]map[string]func() []string{
	"*": {"workload": workloads.Names},
	"changepoints": {
		"method": pipeline.ChangePointMethods,
		"format": func() []string { return []string{"text", "json"} },
	},
	"regression": {"method": analyze.Names},
	"history":    {"format": func() []string { return []string{pipeline.FormatTable, pipeline.FormatJSON} }},
	"kpis":       {"format": func() []string { return []string{pipeline.FormatOpenMetrics, pipeline.FormatJSON} }},
	"visualize":  {"generate": pipeline.Generators, "history-axis": plotting.HistoryAxes},
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
					var out []cobra.Completion
					for _, v := range values() {
						if strings.HasPrefix(v, typed) {
							out = append(out, v)
						}
					}
					return out, cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
