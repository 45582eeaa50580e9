package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/texttable"
	"github.com/seshat-bench/seshat/lts"
)

// displayKPI formats a KPI value of a record as its workload's definition
// says, else with its stored unit.
func displayKPI(r lts.Record, kpi string, lookup lts.Lookup) string {
	v, ok := r.Values[kpi]
	if !ok {
		return "-"
	}
	if w, ok := lookup(r.Workload); ok {
		if d, ok := w.KPIs().Definition(kpi); ok {
			return d.Display(v)
		}
	}
	return strings.TrimSpace(strconv.FormatFloat(v, 'g', 4, 64) + " " + r.Defs[kpi].Unit)
}

// WriteHistoryTable writes the records of `seshat history` for a terminal
// (texttable): the labels every record shares, one "key: value" line
// each; then a section per KPI (sorted), headed by its unit and direction,
// with a row per run that has it, in time order: the start, the build (its
// id and short commit), the run (the first 8 characters of its test_uuid),
// the value without its unit, and the labels whose values differ between
// records (those with the shortest values first, a long one cut); last,
// the runs without KPIs (failed runs) with their exit code. A value is
// formatted as the KPI definition of its workload (found by lookup, which
// may be nil) says, else with its stored unit.
func WriteHistoryTable(w io.Writer, records []lts.Record, lookup lts.Lookup) error {
	if lookup == nil {
		lookup = func(string) (lts.Workload, bool) { return nil, false }
	}
	sets := make([]map[string]string, len(records))
	kpiNames := map[string]bool{}
	for i, r := range records {
		sets[i] = r.Labels
		for k := range r.Values {
			kpiNames[k] = true
		}
	}
	common, varying := texttable.Common(sets)
	// The labels with short values first: a cut row keeps most of them.
	widest := map[string]int{}
	for _, r := range records {
		for _, k := range varying {
			widest[k] = max(widest[k], len(r.Labels[k]))
		}
	}
	slices.SortStableFunc(varying, func(a, b string) int { return widest[a] - widest[b] })
	if err := texttable.WriteCommon(w, common); err != nil {
		return err
	}
	if len(common) > 0 {
		fmt.Fprintln(w)
	}
	tab := texttable.Table{Header: []string{"TIME", "BUILD", "RUN", "VALUE", "LABELS"}, Cut: []int{1, 4}, Right: []int{3}}
	row := func(r lts.Record, value string) []string {
		var labels []string
		for _, k := range varying {
			if v, ok := r.Labels[k]; ok {
				labels = append(labels, k+"="+v)
			}
		}
		return []string{r.Time.UTC().Format(time.RFC3339), buildCell(r), shortUUID(r.TestUUID), value, strings.Join(labels, " ")}
	}
	for _, kpi := range slices.Sorted(maps.Keys(kpiNames)) {
		heading := false
		for _, r := range records {
			if _, ok := r.Values[kpi]; !ok {
				continue
			}
			if !heading {
				tab.Rows = append(tab.Rows, []string{historyHeading(r, kpi, lookup)})
				heading = true
			}
			tab.Rows = append(tab.Rows, row(r, bareKPI(r, kpi, lookup)))
		}
	}
	heading := false
	for _, r := range records {
		if len(r.Values) > 0 {
			continue
		}
		if !heading {
			tab.Rows = append(tab.Rows, []string{"runs without KPIs (exit code)"})
			heading = true
		}
		code := "-"
		if r.ExitCode != nil {
			code = "exit " + strconv.Itoa(*r.ExitCode)
		}
		tab.Rows = append(tab.Rows, row(r, code))
	}
	return tab.Write(w)
}

// buildCell names a run's build: its id and short commit, "-" for a run
// that names none.
func buildCell(r lts.Record) string {
	if r.Build == nil || r.Build.ID == "" {
		return "-"
	}
	if c := r.Build.Commit; c != "" && !strings.HasPrefix(r.Build.ID, c[:min(7, len(c))]) {
		return r.Build.ID + " " + c[:min(7, len(c))]
	}
	return r.Build.ID
}

// shortUUID is a test_uuid's first 8 characters, as a table shows it.
func shortUUID(id string) string { return id[:min(8, len(id))] }

// historyUnit is the unit displayKPI writes a KPI of a record in.
func historyUnit(r lts.Record, kpi string, lookup lts.Lookup) string {
	if w, ok := lookup(r.Workload); ok {
		if d, ok := w.KPIs().Definition(kpi); ok {
			if d.DisplayUnit != "" {
				return d.DisplayUnit
			}
			return d.Unit
		}
	}
	return r.Defs[kpi].Unit
}

// bareKPI is displayKPI less the unit the section's heading names.
func bareKPI(r lts.Record, kpi string, lookup lts.Lookup) string {
	return strings.TrimSuffix(displayKPI(r, kpi, lookup), " "+historyUnit(r, kpi, lookup))
}

// historyHeading heads a KPI's section: its name, unit and direction.
func historyHeading(r lts.Record, kpi string, lookup lts.Lookup) string {
	dir := "higher is better"
	if r.Defs[kpi].LowerBetter {
		dir = "lower is better"
	}
	if unit := historyUnit(r, kpi, lookup); unit != "" {
		return fmt.Sprintf("%s (%s, %s)", kpi, unit, dir)
	}
	return fmt.Sprintf("%s (%s)", kpi, dir)
}
