package plotting

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// Context is what a generator reads: the entries of one workload that match
// the job's filters, and the options of the command.
type Context struct {
	context.Context
	Workload string
	// Entries are sorted by path, every state included (failed, incomplete):
	// a generator chooses what it draws.
	Entries []*store.Entry
	// Variables are the settings (`@` ones excepted) with more than one value
	// among Entries, values sorted.
	Variables map[string][]any
	// BatchKey and XKey are --batch-key and --x-key; "" means the workload's
	// default.
	BatchKey, XKey string
	// History gives the KPI history pages their points; nil when none
	// is configured.
	History HistorySource
	// HistoryAxis is the x axis of the KPI history figures: AxisTime ("")
	// or AxisBuild.
	HistoryAxis string
	Log         *slog.Logger

	memo map[string]any
}

// Memo returns the value stored under key, building it on first use. The
// pages of one job and workload share a Context, so a first phase several
// reports need (the runs grouped by batch) is computed once. Values must not
// be modified after they are built.
func (c *Context) Memo(key string, build func() any) any {
	if v, ok := c.memo[key]; ok {
		return v
	}
	if c.memo == nil {
		c.memo = map[string]any{}
	}
	v := build()
	c.memo[key] = v
	return v
}

// Page is what a generator returns: the content of one HTML page. Generate
// adds the header, the settings tables and the links.
type Page struct {
	Title string
	// Summary is the paragraph under the title.
	Summary string
	// Empty, when set, replaces the content: the page says there was
	// nothing to draw, and why.
	Empty    string
	Sections []Section
	// Notes are caveats shown at the end (too few runs for an interval...).
	Notes []string
}

// Section is a titled part of a page.
type Section struct {
	Title   string
	Text    string
	Figures []*Figure
	Tables  []*Table
}

// Figures returns every figure of the page in order.
func (p *Page) Figures() []*Figure {
	var out []*Figure
	for _, s := range p.Sections {
		out = append(out, s.Figures...)
	}
	return out
}

// Table is a simple table of text cells.
type Table struct {
	Caption string
	Columns []string
	Rows    [][]Cell
}

// Cell is one table cell: Num right-aligns it, Pre keeps its lines (logs),
// Class styles it ("bad", "good", "muted").
type Cell struct {
	Text  string
	Num   bool
	Pre   bool
	Class string
}

// Text is a plain cell.
func Text(s string) Cell { return Cell{Text: s} }

// Num is a right-aligned number cell formatted with format (NaN shows "–").
func Num(format string, v float64) Cell {
	if !finite(v) {
		return Cell{Text: "–", Num: true, Class: "muted"}
	}
	return Cell{Text: fmt.Sprintf(format, v), Num: true}
}

// Int is a right-aligned integer cell.
func Int(v int) Cell { return Cell{Text: fmt.Sprint(v), Num: true} }

// AddRow appends a row of cells.
func (t *Table) AddRow(cells ...Cell) { t.Rows = append(t.Rows, cells) }

// settingsTables splits the settings of entries into those that vary (with
// their values) and those every entry shares; `@` settings are left out.
func settingsTables(entries []*store.Entry) (vary, fixed *Table) {
	values := store.SettingValues(entries)
	present := map[string]int{}
	for _, e := range entries {
		for k := range e.Settings {
			present[k]++
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sortStrings(keys)
	vary = &Table{Caption: "Settings that vary", Columns: []string{"setting", "values", "entries with it"}}
	fixed = &Table{Caption: "Settings shared by every run", Columns: []string{"setting", "value"}}
	for _, k := range keys {
		list := values[k]
		if len(list) == 1 && present[k] == len(entries) {
			fixed.AddRow(Text(k), Text(ValueText(list[0])))
			continue
		}
		texts := make([]string, len(list))
		for i, v := range list {
			texts[i] = ValueText(v)
		}
		vary.AddRow(Text(k), Text(strings.Join(texts, ", ")), Int(present[k]))
	}
	return vary, fixed
}

// ValueText renders a setting value for a person as models.FormatValue
// writes it everywhere else (slugs, labels, SESHAT_<KEY>), so a table shows
// the text a user filters on. The one difference: null is "null", as an
// empty cell would read as an empty string.
func ValueText(v any) string {
	if v == nil {
		return "null"
	}
	return models.FormatValue(v)
}
