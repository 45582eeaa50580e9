package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/texttable"
)

// WriteText writes the table of stdout, laid out for a terminal as
// benchstat lays out its tables (texttable): the labels every entry shares,
// one "key: value" line each (comparison labels included); then one section
// per KPI, headed by its name, display unit and direction, with a row per
// entry: its number, the labels that tell it from the others, its
// comparison value when entries differ in it, the verdict and how CI counts
// it (fail, pass or skip, as in junit.xml), the values without their unit;
// each row's note is a mark, its text below the table once; last, the
// outcome on a line of its own, never wrapped: "FAILED (exit 2): 1
// unacknowledged regression". The table fits texttable.Width columns, entry names cut when
// they must be.
func WriteText(w io.Writer, rep *regression.Report) error {
	common := maps.Clone(rep.Fixed)
	var comparisons []map[string]string
	for _, e := range rep.Entries {
		comparisons = append(comparisons, e.Comparison)
	}
	sharedCmp, varyingCmp := texttable.Common(comparisons)
	for k, v := range sharedCmp {
		if v != "" { // a comparison key these runs do not have
			common[k] = v
		}
	}
	if err := texttable.WriteCommon(w, common); err != nil {
		return err
	}
	if len(common) > 0 {
		fmt.Fprintln(w)
	}

	type row struct {
		e *regression.Entry
		r *regression.KPIResult
	}
	byKPI := map[string][]row{}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			byKPI[r.KPI] = append(byKPI[r.KPI], row{e, r})
		}
	}
	// KPIs by name; the results of entries without any KPI last.
	kpis := slices.SortedFunc(maps.Keys(byKPI), func(a, b string) int {
		switch {
		case a == "" || b == "":
			return strings.Compare(b, a)
		}
		return strings.Compare(a, b)
	})
	header := []string{"#", "ENTRY", "STATUS", "CI", "CURRENT", "REFERENCE", "DELTA", "FLOOR", "STAT", "N", "NOTE"}
	tab := texttable.Table{Cut: []int{1}, Right: []int{0, 4, 5, 9}}
	if len(varyingCmp) > 0 {
		header = slices.Insert(header, 2, "COMPARISON")
		tab.Cut = []int{1, 2}
		tab.Right = []int{0, 5, 6, 10}
	}
	tab.Header = header
	var notes texttable.Notes
	for _, k := range kpis {
		rows := byKPI[k]
		tab.Rows = append(tab.Rows, []string{kpiHeading(rows[0].r)})
		for _, x := range rows {
			e, r := x.e, x.r
			cells := []string{strconv.Itoa(e.ID), e.Name}
			if len(varyingCmp) > 0 {
				var parts []string
				for _, k := range varyingCmp {
					if v := e.Comparison[k]; v != "" {
						parts = append(parts, k+"="+v)
					}
				}
				cells = append(cells, cmp.Or(strings.Join(parts, " "), "-"))
			}
			cells = append(cells, string(r.Status), ciOutcome(r), bare(r, r.CurrentValue()), bare(r, r.Result.Reference),
				delta(r.Result.DeltaPercent), floor(r.Result.Floor), statistic(r.Result), count(r), notes.Mark(note(r)))
			tab.Rows = append(tab.Rows, cells)
		}
	}
	if err := tab.Write(w); err != nil {
		return err
	}
	if notes.Len() > 0 {
		fmt.Fprintln(w)
		if err := notes.Write(w); err != nil {
			return err
		}
	}
	// The outcome stays one line, the last: what a CI log is searched for.
	o := OutcomeOf(rep)
	_, err := fmt.Fprintf(w, "\n%s: %s\n", o.Headline(), o.Text)
	return err
}

// kpiHeading heads a KPI's section: its name, the unit its values are
// shown in, and which way is better.
func kpiHeading(r *regression.KPIResult) string {
	if r.KPI == "" {
		return "no KPI"
	}
	_, unit := r.DisplayScale()
	var parts []string
	if unit != "" {
		parts = append(parts, unit)
	}
	switch r.Direction {
	case analyze.LowerIsBetter:
		parts = append(parts, "lower is better")
	case analyze.HigherIsBetter:
		parts = append(parts, "higher is better")
	}
	if len(parts) == 0 {
		return r.KPI
	}
	return r.KPI + " (" + strings.Join(parts, ", ") + ")"
}

// bare is a value as the KPI displays it, less the unit its heading names.
func bare(r *regression.KPIResult, v float64) string {
	_, unit := r.DisplayScale()
	return strings.TrimSuffix(r.Display(v), " "+unit)
}

// count is a result's N: its history points, or against a baseline (A/B)
// the runs compared, the baseline's and this side's ("5+5", as benchstat
// writes n), the baseline's own rows its runs.
func count(r *regression.KPIResult) string {
	switch {
	case r.Sides != nil:
		return fmt.Sprintf("%d+%d", len(r.Sides.BaselinePoint.Samples), len(r.Current.Samples))
	case r.Result.Method == regression.MethodBaseline:
		return strconv.Itoa(len(r.Current.Samples))
	}
	return strconv.Itoa(len(r.History))
}
