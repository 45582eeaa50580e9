package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/internal/exitcode"
)

func newChangePointsCmd(g *globals) *cobra.Command {
	var o pipeline.ChangePointsOptions
	var threshold float64
	cmd := &cobra.Command{
		Use:   "changepoints FILE",
		Short: "Find change points in plain series (CSV or JSON)",
		Long: `Find change points in each series of FILE and print them as a table or JSON.

FILE is CSV with a header row (one column per series, an optional "time"
column) or JSON {"series": {"name": [numbers|null]}, "time": [...]}.
Empty cells and nulls take the previous value of their series.
A change point has at least two points on each side: a single value that
departs is a spike, not a new level.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: one series file is required, got %d arguments", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			if cmd.Flags().Changed("threshold") {
				o.Params.ZThreshold, o.Params.ChangePercent = threshold, threshold
			}
			return pipeline.ChangePoints(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Metrics, "metric", nil, "series to analyse (repeat for several; default all)")
	f.StringVar(&o.Method, "method", analyze.DefaultDetector, "method: window (Perfherder's windowed t-test, t > 6), perfherder (treeherder's defaults), shift (the changes seshat regression confirms), edivisive, segment (e-divisive with single-value spikes left out), zscore or threshold")
	f.IntVar(&o.Params.WindowLen, "window-len", analyze.DefaultWindowLen, "edivisive: points per window")
	f.Float64Var(&o.Params.MaxPValue, "max-pvalue", analyze.DefaultMaxPValue, "edivisive: largest p-value of a change point kept")
	f.Float64Var(&o.Params.MinMagnitude, "min-magnitude", 0, "edivisive: smallest relative change kept (0.05 = 5%)")
	f.Float64Var(&threshold, "threshold", 0, "zscore: |z| limit (default 3); threshold: change in percent (default 10)")
	f.StringVar(&o.Format, "format", pipeline.FormatText, "output format: text or json")
	f.StringVarP(&o.Output, "output", "o", "-", "write to FILE instead of stdout")
	config.BindKey(f, "method", "regression_analyses.method")
	config.BindKey(f, "window-len", "regression_analyses.window_len")
	config.BindKey(f, "max-pvalue", "regression_analyses.max_pvalue")
	config.BindKey(f, "min-magnitude", "regression_analyses.min_magnitude")
	return cmd
}
