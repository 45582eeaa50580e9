package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/texttable"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// History output formats.
const (
	FormatTable = "table"
	// FormatJSON (shared with kpis) is one JSON array of records.
)

// HistoryOptions are the options of `seshat history`.
type HistoryOptions struct {
	// Store is the store's URL; lts.DefaultStoreURL when empty.
	Store      string
	Connection StoreConnection
	// Filters select payloads by label: "k=v1:v2,k2=v" (models.ParseFilter),
	// values compared as strings.
	Filters string
	// Since and Until bound the runs' start: RFC 3339 or YYYY-MM-DD (UTC
	// midnight); Since inclusive, Until exclusive.
	Since, Until string
	// Format is FormatTable (default) or FormatJSON.
	Format string
	// Output is a file, or "-" (default) for stdout.
	Output string
}

// History runs `seshat history`: the stored payloads matching the filters,
// in time order, as a table (time, test_uuid, the labels that vary, KPI
// values) or as JSON records for scripts. No match exits 3.
func History(ctx context.Context, env Env, opts HistoryOptions) error {
	format := opts.Format
	if format == "" {
		format = FormatTable
	}
	if format != FormatTable && format != FormatJSON {
		return exitcode.Errorf(exitcode.InvalidInput, "--format: %q is not %s or %s", opts.Format, FormatTable, FormatJSON)
	}
	q, err := historyQuery(opts)
	if err != nil {
		return err
	}
	s, err := openStore(ctx, env, opts.Store, opts.Connection)
	if err != nil {
		return err
	}
	defer s.Close()
	var records []lts.Record
	for r, err := range s.Records(ctx, q) {
		if err != nil {
			return err
		}
		records = append(records, r)
	}
	if len(records) == 0 {
		if err := unknownLabels(ctx, s, q.Labels); err != nil {
			return err
		}
		return exitcode.Errorf(exitcode.NoData, "no stored payload in %s matches", s)
	}
	out := opts.Output
	if out == "" {
		out = "-"
	}
	err = atomicfile.WriteOutput(out, env.Stdout, func(w io.Writer) error {
		if format == FormatJSON {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(records)
		}
		return writeHistoryTable(w, records)
	})
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}

func historyQuery(opts HistoryOptions) (lts.Query, error) {
	var q lts.Query
	labels, err := models.ParseFilter(opts.Filters)
	if err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--filters: %w", err)
	}
	// build= and commit= select by metadata.build, not by a label.
	q.Builds, q.Commits = labels[FilterBuild], labels[FilterCommit]
	delete(labels, FilterBuild)
	delete(labels, FilterCommit)
	q.Labels = labels
	if q.Since, err = parseHistoryTime(opts.Since); err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--since: %w", err)
	}
	if q.Until, err = parseHistoryTime(opts.Until); err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--until: %w", err)
	}
	if err := q.Check(); err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--filters: %w", err)
	}
	return q, nil
}

// The keys of --filters that select by build rather than by label: the
// build's id, and its commit (a prefix of at least lts.MinCommitPrefix
// characters, as git abbreviates it).
const (
	FilterBuild  = "build"
	FilterCommit = "commit"
)

// unknownLabels refuses a filter that names a label no stored run has (a
// typo, or a setting that is not a label), naming the nearest label names;
// nil when every label named exists, or the store has none at all (empty).
func unknownLabels(ctx context.Context, s lts.Store, f models.Filter) error {
	if len(f) == 0 {
		return nil
	}
	names, err := s.LabelNames(ctx)
	if err != nil || len(names) == 0 {
		return err
	}
	var problems []string
	for _, name := range f.Names() {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("no stored payload has the label %q", name)
		if near := nearest(name, names); len(near) > 0 {
			msg += "; nearest: " + strings.Join(near, ", ")
		} else {
			msg += "; labels there are: " + strings.Join(names, ", ")
		}
		problems = append(problems, msg)
	}
	if len(problems) == 0 {
		return nil
	}
	return exitcode.Errorf(exitcode.InvalidInput, "--filters: %s (in %s; %s= and %s= select builds)", strings.Join(problems, "; "), s, FilterBuild, FilterCommit)
}

// nearest returns the names closest to name by optimal string alignment
// distance (a swap of two letters is one edit), at most three, within a
// third of name's length (at least two edits), closest first.
func nearest(name string, names []string) []string {
	limit := max(2, len(name)/3)
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, n := range names {
		if d := edlib.OSADamerauLevenshteinDistance(name, n); d <= limit {
			found = append(found, near{n, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	var out []string
	for _, n := range found[:min(3, len(found))] {
		out = append(out, n.name)
	}
	return out
}

// parseHistoryTime reads RFC 3339 or a date (UTC midnight); "" is no bound.
func parseHistoryTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2026-01-02T15:04:05Z) or a date (2026-01-02)", s)
}

// displayKPI formats a KPI value of a record as its workload's definition
// says, else with its stored unit.
func displayKPI(r lts.Record, kpi string) string {
	v, ok := r.Values[kpi]
	if !ok {
		return "-"
	}
	if w, ok := ltsLookup(r.Workload); ok {
		if d, ok := w.KPIs().Definition(kpi); ok {
			return d.Display(v)
		}
	}
	return strings.TrimSpace(strconv.FormatFloat(v, 'g', 4, 64) + " " + r.Defs[kpi].Unit)
}

// writeHistoryTable writes the records for a terminal (texttable): the
// labels every record shares, one "key: value" line each; then a section
// per KPI (sorted), headed by its unit and direction, with a row per run
// that has it, in time order: the start, the build (its id and short
// commit), the run (the first 8 characters of its test_uuid), the value
// without its unit, and the labels whose values differ between records
// (those with the shortest values first, a long one cut);
// last, the runs without KPIs (failed runs) with their exit code.
func writeHistoryTable(w io.Writer, records []lts.Record) error {
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
				tab.Rows = append(tab.Rows, []string{historyHeading(r, kpi)})
				heading = true
			}
			tab.Rows = append(tab.Rows, row(r, bareKPI(r, kpi)))
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
func historyUnit(r lts.Record, kpi string) string {
	if w, ok := ltsLookup(r.Workload); ok {
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
func bareKPI(r lts.Record, kpi string) string {
	return strings.TrimSuffix(displayKPI(r, kpi), " "+historyUnit(r, kpi))
}

// historyHeading heads a KPI's section: its name, unit and direction.
func historyHeading(r lts.Record, kpi string) string {
	dir := "higher is better"
	if r.Defs[kpi].LowerBetter {
		dir = "lower is better"
	}
	if unit := historyUnit(r, kpi); unit != "" {
		return fmt.Sprintf("%s (%s, %s)", kpi, unit, dir)
	}
	return fmt.Sprintf("%s (%s)", kpi, dir)
}
