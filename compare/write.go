package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/internal/markdown"
	"github.com/seshat-bench/seshat/internal/texttable"
)

// The output formats.
const (
	FormatText     = "text"
	FormatCSV      = "csv"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Formats lists the output formats.
var Formats = []string{FormatText, FormatCSV, FormatMarkdown, FormatJSON}

// Write writes the table in a format.
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case "", FormatText:
		return t.writeText(w)
	case FormatCSV:
		return t.writeCSV(w)
	case FormatMarkdown:
		return t.writeMarkdown(w)
	case FormatJSON:
		return t.writeJSON(w)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// center is "median ± ci%" as benchstat prints it.
func (kt *KPITable) center(s *Summary) string { return kt.centerIn(s, kt.Display) }

// bare is a value as Display writes it less its unit, for the text table
// whose heading names the unit (displayUnit).
func (kt *KPITable) bare(v float64) string {
	return strings.TrimSuffix(kt.Display(v), " "+kt.displayUnit())
}

// displayUnit is the unit Display writes values in: the definition's
// display unit (B/s shown as MB/s), else the KPI's.
func (kt *KPITable) displayUnit() string {
	if kt.hasDef && kt.def.DisplayUnit != "" {
		return kt.def.DisplayUnit
	}
	return kt.Unit
}

func (kt *KPITable) centerIn(s *Summary, display func(float64) string) string {
	if s == nil {
		return "-"
	}
	text := display(s.Center)
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return text // a geomean: no interval
	}
	if s.Lo == s.Hi {
		return text + " ± 0%" // all samples equal
	}
	pct := math.Max(s.Hi-s.Center, s.Center-s.Lo) / math.Abs(s.Center) * 100
	if math.IsNaN(pct) || math.IsInf(pct, 0) {
		return text + " ± ∞"
	}
	return text + fmt.Sprintf(" ± %.0f%%", pct)
}

// delta is the change as benchstat prints it: "+3.21%" when significant,
// else "~".
func (r *Row) delta() string {
	switch {
	case r.A == nil || r.B == nil:
		return ""
	case r.Entry == "geomean" && math.IsNaN(r.P):
		return fmt.Sprintf("%+.2f%%", r.Delta)
	case !r.Significant:
		return "~"
	case math.IsNaN(r.Delta):
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", r.Delta)
}

// stat is "p=0.002 n=8+8", or for a row tested on the runs' samples the
// ratio B/A with its interval, p, and runs x samples a run (or the
// samples in all when runs differ in length): "x1.98 [1.70, 2.31]
// p=0.002 n=3x15+3x15".
func (r *Row) stat() string {
	if math.IsNaN(r.P) || r.A == nil || r.B == nil {
		return ""
	}
	if r.Method == MethodHierarchical {
		return fmt.Sprintf("x%.3g [%.3g, %.3g] p=%.3f n=%s+%s", r.Ratio, r.RatioLo, r.RatioHi, r.P, runsBySamples(r.A), runsBySamples(r.B))
	}
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.A.N, r.B.N)
}

func runsBySamples(s *Summary) string {
	if s.Samples%s.N == 0 {
		return fmt.Sprintf("%dx%d", s.N, s.Samples/s.N)
	}
	return fmt.Sprintf("%d/%d", s.N, s.Samples)
}

func (t *Table) footer() []string {
	hier, mw := t.methods()
	var lines []string
	if hier {
		lines = append(lines, fmt.Sprintf("runs with per-iteration samples (n=runs x samples): geometric means with %.0f%% confidence intervals; the ratio B/A (x), its interval and p by a hierarchical bootstrap of runs and samples, \"~\" when p >= %.2f", t.Confidence*100, t.Alpha))
	}
	if mw || !hier {
		lines = append(lines, fmt.Sprintf("medians with %.0f%% confidence intervals; changes by a two-sided Mann-Whitney U test, \"~\" when p >= %.2f", t.Confidence*100, t.Alpha))
	}
	for _, kt := range t.KPIs {
		for _, r := range kt.Rows {
			for _, w := range r.Warnings {
				lines = append(lines, fmt.Sprintf("warning: %s, %s: %s", kt.KPI, r.Entry, w))
			}
		}
	}
	return lines
}

// methods tells which methods tested the rows.
func (t *Table) methods() (hierarchical, mannWhitney bool) {
	for _, kt := range t.KPIs {
		for _, r := range kt.Rows {
			hierarchical = hierarchical || r.Method == MethodHierarchical
			mannWhitney = mannWhitney || r.Method == MethodMannWhitney
		}
	}
	return hierarchical, mannWhitney
}

func (kt *KPITable) allRows() []*Row {
	if kt.Geomean == nil {
		return kt.Rows
	}
	return append(slices.Clone(kt.Rows), kt.Geomean)
}

