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
	"sync"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/internal/texttable"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
)

// FigureDir is the directory of the HTML report's figures, relative to
// the report.
const FigureDir = "regression_plots"

// MaxFigures bounds the figures of one report: each result needing a
// reader's attention (a finding, a failing or a noisy result) gets one, up
// to this many (the table's sparklines show every result).
const MaxFigures = 200

// MaxDetailed bounds the other results (ok, no history, not analysed)
// whose details and builds the page shows, folded: beyond it, a large
// analysis would make a page too heavy to open.
const MaxDetailed = 300

// The builds a detail's table lists, the latest ones: more for a result
// needing attention than for the others. The figure shows them all.
const (
	buildRowsAttention = 40
	buildRowsOther     = 12
)

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

// needsAttention tells whether a result gets a figure and an open detail:
// a finding, a failing result, or one too noisy to judge.
func needsAttention(r *regression.KPIResult) bool {
	return r.IsFinding() || r.Status == analyze.StatusNoisy || r.Status == analyze.StatusSuspect
}

// Figures lists the figures the HTML report references: one per result
// needing attention (regression, improvement, acknowledged, noisy), in
// report order, at most MaxFigures.
func Figures(rep *regression.Report) []Figure {
	var out []Figure
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if !needsAttention(r) || len(out) == MaxFigures {
				continue
			}
			out = append(out, Figure{Path: path.Join(FigureDir, anchor(e, r)+".svg"), e: e, r: r})
		}
	}
	return out
}

func anchor(e *regression.Entry, r *regression.KPIResult) string {
	return fmt.Sprintf("entry-%d-%s", e.ID, unsafeName.ReplaceAllString(r.KPI, "_"))
}

//go:embed report.html.tmpl
var pageText string

var page = sync.OnceValue(func() *template.Template { return template.Must(template.New("report").Parse(pageText)) })

type htmlPage struct {
	Style          template.HTML
	Charts         template.HTML // the inlined chart script, when a detail has a chart
	Intro          string
	Outcome        Outcome
	Headline       string
	Method         string
	Summary        regression.Summary
	Info           Info
	Comparison     string // shared by every entry; "" when they differ
	Keys           []htmlKeys
	MetaKeys       string
	IgnoredKPIs    string
	Variables      string
	Fixed          [][2]string
	History        regression.HistoryStats
	First, Last    string
	Shared         [][2]string // the labels every entry shares, shown once above the results
	CurrentBuild   string      // the current build of every entry; "" when they differ
	Groups         []htmlGroup
	Failing        int
	Attention      []htmlDetail
	Others         []htmlDetail
	Skipped        []string
	UnusedAcks     []string
	FiguresLeftOut int
	OthersLeftOut  int
}

type htmlKeys struct {
	Workload, Comparison, Ignored, Sorting, IgnoredEntries string
}

// htmlGroup is an entry's rows of the results table, headed by what
// tells it from the other entries.
type htmlGroup struct {
	ID                      int
	Name, Comparison, Build string
	Failing                 bool
	Rows                    []htmlRow
	rank                    int
}

type htmlRow struct {
	KPI, Status, Class                   string
	Failing                              bool
	CI, Current, Reference, Delta, Floor string
	Q, Noise, Stat, Note, Link           string
	Spark                                sparkline
	rank                                 int
}

// resultRank orders results for a reader: failing (0), another finding
// (1), noisy or suspect (2), the others (3).
func resultRank(r *regression.KPIResult) int {
	switch {
	case r.Failing:
		return 0
	case r.IsFinding():
		return 1
	case needsAttention(r):
		return 2
	}
	return 3
}

// sharedLabels are the labels (series and comparison) every entry has
// with one value, as texttable.Common finds them for the text table: said
// once above the results, each entry is then named by the others only.
func sharedLabels(rep *regression.Report) [][2]string {
	var sets []map[string]string
	for _, e := range rep.Entries {
		all := maps.Clone(e.Labels)
		if all == nil {
			all = map[string]string{}
		}
		maps.Copy(all, e.Comparison)
		sets = append(sets, all)
	}
	common, _ := texttable.Common(sets)
	var out [][2]string
	for _, kv := range pairs(common) {
		if kv[1] != "" {
			out = append(out, kv)
		}
	}
	return out
}

