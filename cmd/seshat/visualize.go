package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/plotting"
)

func newVisualizeCmd(g *globals) *cobra.Command {
	var o pipeline.VisualizeOptions
	cmd := &cobra.Command{
		Use:   "visualize",
		Short: "Draw figures and HTML reports from a results directory",
		Long: `Draw figures (SVG, PNG and their data as CSV) and HTML reports from a
results directory, with a reports_index.html linking them.

What to draw comes from a plots.yaml file (--plots; one output
subdirectory per id), from --generate lines ("report: Rate per batch",
"plot: Rate violin plot"), or, without either, every report of the
workloads found. Unknown names exit 4 listing the known ones.`,
		Example: `  seshat visualize --results-dir results --output-dir reports
  seshat visualize --results-dir results --generate "report: Batch comparison" --batch-key backend --output-dir reports
  seshat visualize --results-dir results --plots plots.yaml --history lts.json --output-dir reports`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			g.credentials(&o.Connection)
			return pipeline.Visualize(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.ResultsDir, "results-dir", "", "results directory to draw")
	f.StringVar(&o.Workload, "workload", "", "parse every entry with this workload instead of its `workload` setting")
	f.StringVar(&o.Filters, "filters", "", "select entries by setting: key=v1:v2,key2=v (values read as YAML: 512 matches the number)")
	addNoCacheFlag(f, &o.NoCache)
	f.StringVar(&o.PlotsFile, "plots", "", "plots.yaml: visualize: [{id, generate: [...], filters: [...]}]")
	f.StringArrayVar(&o.Generate, "generate", nil, `report or plot to draw, "report: NAME" or "plot: NAME" (repeat for several; wins over --plots)`)
	f.StringVar(&o.History, "history", "", "KPI history for the KPI history report: an LTS store (sqlite:PATH, http(s)://host:port) or a file of LTS payloads (seshat parse --output-lts)")
	f.StringVar(&o.BatchKey, "batch-key", "", "setting whose values are the batches compared (default: the workload's comparison key, backend for pi)")
	f.StringVar(&o.XKey, "x-key", "", "setting on the x axis of the scaling report (default matrix_size)")
	f.StringVar(&o.HistoryAxis, "history-axis", plotting.AxisTime, "x axis of the KPI history figures: time (each build at its first run) or build (builds side by side, named by build id and short commit)")
	f.StringVarP(&o.OutputDir, "output-dir", "o", "", "directory to write the reports into")
	f.StringVar(&o.RegressionReport, "regression-report", "", "regression report (seshat regression --report-dir, or its regression_report.html) that reports_index.html links to (default: a directory under or beside --output-dir holding one, regression-report first)")
	addConnectionFlags(f, &o.Connection)
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "workload", "workload")
	config.BindKey(f, "filters", "plots.filters")
	config.BindKey(f, "plots", "plots.file")
	config.BindKey(f, "generate", "plots.generate")
	config.BindKey(f, "history", "plots.history")
	config.BindKey(f, "batch-key", "plots.batch_key")
	config.BindKey(f, "x-key", "plots.x_key")
	config.BindKey(f, "history-axis", "plots.history_axis")
	config.BindKey(f, "regression-report", "plots.regression_report")
	config.BindKey(f, "output-dir", "plots.output_dir")
	return cmd
}
