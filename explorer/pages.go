package explorer

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
)

//go:embed templates/*.html
var templates embed.FS

// pages are the HTML templates by page name, each with the layout.
type pages map[string]*template.Template

var funcs = template.FuncMap{
	"buildName": buildName,
	"buildURL":  func(id string) string { return "/builds/" + url.PathEscape(id) },
	"buildInSeries": func(id, series string) string {
		return "/builds/" + url.PathEscape(id) + "?series=" + url.QueryEscape(series)
	},
	"compareURL": compareURL,
	"seriesURL":  func(id string) string { return "/series/" + url.PathEscape(id) },
	"time":       func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"value":      formatValue,
	"setting":    formatSetting,
	"bytes":      func(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) },
	"deref":      func(p *int) int { return *p },
	"mib":        func(n int64) float64 { return float64(n) / (1 << 20) },
	"sorted":     func(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) },
	"sortedAny":  func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) },
	"sortedKPI":  func(m map[string]RunKPI) []string { return slices.Sorted(maps.Keys(m)) },
}

func parsePages() pages {
	out := pages{}
	for _, name := range []string{"landing", "series", "build", "compare", "error", "alerts"} {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templates, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// buildName is a build's id as a page shows it: a run's own build
// ("run:" and its test_uuid) by the start of its test_uuid; the page's
// link and title carry the whole id.
func buildName(id string) string {
	if rest, ok := strings.CutPrefix(id, "run:"); ok && len(rest) > 8 {
		return "run:" + rest[:8] + "…"
	}
	return id
}

// formatValue writes a KPI value with 4 significant digits, large ones
// with an SI prefix (67.11M).
func formatValue(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	for _, p := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}} {
		if math.Abs(v) >= p.div {
			return strconv.FormatFloat(v/p.div, 'g', 4, 64) + p.suffix
		}
	}
	if math.Abs(v) >= 1e4 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// formatSetting writes a setting's value as its YAML would read.
func formatSetting(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// layout is what every page has: its title and the store.
type layout struct {
	Title string
	Store string
	// Stale says why the series shown are not fresh (Server.indexError).
	Stale string
	Page  any
}

// page adapts a page: its template executed into a buffer first, so that
// an error is answered whole, with its status, on the error page.
func (s *Server) page(f func(r *http.Request) (string, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, data, err := f(r)
		code := http.StatusOK
		var buf bytes.Buffer
		if l, ok := data.(layout); ok && err == nil {
			l.Stale = s.indexError()
			data = l
		}
		if err == nil {
			err = s.pages[name].Execute(&buf, data)
			if err != nil {
				err = fmt.Errorf("page %s: %w", name, err)
			}
		}
		if err != nil {
			code = status(err)
			s.logError(r, code, err)
			buf.Reset()
			_ = s.pages["error"].Execute(&buf, layout{Title: http.StatusText(code), Store: s.opts.Store.String(),
				Page: struct {
					Status  int
					Message string
				}{code, err.Error()}})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(buf.Bytes())
	}
}

// landingData is the landing page: series by workload, label facets.
type landingData struct {
	Filter    []filterChip
	Facets    []facet
	Workloads []workloadGroup
	Total     int
	Shown     int
}

type filterChip struct {
	Name, Value string
	Remove      string // the URL without it
}

type facet struct {
	Name   string
	Values []facetValue
}

type facetValue struct {
	Value  string
	Series int
	URL    string // the URL with the value added, or removed when Active
	Active bool
}

type workloadGroup struct {
	Name string
	// Common are the labels every series listed shares; each row shows
	// only the others.
	Common []labelPair
	Series []seriesRow
}

type labelPair struct{ Name, Value string }

type seriesRow struct {
	SeriesSummary
	Varying  []labelPair
	Spark    string // SVG path of the sparkline
	SparkDot string // SVG path of its last point
}

// filterURL is the landing page's URL with filter f.
func filterURL(f models.Filter) string {
	q := url.Values{}
	for name, values := range f {
		q[name] = slices.Clone(values)
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

func (s *Server) landingPage(r *http.Request) (string, any, error) {
	snap, err := s.index(r.Context())
	if err != nil {
		return "", nil, err
	}
	f, err := labelFilter(r.URL.Query(), snap)
	if err != nil {
		return "", nil, err
	}
	list := seriesList(snap, f, s.opts.Store.String())
	d := landingData{Total: len(snap.series), Shown: len(list.Series)}
	for _, name := range f.Names() {
		for _, v := range f[name] {
			d.Filter = append(d.Filter, filterChip{Name: name, Value: v, Remove: filterURL(toggle(f, name, v))})
		}
	}
	for _, lv := range list.Labels {
		if len(lv.Values) < 2 && len(f[lv.Name]) == 0 {
			continue // one value: it tells no series apart
		}
		fc := facet{Name: lv.Name}
		for _, vc := range lv.Values {
			fc.Values = append(fc.Values, facetValue{Value: vc.Value, Series: vc.Series,
				URL: filterURL(toggle(f, lv.Name, vc.Value)), Active: slices.Contains(f[lv.Name], vc.Value)})
		}
		d.Facets = append(d.Facets, fc)
	}
	var group *workloadGroup
	var rows []SeriesSummary
	flush := func() {
		if group != nil {
			group.Common, group.Series = rowsOf(rows)
			d.Workloads = append(d.Workloads, *group)
		}
	}
	for _, sum := range list.Series {
		if group == nil || group.Name != sum.Workload {
			flush()
			group, rows = &workloadGroup{Name: sum.Workload}, nil
		}
		rows = append(rows, sum)
	}
	flush()
	return "landing", layout{Title: "Series", Store: list.Store, Page: d}, nil
}

// toggle returns f with name=value added, or removed when present.
func toggle(f models.Filter, name, value string) models.Filter {
	out := models.Filter{}
	for k, vs := range f {
		out[k] = slices.Clone(vs)
	}
	if i := slices.Index(out[name], value); i >= 0 {
		out[name] = slices.Delete(out[name], i, i+1)
		if len(out[name]) == 0 {
			delete(out, name)
		}
	} else {
		out[name] = append(out[name], value)
	}
	return out
}

// rowsOf splits the labels of a workload's series into those they all
// share and, for each series, the others.
func rowsOf(list []SeriesSummary) ([]labelPair, []seriesRow) {
	names := map[string]bool{}
	for _, sr := range list {
		for n := range sr.Labels {
			names[n] = true
		}
	}
	var common []labelPair
	shared := map[string]bool{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		v, ok := list[0].Labels[n]
		if ok && !slices.ContainsFunc(list, func(sr SeriesSummary) bool { w, has := sr.Labels[n]; return !has || w != v }) {
			common = append(common, labelPair{n, v})
			shared[n] = true
		}
	}
	rows := make([]seriesRow, len(list))
	for i, sr := range list {
		row := seriesRow{SeriesSummary: sr}
		for _, n := range slices.Sorted(maps.Keys(sr.Labels)) {
			if !shared[n] {
				row.Varying = append(row.Varying, labelPair{n, sr.Labels[n]})
			}
		}
		row.Spark, row.SparkDot = sparkline(sr.Sparkline, sparkWidth, sparkHeight)
		rows[i] = row
	}
	return common, rows
}

// The sparkline's box in pixels (landing.html's <svg>).
const sparkWidth, sparkHeight = 160, 32

// sparkline is the SVG path of the values scaled into a w×h box (a gap
// where a value is null), and a dot at the last value.
func sparkline(values []*float64, w, h float64) (path, dot string) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if v != nil {
			lo, hi = min(lo, *v), max(hi, *v)
		}
	}
	if math.IsInf(lo, 1) {
		return "", ""
	}
	const pad = 3
	x := func(i int) float64 {
		if len(values) == 1 {
			return w / 2
		}
		return pad + float64(i)*(w-2*pad)/float64(len(values)-1)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return h / 2
		}
		return h - pad - (v-lo)/(hi-lo)*(h-2*pad)
	}
	var b strings.Builder
	move := true
	for i, v := range values {
		if v == nil {
			move = true
			continue
		}
		cmd := "L"
		if move {
			cmd, move = "M", false
		}
		fmt.Fprintf(&b, "%s%.1f %.1f ", cmd, x(i), y(*v))
		if i == len(values)-1 || slices.IndexFunc(values[i+1:], func(p *float64) bool { return p != nil }) < 0 {
			dot = fmt.Sprintf("M%.1f %.1fh0.01", x(i), y(*v))
		}
	}
	return strings.TrimSpace(b.String()), dot
}

// seriesData is the history page: the series and its history, drawn by
// app.js from the JSON the page carries, on the axis of the URL, with the
// series overlaid that the URL names and those it may overlay.
type seriesData struct {
	Series  SeriesRef
	Labels  []labelPair
	History *History
	// Axis is AxisBuild or AxisTime; AxisURL the page on each.
	Axis       string
	AxisURL    map[string]string
	Overlay    overlayData
	Comparable []comparableGroup
	// NoOverlayURL is the page without overlays.
	NoOverlayURL string
}

func (s *Server) seriesPage(r *http.Request) (string, any, error) {
	snap, err := s.index(r.Context())
	if err != nil {
		return "", nil, err
	}
	sr, ok := snap.byID[r.PathValue("id")]
	if !ok {
		return "", nil, notFound("no series %q in %s", r.PathValue("id"), s.opts.Store)
	}
	axis, overlays, err := seriesOptions(r.URL.Query(), snap, sr)
	if err != nil {
		return "", nil, err
	}
	h, err := s.history(r.Context(), sr, nil)
	if err != nil {
		return "", nil, err
	}
	d := seriesData{Series: sr.ref(), History: h, Axis: axis, Overlay: overlayData{Overlays: []Overlay{}},
		Comparable: comparable(snap, sr, overlays), NoOverlayURL: seriesPageURL(sr.ID, axis, nil),
		AxisURL: map[string]string{AxisBuild: seriesPageURL(sr.ID, AxisBuild, overlays), AxisTime: seriesPageURL(sr.ID, AxisTime, overlays)}}
	var names []string
	d.Overlay.Name, names = overlayNames(sr, overlays)
	for i, o := range overlays {
		oh, err := s.history(r.Context(), o, nil)
		if err != nil {
			return "", nil, err
		}
		d.Overlay.Overlays = append(d.Overlay.Overlays, Overlay{Name: names[i], History: oh})
	}
	for _, n := range slices.Sorted(maps.Keys(sr.Labels)) {
		d.Labels = append(d.Labels, labelPair{n, sr.Labels[n]})
	}
	return "series", layout{Title: sr.Workload + " series " + sr.ID, Store: s.opts.Store.String(), Page: d}, nil
}

func (s *Server) buildPage(r *http.Request) (string, any, error) {
	b, err := s.apiBuild(r)
	if err != nil {
		return "", nil, err
	}
	return s.buildPageOf(b.(*BuildDetail))
}

func (s *Server) buildPageOf(b *BuildDetail) (string, any, error) {
	d := buildData{BuildDetail: b}
	var common []labelPair
	if len(b.Runs) > 0 {
		sums := make([]SeriesSummary, len(b.Runs))
		for i, run := range b.Runs {
			sums[i] = SeriesSummary{SeriesRef: run.Series}
		}
		var rows []seriesRow
		common, rows = rowsOf(sums)
		for i, run := range b.Runs {
			d.Rows = append(d.Rows, runRow{RunDetail: run, Varying: rows[i].Varying})
		}
	}
	d.Common = common
	d.CommonHardware = sameHardware(b.Runs)
	return "build", layout{Title: "Build " + b.Build.ID, Store: s.opts.Store.String(), Page: d}, nil
}

// buildData is the build page: the build, the labels its runs share and
// each run with its own.
type buildData struct {
	*BuildDetail
	Common []labelPair
	// CommonHardware is the hardware of every run, when they all ran on
	// the same: shown once.
	CommonHardware *models.HWInfo
	Rows           []runRow
}

// sameHardware is the runs' hardware when every run has the same; nil
// when they differ or one has none.
func sameHardware(runs []RunDetail) *models.HWInfo {
	if len(runs) == 0 || runs[0].Hardware == nil {
		return nil
	}
	first, err := json.Marshal(runs[0].Hardware)
	if err != nil {
		return nil
	}
	for _, r := range runs[1:] {
		if other, err := json.Marshal(r.Hardware); err != nil || !bytes.Equal(first, other) {
			return nil
		}
	}
	return runs[0].Hardware
}

type runRow struct {
	RunDetail
	Varying []labelPair
}