// buildName is a build as the report names it: its id, its short commit
// beside it when the id is not the commit.
func buildName(commit, build, comparison string) string {
	id, short := plotting.BuildName(commit, build, comparison)
	if short == "" {
		return id
	}
	return id + " (" + short + ")"
}

// entryBuild names the builds of an entry's current runs.
func entryBuild(e *regression.Entry) string {
	var names []string
	for i, b := range e.Builds {
		commit := ""
		if i == 0 {
			commit = e.Commit
		}
		names = append(names, buildName(commit, b, ""))
	}
	return strings.Join(names, ", ")
}

type htmlDetail struct {
	Anchor, Title, Summary, Status, Class, Figure string
	Open                                          bool
	Chart                                         *charts.Chart
	Facts                                         [][2]string
	Warnings                                      []string
	Labels                                        [][2]string
	Runs                                          []regression.RunRef
	Builds                                        []htmlBuild
	BuildsLeftOut                                 int
	// BuildsCaption heads Builds: the history's builds, or an A/B's sides.
	BuildsCaption string

	rank int // the order of the details needing attention
}

type htmlBuild struct {
	N                                            int
	Build, Short, Commit, Comparison, Time, Role string
	Value, Runs, Class                           string
	Current                                      bool
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

// sharedComparison is the comparison value of every entry when they all
// have the same, else "".
func sharedComparison(rep *regression.Report) string {
	shared := ""
	for i, e := range rep.Entries {
		if i > 0 && e.ComparisonValue != shared {
			return ""
		}
		shared = e.ComparisonValue
	}
	return shared
}

// WriteHTML writes regression_report.html, in the look of the visualize
// pages and linked to their reports_index.html when Info.ReportsIndex
// names it: the outcome as every output words it; the results table
// (rows coloured by status, with how CI counts each, the change against
// the floor, the q-value, the noise and a sparkline of the history); the
// details of every result needing attention (findings and noisy ones),
// each with its figure (Figures, written beside it), its numbers, the
// reference the method compared with and its builds; the other results'
// details folded; then the configuration and the history read.
func WriteHTML(w io.Writer, rep *regression.Report, info Info) error {
	o := OutcomeOf(rep)
	intro := plural(rep.Summary.Entries, "entry") + " × " + plural(rep.Summary.KPIs, "KPI")
	if info.Current != "" {
		intro += " of " + info.Current
	}
	switch {
	case info.Baseline != "":
		intro += ", every side judged against the baseline " + info.Baseline + " of the same runs (A/B) by a hierarchical bootstrap."
	case info.History != "":
		intro += ", judged against " + info.History + fmt.Sprintf(" by the %s method.", rep.Method)
	default:
		intro += fmt.Sprintf(" by the %s method.", rep.Method)
	}
	pg := htmlPage{Style: plotting.Style(), Intro: intro, Outcome: o, Headline: o.Headline(), Method: rep.Method, Summary: rep.Summary, Info: info,
		Comparison: sharedComparison(rep),
		MetaKeys:   list(regression.MetaKeys), IgnoredKPIs: list(rep.IgnoredKPIs), Variables: list(rep.Variables),
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
	pg.Shared = sharedLabels(rep)
	builds := map[string]bool{}
	for _, e := range rep.Entries {
		builds[entryBuild(e)] = true
	}
	if len(builds) == 1 {
		pg.CurrentBuild = entryBuild(rep.Entries[0])
	}
	for _, e := range rep.Entries {
		g := htmlGroup{ID: e.ID, Name: e.Name, Comparison: comparison(e), Build: entryBuild(e), rank: 3}
		for _, r := range e.Results {
			row := htmlRow{KPI: kpiName(r), Status: string(r.Status), Failing: r.Failing,
				Class: statusClass(r.Status), CI: ciOutcome(r), Current: r.Display(r.CurrentValue()), Reference: r.Display(r.Result.Reference),
				Delta: delta(r.Result.DeltaPercent), Floor: floor(r.Result.Floor), Q: number2(r.Result.QValue), Noise: noise(r.Result.Noise),
				Stat: statistic(r.Result), Note: rowNote(r), Spark: newSparkline(r), rank: resultRank(r)}
			switch {
			case needsAttention(r):
				d := detail(e, r, figures[r], true)
				row.Link = "#" + d.Anchor
				if d.Figure == "" {
					pg.FiguresLeftOut++
				} else if d.Chart = newChart(e, r); d.Chart != nil {
					pg.Charts = charts.Inline()
				}
				pg.Attention = append(pg.Attention, d)
			case len(pg.Others) < MaxDetailed:
				d := detail(e, r, "", false)
				row.Link = "#" + d.Anchor
				pg.Others = append(pg.Others, d)
			default:
				pg.OthersLeftOut++
			}
			g.Rows = append(g.Rows, row)
			g.Failing = g.Failing || r.Failing
			g.rank = min(g.rank, resultRank(r))
			if r.Failing {
				pg.Failing++
			}
		}
		// Within an entry, failing results first, then the other findings,
		// then the noisy, in the entry's KPI order otherwise.
		slices.SortStableFunc(g.Rows, func(a, b htmlRow) int { return a.rank - b.rank })
		pg.Groups = append(pg.Groups, g)
	}
	// Entries with a failing result first, then those with a finding, ….
	slices.SortStableFunc(pg.Groups, func(a, b htmlGroup) int { return a.rank - b.rank })
	// Failing results first, then the other findings, then the noisy.
	rank := func(d htmlDetail) int { return d.rank }
	slices.SortStableFunc(pg.Attention, func(a, b htmlDetail) int { return rank(a) - rank(b) })
	return page().Execute(w, pg)
}

// rowNote is the table's note: why a result has no verdict or passes, and
// how many warnings its details list.
func rowNote(r *regression.KPIResult) string {
	var parts []string
	if r.Result.Reason != "" && showsReason(r.Status) {
		parts = append(parts, r.Result.Reason)
	}
	if r.Ack != nil {
		parts = append(parts, "acknowledged: "+r.Ack.Reason)
	} else if why := whyNotFailing(r); why != "" {
		parts = append(parts, why)
	}
	if n := len(r.Warnings); n > 0 {
		parts = append(parts, plural(n, "warning"))
	}
	return strings.Join(parts, "; ")
}

// ciText says how CI counts a result, in words.
func ciText(r *regression.KPIResult) string {
	switch ciOutcome(r) {
	case "fail":
		return "fails the analysis (exit 2)"
	case "skip":
		return "skipped: could not be judged"
	}
	if why := whyNotFailing(r); why != "" {
		return "passes: " + why
	}
	return "passes"
}

func detail(e *regression.Entry, r *regression.KPIResult, figure string, open bool) htmlDetail {
	d := htmlDetail{Anchor: anchor(e, r), Title: fmt.Sprintf("#%d %s @ %s: %s", e.ID, e.Name, comparison(e), kpiName(r)),
		Status: string(r.Status), Class: statusClass(r.Status), Figure: figure, Open: open,
		Labels: pairs(e.Labels), Runs: e.Runs}
	d.Summary = fmt.Sprintf("%s %s against %s", r.Display(r.CurrentValue()), delta(r.Result.DeltaPercent), r.Display(r.Result.Reference))
	if !finite(r.Result.DeltaPercent) {
		d.Summary = r.Display(r.CurrentValue())
	}
	fact := func(k, v string) { d.Facts = append(d.Facts, [2]string{k, v}) }
	fact("CI", ciText(r))
	if r.Result.Reason != "" && showsReason(r.Status) {
		fact("why", r.Result.Reason)
	}
	how, ref := "the median of", r.Display(r.Result.Reference)
	if r.Result.Method == regression.MethodBaseline {
		how, ref = "the level (geometric mean) of the samples of", ref+", the baseline's level"
	}
	fact("current build", fmt.Sprintf("%s, %s %s", r.Display(r.CurrentValue()), how, plural(max(1, len(r.Current.Samples)), "run")))
	fact("reference", ref)
	fact("change", fmt.Sprintf("%s (the floor, the smallest change counted: %s)", delta(r.Result.DeltaPercent), floor(r.Result.Floor)))
	fact("significance", fmt.Sprintf("%s, %s (adjusted for the false discovery rate across every test of the analysis)", statistic(r.Result), qvalue(r.Result.QValue)))
	nz := "unknown"
	switch {
	case r.Result.Method == regression.MethodBaseline && finite(r.Result.Detectable):
		nz = fmt.Sprintf("the 95%% interval of the change against the baseline is ±%.1f%%: the smallest change this comparison can see", r.Result.Detectable)
	case finite(r.Result.Noise):
		nz = fmt.Sprintf("standard error %s of the current build against its reference", noise(r.Result.Noise))
		if finite(r.Result.Detectable) {
			nz += fmt.Sprintf("; the smallest change this test can see: %.1f%%", r.Result.Detectable)
		}
	}
	fact("noise", nz)
	if r.Result.Details != "" {
		fact("method ("+r.Result.Method+")", r.Result.Details)
	}
	for _, w := range r.Warnings {
		d.Warnings = append(d.Warnings, w.Msg)
	}
	d.Builds, d.BuildsLeftOut = builds(r, open)
	d.BuildsCaption = "Builds, oldest first"
	if drawnSides(r) != nil {
		d.BuildsCaption = "The two sides, run in the same job"
	}
	switch {
	case r.Failing:
	case r.IsFinding():
		d.rank = 1
	default:
		d.rank = 2
	}
	return d
}

// builds lists the history builds of a result, the latest ones, each with
// its role in the reference, then the current build.
func builds(r *regression.KPIResult, attention bool) ([]htmlBuild, int) {
	role := map[int]string{}
	if b := r.Result.Baseline; b != nil {
		for i := b.Start; i < b.Start+b.Len; i++ {
			role[i] = "stable segment"
		}
		for _, c := range b.ChangePoints {
			role[c] = "change point: a new level starts"
		}
		for _, s := range b.Spikes {
			role[s] = "spike, left out"
		}
	}
	var out []htmlBuild
	finiteIndex := 0
	for i, pt := range r.History {
		hb := htmlBuild{N: i + 1, Commit: pt.Commit, Comparison: pt.Label,
			Time: day(pt.Time), Value: r.Display(pt.Value), Runs: fmt.Sprint(max(1, len(pt.Samples)))}
		hb.Build, hb.Short = plotting.BuildName(pt.Commit, pt.Build, pt.Label)
		if finite(pt.Value) {
			hb.Role = role[finiteIndex]
			finiteIndex++
		}
		switch {
		case strings.HasPrefix(hb.Role, "change point"):
			hb.Class = "role-change"
		case strings.HasPrefix(hb.Role, "spike"):
			hb.Class = "role-spike"
		case hb.Role != "":
			hb.Class = "role-segment"
		}
		out = append(out, hb)
	}
	keep := buildRowsOther
	if attention {
		keep = buildRowsAttention
	}
	left := max(0, len(out)-keep)
	out = out[left:]
	cur := r.Current
	hb := htmlBuild{N: len(r.History) + 1, Commit: cur.Commit,
		Comparison: cur.Label, Time: day(cur.Time), Value: r.Display(cur.Value), Runs: fmt.Sprint(len(cur.Samples)),
		Role: "current build", Current: true, Class: "current " + statusClass(r.Status)}
	hb.Build, hb.Short = plotting.BuildName(cur.Commit, cur.Build, cur.Label)
	if s := drawnSides(r); s != nil {
		// A/B: the baseline side's runs, of the same build, then this side's.
		base := hb
		base.Value, base.Runs = r.Display(analyze.Median(s.BaselinePoint.Samples)), fmt.Sprint(len(s.BaselinePoint.Samples))
		base.Role, base.Current, base.Class = "the baseline "+s.Baseline, false, "role-segment"
		out = append(out, base)
		hb.N, hb.Role = 2, s.Current+", judged against it"
	}
	out = append(out, hb)
	return out, left
}
