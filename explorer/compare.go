package explorer

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/models"
)

// Comparison is /api/compare?a=ID&b=ID: two builds compared as `seshat
// compare build:A build:B` does (the compare package: medians, the
// Mann-Whitney U test, or the hierarchical bootstrap on per-iteration
// samples), series by series: the series with a significant change first.
type Comparison struct {
	A BuildRef `json:"a"`
	B BuildRef `json:"b"`
	// Alpha is the significance level, Confidence the intervals' level.
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	// Series are those both builds ran.
	Series []SeriesComparison `json:"series"`
	// OnlyA and OnlyB count the series only one build ran.
	OnlyA int `json:"only_in_a"`
	OnlyB int `json:"only_in_b"`
	// Message says why nothing is compared: the builds share no series.
	Message string `json:"message,omitempty"`
}

// SeriesComparison is one series' KPIs compared, changed ones first.
type SeriesComparison struct {
	Series SeriesRef       `json:"series"`
	KPIs   []KPIComparison `json:"kpis"`
}

// KPIComparison is one series x KPI of a comparison, compare.Row's
// figures: each side's center (the median of its runs; the geometric
// mean of its samples for the hierarchical method), the change from A to
// B in percent, its p-value, and the verdict: better, worse or ~ (no
// significant change), in the KPI's direction.
type KPIComparison struct {
	KPI         string       `json:"kpi"`
	Unit        string       `json:"unit"`
	LowerBetter bool         `json:"lower_better"`
	A           *CompareSide `json:"a"`
	B           *CompareSide `json:"b"`
	Delta       *float64     `json:"delta_percent"`
	P           *float64     `json:"p_value"`
	Method      string       `json:"method,omitempty"`
	Verdict     string       `json:"verdict"`
	Warnings    []string     `json:"warnings,omitempty"`

	display func(float64) string
}

