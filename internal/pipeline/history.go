package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
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
	q.Labels = labels
	if q.Since, err = parseHistoryTime(opts.Since); err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--since: %w", err)
	}
	if q.Until, err = parseHistoryTime(opts.Until); err != nil {
		return q, exitcode.Errorf(exitcode.InvalidInput, "--until: %w", err)
	}
	if err := q.Check(); err != nil {
		return q, err
	}
	return q, nil
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

// writeHistoryTable writes the records as aligned columns: time, test_uuid,
// exit code when some run failed, the labels whose values differ between
// records (sorted), then every KPI (sorted).
func writeHistoryTable(w io.Writer, records []lts.Record) error {
	labelValues := map[string]map[string]bool{}
	kpiNames := map[string]bool{}
	failed := false
	for _, r := range records {
		for k := range r.Values {
			kpiNames[k] = true
		}
		if r.ExitCode != nil && *r.ExitCode != 0 {
			failed = true
		}
		for k := range r.Labels {
			labelValues[k] = map[string]bool{}
		}
	}
	for _, r := range records {
		for k := range labelValues {
			v, ok := r.Labels[k]
			if !ok {
				v = "\x00absent"
			}
			labelValues[k][v] = true
		}
	}
	var varying []string
	for k, vs := range labelValues {
		if len(vs) > 1 {
			varying = append(varying, k)
		}
	}
	sort.Strings(varying)
	kpis := make([]string, 0, len(kpiNames))
	for k := range kpiNames {
		kpis = append(kpis, k)
	}
	sort.Strings(kpis)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"TIME", "TEST_UUID"}
	if failed {
		header = append(header, "EXIT")
	}
	header = append(append(header, varying...), kpis...)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range records {
		row := []string{r.Time.UTC().Format(time.RFC3339), r.TestUUID}
		if failed {
			code := "-"
			if r.ExitCode != nil {
				code = strconv.Itoa(*r.ExitCode)
			}
			row = append(row, code)
		}
		for _, k := range varying {
			v, ok := r.Labels[k]
			if !ok {
				v = "-"
			}
			row = append(row, v)
		}
		for _, k := range kpis {
			row = append(row, displayKPI(r, k))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
