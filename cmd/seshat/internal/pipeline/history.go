package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"

	"github.com/seshat-bench/seshat/analyze/report"
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
		return report.WriteHistoryTable(w, records, env.ltsLookup)
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