// CompareSide is one side of a KPIComparison: null when the build has no
// run of the series with the KPI.
type CompareSide struct {
	Center float64  `json:"center"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	Runs   int      `json:"runs"`
}

// changed tells whether a row's change is significant.
func (k KPIComparison) changed() bool { return k.Verdict == "better" || k.Verdict == "worse" }

// rank orders series: a worse KPI first, then a better one, then the
// others.
func (c SeriesComparison) rank() int {
	r := 2
	for _, k := range c.KPIs {
		switch k.Verdict {
		case "worse":
			return 0
		case "better":
			r = 1
		}
	}
	return r
}

// compareBuilds compares build b with build a. Each side is read as
// `seshat compare` reads a build:ID (compare.StoreBuild), its runs cut
// into the series of the index, and each series compared by
// compare.Build, the entry being the series (its labels less the
// comparison, ignored and meta keys).
func (s *Server) compareBuilds(ctx context.Context, aID, bID string) (*Comparison, error) {
	snap, err := s.index(ctx)
	if err != nil {
		return nil, err
	}
	var builds [2]*build
	for i, id := range []string{aID, bID} {
		if builds[i] = snap.builds[id]; builds[i] == nil {
			return nil, notFound("no build %q in %s", id, s.opts.Store)
		}
	}
	out := &Comparison{A: buildRef(builds[0]), B: buildRef(builds[1]), Series: []SeriesComparison{}}
	var bySeries [2]map[*series][]*models.Payload
	for i, b := range builds {
		ps, err := compare.StoreBuild{Store: s.opts.Store, ID: b.ID}.Payloads(ctx)
		if err != nil {
			return nil, storeError(s.opts.Store, err)
		}
		bySeries[i] = map[*series][]*models.Payload{}
		for _, p := range ps {
			if ref, ok := snap.runs[p.Metadata.TestUUID]; ok {
				bySeries[i][ref.series] = append(bySeries[i][ref.series], p)
			}
		}
	}
	for sr := range bySeries[1] {
		if _, ok := bySeries[0][sr]; !ok {
			out.OnlyB++
		}
	}
	opts := s.opts.Compare
	opts.Keys = s.compareKeys
	for sr, pa := range bySeries[0] {
		pb, ok := bySeries[1][sr]
		if !ok {
			out.OnlyA++
			continue
		}
		t := compare.Build(pa, pb, [2]string{aID, bID}, opts)
		out.Alpha, out.Confidence = t.Alpha, t.Confidence
		out.Series = append(out.Series, s.seriesComparison(sr, t))
	}
	if len(out.Series) == 0 {
		out.Message = fmt.Sprintf("builds %s and %s have no series in common: %s ran %d series, %s ran %d; compare builds that ran the same workloads and labels",
			aID, bID, aID, len(bySeries[0]), bID, len(bySeries[1]))
	}
	slices.SortFunc(out.Series, func(x, y SeriesComparison) int {
		return cmp.Or(cmp.Compare(x.rank(), y.rank()), compareSeries(snap.byID[x.Series.ID], snap.byID[y.Series.ID]))
	})
	return out, nil
}

// compareKeys are the labels left out of a compared entry: those that
// are not a series' (comparison, ignored and meta keys), so that the
// runs of a series are one entry.
func (s *Server) compareKeys(workload string) []string {
	k := s.workload(workload).Keys
	return slices.Concat(k.ComparisonKeys, k.IgnoredKeys, regression.MetaKeys)
}

// seriesComparison is the table of one series (one entry), its KPIs in
// the workload's order, the main one first, the changed ones before the
// others.
func (s *Server) seriesComparison(sr *series, t *compare.Table) SeriesComparison {
	out := SeriesComparison{Series: sr.ref()}
	for _, kt := range t.KPIs {
		for _, r := range kt.Rows {
			k := KPIComparison{KPI: kt.KPI, Unit: kt.Unit, LowerBetter: kt.LowerBetter, A: compareSide(r.A), B: compareSide(r.B),
				Delta: number(r.Delta), P: number(r.P), Method: r.Method, Verdict: r.Verdict, Warnings: r.Warnings, display: kt.Display}
			out.KPIs = append(out.KPIs, k)
		}
	}
	order := s.workload(sr.Workload).KPIs
	pos := func(name string) int {
		if name == sr.MainKPI {
			return -1
		}
		if i := slices.Index(order, name); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out.KPIs, func(x, y KPIComparison) int {
		return cmp.Or(-cmp.Compare(b2i(x.changed()), b2i(y.changed())), cmp.Compare(pos(x.KPI), pos(y.KPI)), strings.Compare(x.KPI, y.KPI))
	})
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareSide(s *compare.Summary) *CompareSide {
	if s == nil {
		return nil
	}
	return &CompareSide{Center: s.Center, Lo: number(s.Lo), Hi: number(s.Hi), Runs: s.N}
}

// apiCompare is /api/compare?a=ID&b=ID.
func (s *Server) apiCompare(r *http.Request) (any, error) {
	q := r.URL.Query()
	if err := checkParams(q, "a", "b"); err != nil {
		return nil, err
	}
	var ids [2]string
	for i, name := range []string{"a", "b"} {
		if len(q[name]) != 1 || q.Get(name) == "" {
			return nil, badRequest("query parameter %s: give one build id (%s=ID)", name, name)
		}
		ids[i] = q.Get(name)
	}
	return s.compareBuilds(r.Context(), ids[0], ids[1])
}

// compareData is the comparison page: the build, the builds it can be
// compared with, and the comparison when one was picked.
type compareData struct {
	Build    BuildRef
	With     string
	Choices  []compareChoice
	Previous *BuildRef // the build before it
	SameRef  *BuildRef // the build before it of the same ref
	Result   *Comparison
	Rows     []compareGroup
}

type compareChoice struct {
	BuildRef
	Label    string
	Selected bool
}

// compareGroup is a series' rows on the page.
type compareGroup struct {
	Series  SeriesRef
	Varying []labelPair
	Rows    []compareRow
}

type compareRow struct {
	KPIComparison
	AText, BText, DeltaText, PText string
}

// maxCompareChoices bounds the builds the page's list offers, newest
// first.
const maxCompareChoices = 500

// comparePage is /builds/{id}/compare[?with=ID]: without with, the
// previous build is compared.
func (s *Server) comparePage(r *http.Request) (string, any, error) {
	q := r.URL.Query()
	if err := checkParams(q, "with"); err != nil {
		return "", nil, err
	}
	snap, err := s.index(r.Context())
	if err != nil {
		return "", nil, err
	}
	id := r.PathValue("id")
	b := snap.builds[id]
	if b == nil {
		return "", nil, notFound("no build %q in %s", id, s.opts.Store)
	}
	d := compareData{Build: buildRef(b)}
	all := make([]*build, 0, len(snap.builds))
	for _, o := range snap.builds {
		all = append(all, o)
	}
	slices.SortFunc(all, func(x, y *build) int { return cmp.Or(y.First.Compare(x.First), strings.Compare(x.ID, y.ID)) })
	for _, o := range all {
		if o == b || !o.First.Before(b.First) {
			continue
		}
		if d.Previous == nil {
			ref := buildRef(o)
			d.Previous = &ref
		}
		if d.SameRef == nil && b.Build != nil && o.Build != nil && o.Build.Ref == b.Build.Ref && b.Build.Ref != "" {
			ref := buildRef(o)
			d.SameRef = &ref
		}
	}
	d.With = q.Get("with")
	if _, given := q["with"]; !given && d.Previous != nil {
		d.With = d.Previous.ID
	}
	for _, o := range all[:min(len(all), maxCompareChoices)] {
		if o == b {
			continue
		}
		c := compareChoice{BuildRef: buildRef(o), Selected: o.ID == d.With}
		c.Label = buildName(o.ID)
		if c.ShortCommit != "" {
			c.Label += " (" + c.ShortCommit + ")"
		}
		c.Label += " " + o.First.UTC().Format("2006-01-02 15:04")
		d.Choices = append(d.Choices, c)
	}
	if d.With != "" {
		res, err := s.compareBuilds(r.Context(), d.With, id)
		if err != nil {
			return "", nil, err
		}
		d.Result = res
		refs := make([]SeriesSummary, len(res.Series))
		for i, sc := range res.Series {
			refs[i] = SeriesSummary{SeriesRef: sc.Series}
		}
		_, rows := rowsOf(refs)
		for i, sc := range res.Series {
			g := compareGroup{Series: sc.Series, Varying: rows[i].Varying}
			for _, k := range sc.KPIs {
				g.Rows = append(g.Rows, compareRow{KPIComparison: k, AText: sideText(k.A, k.display), BText: sideText(k.B, k.display),
					DeltaText: deltaText(k.Delta), PText: pText(k)})
			}
			d.Rows = append(d.Rows, g)
		}
	}
	return "compare", layout{Title: "Build " + id + " compared", Store: s.opts.Store.String(), Page: d}, nil
}

func sideText(s *CompareSide, display func(float64) string) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%s (n=%d)", display(s.Center), s.Runs)
}

func deltaText(d *float64) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", *d)
}

// pText is benchstat's: "~" when the change is not significant, with p.
func pText(k KPIComparison) string {
	if k.P == nil {
		return "-"
	}
	if !k.changed() {
		return fmt.Sprintf("~ (p=%.3f)", *k.P)
	}
	return fmt.Sprintf("p=%.3f", *k.P)
}

// compareURL is the comparison page of build id with build with.
func compareURL(id, with string) string {
	return "/builds/" + url.PathEscape(id) + "/compare?with=" + url.QueryEscape(with)
}