// writeText writes the table for a terminal, as benchstat lays it out:
// the sides, then the labels every entry shares, one "key: value" line
// each; a table per KPI whose heading names the unit, so the cells hold
// numbers; entries named by the labels that differ between them, cut to
// fit texttable.Width; the notes wrapped to it.
func (t *Table) writeText(w io.Writer) error {
	fmt.Fprintln(w, texttable.Cut("A: "+t.A, texttable.Width))
	fmt.Fprintln(w, texttable.Cut("B: "+t.B, texttable.Width))
	if err := texttable.WriteCommon(w, t.Fixed); err != nil {
		return err
	}
	for _, kt := range t.KPIs {
		fmt.Fprintf(w, "\n%s\n", texttable.Cut(fmt.Sprintf("%s (%s, %s)", kt.KPI, kt.displayUnit(), kt.Direction()), texttable.Width))
		tab := texttable.Table{Header: []string{"entry", "A", "B", "delta", "", "verdict"}, Cut: []int{0}}
		for _, r := range kt.allRows() {
			tab.Rows = append(tab.Rows, []string{r.Entry, kt.centerIn(r.A, kt.bare), kt.centerIn(r.B, kt.bare), r.delta(), r.stat(), r.Verdict})
		}
		if err := tab.Write(w); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	for _, l := range t.footer() {
		if err := texttable.WriteWrapped(w, l); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the table for a page GitHub renders (a pull
// request, a step summary): every value escaped (internal/markdown).
func (t *Table) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "A: %s, B: %s\n", markdown.Code(t.A), markdown.Code(t.B))
	for _, kt := range t.KPIs {
		fmt.Fprintf(w, "\n### %s (%s, %s)\n\n", markdown.Escape(kt.KPI), markdown.Escape(kt.Unit), kt.Direction())
		fmt.Fprintln(w, "| entry | A | B | delta | test | verdict |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|---|")
		for _, r := range kt.allRows() {
			// delta, stat and verdict are numbers and words of ours.
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", markdown.Escape(r.Entry), markdown.Escape(kt.center(r.A)), markdown.Escape(kt.center(r.B)),
				r.delta(), r.stat(), r.Verdict)
		}
	}
	fmt.Fprintln(w)
	for _, l := range t.footer() {
		fmt.Fprintf(w, "- %s\n", markdown.Escape(l))
	}
	return nil
}

func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func (t *Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"workload", "kpi", "unit", "lower_better", "entry", "a_median", "a_lo", "a_hi", "a_n", "b_median", "b_lo", "b_hi", "b_n", "delta_percent", "p_value", "significant", "verdict", "warnings", "method", "ratio", "ratio_lo", "ratio_hi", "a_samples", "b_samples"})
	side := func(s *Summary) []string {
		if s == nil {
			return []string{"", "", "", "0"}
		}
		return []string{num(s.Center), num(s.Lo), num(s.Hi), strconv.Itoa(s.N)}
	}
	samples := func(s *Summary) string {
		if s == nil {
			return "0"
		}
		return strconv.Itoa(s.Samples)
	}
	for _, kt := range t.KPIs {
		for _, r := range kt.allRows() {
			rec := []string{kt.Workload, kt.KPI, kt.Unit, strconv.FormatBool(kt.LowerBetter), r.Entry}
			rec = append(rec, side(r.A)...)
			rec = append(rec, side(r.B)...)
			rec = append(rec, num(r.Delta), num(r.P), strconv.FormatBool(r.Significant), r.Verdict, strings.Join(r.Warnings, "; "))
			rec = append(rec, r.Method, num(r.Ratio), num(r.RatioLo), num(r.RatioHi), samples(r.A), samples(r.B))
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonNum is a number that is null when not finite.
type jsonNum float64

func (n jsonNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(n), 'g', -1, 64)), nil
}

func (t *Table) writeJSON(w io.Writer) error {
	type side struct {
		Median jsonNum `json:"median"`
		Lo     jsonNum `json:"lo"`
		Hi     jsonNum `json:"hi"`
		N      int     `json:"n"`
		// Samples counts the per-iteration samples, when the row used them.
		Samples int       `json:"samples,omitempty"`
		Values  []float64 `json:"values,omitempty"`
	}
	type row struct {
		Entry       string      `json:"entry"`
		A           *side       `json:"a"`
		B           *side       `json:"b"`
		Delta       jsonNum     `json:"delta_percent"`
		P           jsonNum     `json:"p_value"`
		Significant bool        `json:"significant"`
		Verdict     string      `json:"verdict"`
		Warnings    []string    `json:"warnings,omitempty"`
		Method      string      `json:"method,omitempty"`
		Ratio       *[3]jsonNum `json:"ratio,omitempty"` // B/A, its interval's bounds
	}
	type kpiDoc struct {
		Workload    string `json:"workload"`
		KPI         string `json:"kpi"`
		Unit        string `json:"unit"`
		LowerBetter bool   `json:"lower_better"`
		Rows        []row  `json:"rows"`
		Geomean     *row   `json:"geomean,omitempty"`
	}
	conv := func(s *Summary) *side {
		if s == nil {
			return nil
		}
		return &side{Median: jsonNum(s.Center), Lo: jsonNum(s.Lo), Hi: jsonNum(s.Hi), N: s.N, Samples: s.Samples, Values: s.Values}
	}
	convRow := func(r *Row) row {
		out := row{Entry: r.Entry, A: conv(r.A), B: conv(r.B), Delta: jsonNum(r.Delta), P: jsonNum(r.P), Significant: r.Significant, Verdict: r.Verdict, Warnings: r.Warnings, Method: r.Method}
		if r.Method == MethodHierarchical {
			out.Ratio = &[3]jsonNum{jsonNum(r.Ratio), jsonNum(r.RatioLo), jsonNum(r.RatioHi)}
		}
		return out
	}
	doc := struct {
		A          string            `json:"a"`
		B          string            `json:"b"`
		Labels     map[string]string `json:"labels"`
		Confidence float64           `json:"confidence"`
		Alpha      float64           `json:"alpha"`
		KPIs       []kpiDoc          `json:"kpis"`
	}{A: t.A, B: t.B, Labels: t.Fixed, Confidence: t.Confidence, Alpha: t.Alpha, KPIs: []kpiDoc{}}
	for _, kt := range t.KPIs {
		d := kpiDoc{Workload: kt.Workload, KPI: kt.KPI, Unit: kt.Unit, LowerBetter: kt.LowerBetter}
		for _, r := range kt.Rows {
			d.Rows = append(d.Rows, convRow(r))
		}
		if kt.Geomean != nil {
			g := convRow(kt.Geomean)
			d.Geomean = &g
		}
		doc.KPIs = append(doc.KPIs, d)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
