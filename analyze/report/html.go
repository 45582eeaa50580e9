package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/models"
)

// FigureDir is the directory of the HTML report's figures, relative to
// the report.
const FigureDir = "regression_plots"

// MaxFigures bounds the figures of one report: each finding gets one, up to
// this many (the table's sparklines show every result).
const MaxFigures = 200

// Figure is one figure file of the HTML report.
type Figure struct {
	// Path is relative to the report directory (slash-separated).
	Path string
	e    *regression.Entry
	r    *regression.KPIResult
}

// Write draws the figure as SVG.
func (f Figure) Write(w io.Writer) error { return writeFigure(w, f.e, f.r) }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Figures lists the figures the HTML report references: one per finding
// (regression, improvement, acknowledged), in report order, at most
// MaxFigures.
func Figures(rep *regression.Report) []Figure {
	var out []Figure
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if !isFinding(r) || len(out) == MaxFigures {
				continue
			}
			name := fmt.Sprintf("entry-%d-%s.svg", e.ID, unsafeName.ReplaceAllString(r.KPI, "_"))
			out = append(out, Figure{Path: path.Join(FigureDir, name), e: e, r: r})
		}
	}
	return out
}

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Parse(pageText))

type htmlPage struct {
	Method, Verdict string
	Failed          bool
	Summary         regression.Summary
	Info            Info
	Keys            []htmlKeys
	MetaKeys        string
	IgnoredKPIs     string
	Variables       string
	Fixed           [][2]string
	History         regression.HistoryStats
	First, Last     string
	Rows            []htmlRow
	Details         []htmlDetail
	Skipped         []string
	UnusedAcks      []string
	FiguresLeftOut  int
}

type htmlKeys struct {
	Workload, Comparison, Ignored, Sorting, IgnoredEntries string
}

type htmlRow struct {
	ID                                          int
	Entry, Comparison, KPI, Status, Class       string
	Current, Reference, Delta, Stat, Note, Link string
	Points                                      int
	Spark                                       sparkline
}

type htmlDetail struct {
	Anchor, Title, Status, Class, Figure, Details, Note string
	Labels                                              [][2]string
	Runs                                                []regression.RunRef
	Points                                              []htmlPoint
}

type htmlPoint struct {
	Label, Time, Value, Runs string
	Current                  bool
}

func statusClass(s analyze.Status) string { return "st-" + string(s) }

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func pairs(m map[string]string) [][2]string {
	var out [][2]string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, [2]string{k, m[k]})
	}
	return out
}

// WriteHTML writes regression_report.html: the verdict and counts, the
// configuration, the history read, the results table (rows coloured by
// status, each with a sparkline of its history and current point), and the
// details of each finding with its figure (Figures, written beside it).
func WriteHTML(w io.Writer, rep *regression.Report, info Info) error {
	pg := htmlPage{Method: rep.Method, Verdict: verdict(rep), Failed: rep.Failed(), Summary: rep.Summary, Info: info,
		MetaKeys: list(regression.MetaKeys), IgnoredKPIs: list(rep.IgnoredKPIs), Variables: list(rep.Variables),
		Fixed: pairs(rep.Fixed), History: rep.History, First: day(rep.History.First), Last: day(rep.History.Last),
		Skipped: rep.Skipped}
	for _, wl := range slices.Sorted(maps.Keys(rep.Keys)) {
		k := rep.Keys[wl]
		var filters []string
		for _, text := range k.IgnoredEntries {
			if f, err := models.ParseFilter(text); err == nil {
				text = f.String() // names sorted, as every filter is shown
			}
			filters = append(filters, text)
		}
		pg.Keys = append(pg.Keys, htmlKeys{Workload: wl, Comparison: list(k.ComparisonKeys), Ignored: list(k.IgnoredKeys),
			Sorting: list(k.SortingKeys), IgnoredEntries: list(filters)})
	}
	for _, a := range rep.UnusedAcks {
		pg.UnusedAcks = append(pg.UnusedAcks, a.String())
	}
	figures := map[*regression.KPIResult]string{}
	for _, f := range Figures(rep) {
		figures[f.r] = f.Path
	}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			row := htmlRow{ID: e.ID, Entry: e.Name, Comparison: comparison(e), KPI: kpiName(r), Status: string(r.Status),
				Class: statusClass(r.Status), Current: r.Display(r.Current.Value), Reference: r.Display(r.Result.Reference),
				Delta: delta(r.Result.DeltaPercent), Stat: statistic(r.Result), Note: note(r), Points: len(r.History),
				Spark: newSparkline(r)}
			if isFinding(r) {
				d := detail(e, r, figures[r])
				row.Link = "#" + d.Anchor
				pg.Details = append(pg.Details, d)
				if d.Figure == "" {
					pg.FiguresLeftOut++
				}
			}
			pg.Rows = append(pg.Rows, row)
		}
	}
	return page.Execute(w, pg)
}

func detail(e *regression.Entry, r *regression.KPIResult, figure string) htmlDetail {
	d := htmlDetail{Anchor: fmt.Sprintf("entry-%d-%s", e.ID, unsafeName.ReplaceAllString(r.KPI, "_")),
		Title:  fmt.Sprintf("#%d %s @ %s: %s", e.ID, e.Name, comparison(e), r.KPI),
		Status: string(r.Status), Class: statusClass(r.Status), Figure: figure, Details: r.Result.Details, Note: note(r),
		Labels: pairs(e.Labels), Runs: e.Runs}
	for _, pt := range r.History {
		d.Points = append(d.Points, htmlPoint{Label: pt.Label, Time: day(pt.Time), Value: r.Display(pt.Value), Runs: fmt.Sprint(len(pt.Samples))})
	}
	d.Points = append(d.Points, htmlPoint{Label: r.Current.Label, Time: day(r.Current.Time), Value: r.Display(r.Current.Value),
		Runs: fmt.Sprint(len(r.Current.Samples)), Current: true})
	return d
}
