package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/seshat-bench/seshat/analyze/regression"
)

// WriteText writes the table of stdout: one row per entry x KPI, in report
// order.
func WriteText(w io.Writer, rep *regression.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tENTRY\tCOMPARISON\tKPI\tSTATUS\tCURRENT\tREFERENCE\tDELTA\tSTAT\tPOINTS\tNOTE")
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
				e.ID, e.Name, comparison(e), kpiName(r), r.Status, r.Display(r.Current.Value), r.Display(r.Result.Reference),
				delta(r.Result.DeltaPercent), statistic(r.Result), len(r.History), note(r))
		}
	}
	return tw.Flush()
}
