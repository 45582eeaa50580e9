package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/seshat-bench/seshat/analyze/regression"
)

// WriteText writes the table of stdout: one row per entry x KPI, in report
// order, with how CI counts it (fail, pass or skip, as in junit.xml), then
// the outcome on a line of its own: "FAILED (exit 2): 1 unacknowledged
// regression".
func WriteText(w io.Writer, rep *regression.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tENTRY\tCOMPARISON\tKPI\tSTATUS\tCI\tCURRENT\tREFERENCE\tDELTA\tFLOOR\tSTAT\tPOINTS\tNOTE")
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
				e.ID, e.Name, comparison(e), kpiName(r), r.Status, ciOutcome(r), r.Display(r.Current.Value), r.Display(r.Result.Reference),
				delta(r.Result.DeltaPercent), floor(r.Result.Floor), statistic(r.Result), len(r.History), note(r))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := OutcomeOf(rep)
	_, err := fmt.Fprintf(w, "\n%s: %s\n", o.Headline(), o.Text)
	return err
}
