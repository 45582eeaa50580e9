package explorer

import (
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// The JSON of the API (docs/serve.md). Field names are snake_case; times
// RFC 3339 UTC; a KPI value a build has none of is null.

// SeriesList is /api/series: the series matching a label filter.
type SeriesList struct {
	Store string `json:"store"`
	// Filter is the label filter asked (?label=value...), values ORed
	// within a label, labels ANDed.
	Filter map[string][]string `json:"filter"`
	// Labels are the label names of the series, each with its values and
	// the number of series that have each among those the rest of the
	// filter selects.
	Labels []LabelValues   `json:"labels"`
	Series []SeriesSummary `json:"series"`
	// Stale says why the series listed are not fresh: the last read of
	// the store failed, and these are the previous read's.
	Stale string `json:"stale,omitempty"`
}

// LabelValues are the values of one label.
type LabelValues struct {
	Name   string       `json:"name"`
	Values []ValueCount `json:"values"`
}

// ValueCount is a label value and how many series have it.
type ValueCount struct {
	Value  string `json:"value"`
	Series int    `json:"series"`
}

// SeriesRef names a series.
type SeriesRef struct {
	ID       string            `json:"id"`
	Workload string            `json:"workload"`
	Labels   map[string]string `json:"labels"`
	MainKPI  string            `json:"main_kpi"`
}

// SeriesSummary is a series as the landing page lists it.
type SeriesSummary struct {
	SeriesRef
	Unit        string    `json:"unit"`
	LowerBetter bool      `json:"lower_better"`
	Runs        int       `json:"runs"`
	Builds      int       `json:"builds"`
	LastRun     time.Time `json:"last_run"`
	// Latest is the main KPI's median in the last build that has it, and
	// LatestBuild that build.
	Latest      *float64  `json:"latest"`
	LatestBuild *BuildRef `json:"latest_build"`
	// Sparkline is the main KPI's median in each of the last
	// SparklineBuilds points of the series' history, oldest first: a
	// build at one comparison value, as the series page's line has them
	// (the one grouping of analyze/history).
	Sparkline []*float64 `json:"sparkline"`
	// LatestVerdict is the newest verdict stored for the main KPI; null
	// when the store holds none.
	LatestVerdict *LatestVerdict `json:"latest_verdict"`
}

// LatestVerdict is a series' newest stored verdict, as the landing page
// shows it.
type LatestVerdict struct {
	// Status is the analysis' (regression, improvement, ok,
	// acknowledged...), Failing whether it failed the analysis.
	Status       string    `json:"status"`
	Failing      bool      `json:"failing"`
	DeltaPercent lts.Float `json:"delta_percent"`
	Build        string    `json:"build"`
	Time         time.Time `json:"time"`
	// TriageState is the alert's triage, or "untriaged"; "" for a verdict
	// that is no alert (ok...).
	TriageState string `json:"triage_state,omitempty"`
	// AlertsURL lists the series' alerts.
	AlertsURL string `json:"alerts_url"`
}

// SparklineBuilds is the number of builds a sparkline shows.
const SparklineBuilds = 60

// BuildRef names a build: its id, with its commit, ref and CI run when
// its runs said.
type BuildRef struct {
	ID          string `json:"id"`
	Commit      string `json:"commit,omitempty"`
	ShortCommit string `json:"short_commit,omitempty"`
	Ref         string `json:"ref,omitempty"`
	CIEngine    string `json:"ci_engine,omitempty"`
	CIRunID     string `json:"ci_run_id,omitempty"`
	CIURL       string `json:"ci_url,omitempty"`
	// Time is when the build was made, when it says.
	Time *time.Time `json:"time,omitempty"`
}

// History is /api/history: every KPI of one series by build.
type History struct {
	Series SeriesRef    `json:"series"`
	Builds []BuildPoint `json:"builds"`
	KPIs   []KPIHistory `json:"kpis"`
}

// BuildPoint is a point of a history (history.Points): a build at one
// comparison value, and its runs of the series.
type BuildPoint struct {
	BuildRef
	// Comparison is the runs' comparison value (framework_version...),
	// which tells apart two points of one build; "" when the workload has
	// no comparison keys.
	Comparison string `json:"comparison,omitempty"`
	// FirstRun is the start of its first run of the series: the build's
	// place in time.
	FirstRun time.Time `json:"first_run"`
	Runs     int       `json:"runs"`
}

// KPIHistory is one KPI of a history.
type KPIHistory struct {
	Name        string `json:"name"`
	Unit        string `json:"unit"`
	Help        string `json:"help"`
	LowerBetter bool   `json:"lower_better"`
	// Medians are the median of each build's runs, by build (as Builds).
	Medians []*float64 `json:"medians"`
	// Runs are the runs' values in time order.
	Runs []RunPoint `json:"runs"`
	// Marks are the change points of the medians and the verdicts stored
	// for the series, at their builds.
	Marks []HistoryMark `json:"marks"`
}

// HistoryMark is a change point or a stored verdict at a build of a
// history.
type HistoryMark struct {
	// Build is the index of the build in History.Builds.
	Build int `json:"build"`
	// Kind is change, regression, improvement, suspect or other (an
	// acknowledged finding).
	Kind  string `json:"kind"`
	Label string `json:"label"`
}

// RunPoint is one run's value of a KPI.
type RunPoint struct {
	// Build is the index of the run's build in History.Builds.
	Build    int       `json:"build"`
	TestUUID string    `json:"test_uuid"`
	Time     time.Time `json:"time"`
	Value    float64   `json:"value"`
}

// BuildDetail is /api/builds/{id}: a build and its runs.
type BuildDetail struct {
	Build    BuildRef  `json:"build"`
	FirstRun time.Time `json:"first_run"`
	LastRun  time.Time `json:"last_run"`
	// Series is the series asked (?series=ID), "" for all.
	Series string `json:"series,omitempty"`
	// RunsTotal is the number of runs of the build (in Series when
	// given); Runs the first MaxBuildRuns of them, in time order.
	RunsTotal int         `json:"runs_total"`
	Runs      []RunDetail `json:"runs"`
}

// RunDetail is a run as its payload holds it.
type RunDetail struct {
	TestUUID string            `json:"test_uuid"`
	Series   SeriesRef         `json:"series"`
	Start    time.Time         `json:"start"`
	End      time.Time         `json:"end"`
	ExitCode *int              `json:"exit_code"`
	Labels   map[string]string `json:"labels"`
	Settings map[string]any    `json:"settings"`
	KPIs     map[string]RunKPI `json:"kpis"`
	// Hardware and Usage are the run's hwinfo and usage when its results
	// hold them (pi's do).
	Hardware *models.HWInfo    `json:"hardware,omitempty"`
	Usage    *models.Usage     `json:"usage,omitempty"`
	URLs     map[string]string `json:"urls,omitempty"`
	// RunDir is the path of the run directory's listing on this server,
	// when a --results-dir holds it; Payload the path of its payload.
	RunDir  string `json:"run_dir,omitempty"`
	Payload string `json:"payload"`
}

// RunKPI is a KPI value of a run.
type RunKPI struct {
	Value       float64 `json:"value"`
	Unit        string  `json:"unit"`
	LowerBetter bool    `json:"lower_better"`
}

// shortCommit is a commit as git abbreviates it.
func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// buildRef names a build of the index.
func buildRef(b *build) BuildRef {
	ref := BuildRef{ID: b.ID}
	if m := b.Build; m != nil {
		ref.Commit, ref.ShortCommit, ref.Ref = m.Commit, shortCommit(m.Commit), m.Ref
		if m.CI != nil {
			ref.CIEngine, ref.CIRunID, ref.CIURL = m.CI.Engine, m.CI.RunID, m.CI.URL
		}
		if !m.Time.IsZero() {
			t := m.Time.UTC()
			ref.Time = &t
		}
	}
	return ref
}

func (sr *series) ref() SeriesRef {
	return SeriesRef{ID: sr.ID, Workload: sr.Workload, Labels: sr.Labels, MainKPI: sr.MainKPI}
}

// number is v, or nil (null) for NaN.
func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func (sr *series) summary() SeriesSummary {
	out := SeriesSummary{SeriesRef: sr.ref(), Unit: sr.Unit, LowerBetter: sr.LowerBetter, Runs: sr.Runs,
		Builds: sr.builds, LastRun: sr.Last, Sparkline: []*float64{}}
	for i := len(sr.Builds) - 1; i >= 0; i-- {
		if v := number(sr.Builds[i].median); v != nil {
			ref := buildRef(sr.Builds[i].build)
			out.Latest, out.LatestBuild = v, &ref
			break
		}
	}
	for _, b := range sr.Builds[max(0, len(sr.Builds)-SparklineBuilds):] {
		out.Sparkline = append(out.Sparkline, number(b.median))
	}
	if v := sr.Verdict; v != nil {
		out.LatestVerdict = &LatestVerdict{Status: v.Status, Failing: v.Failing, DeltaPercent: v.DeltaPercent,
			Build: v.Build, Time: v.Time.UTC(), AlertsURL: "/alerts?series=" + url.QueryEscape(sr.ID)}
		if v.IsAlert() {
			out.LatestVerdict.TriageState = Untriaged
			if v.Triage != nil {
				out.LatestVerdict.TriageState = v.Triage.State
			}
		}
	}
	return out
}

// labelFilter reads the label filter of the landing page and /api/series:
// every query parameter is a label, repeated for more values. A name that
// is not a label name, or an empty value, is 400; a label or a value no
// series has is 404 naming it.
func labelFilter(q url.Values, snap *snapshot) (models.Filter, error) {
	f := models.Filter{}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !models.IsSnakeCase(name) {
			return nil, badRequest("query parameter %q: not a label name (snake_case)", name)
		}
		if !slices.Contains(snap.labels, name) {
			return nil, notFound("no series has the label %s (labels: %s)", name, strings.Join(snap.labels, ", "))
		}
		for _, v := range q[name] {
			if v == "" {
				return nil, badRequest("label %s: empty value", name)
			}
			if !slices.ContainsFunc(snap.series, func(sr *series) bool { return sr.Labels[name] == v }) {
				return nil, notFound("no series has %s=%s", name, v)
			}
			if !slices.Contains(f[name], v) {
				f[name] = append(f[name], v)
			}
		}
	}
	return f, nil
}

// seriesList is the series matching f, with the label counts.
func seriesList(snap *snapshot, f models.Filter, store string) *SeriesList {
	out := &SeriesList{Store: store, Filter: f, Labels: []LabelValues{}, Series: []SeriesSummary{}}
	for _, sr := range snap.series {
		if f.Match(sr.Labels) {
			out.Series = append(out.Series, sr.summary())
		}
	}
	for _, name := range snap.labels {
		// A label's counts are over the series the rest of the filter
		// selects: its other values stay in sight, to add them.
		rest := maps.Clone(f)
		delete(rest, name)
		counts := map[string]int{}
		for _, sr := range snap.series {
			if v, ok := sr.Labels[name]; ok && rest.Match(sr.Labels) {
				counts[v]++
			}
		}
		lv := LabelValues{Name: name, Values: []ValueCount{}}
		for _, v := range slices.SortedFunc(maps.Keys(counts), compareValues) {
			lv.Values = append(lv.Values, ValueCount{Value: v, Series: counts[v]})
		}
		out.Labels = append(out.Labels, lv)
	}
	return out
}

// compareValues orders label values as a person reads them: numbers by
// value (64 before 1024), then text.
func compareValues(a, b string) int {
	x, errA := parseNumber(a)
	y, errB := parseNumber(b)
	switch {
	case errA == nil && errB == nil:
		return cmp.Or(cmp.Compare(x, y), strings.Compare(a, b))
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// checkParams refuses query parameters other than allowed (400): a typo
// would otherwise be ignored without a word.
func checkParams(q url.Values, allowed ...string) error {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if len(allowed) == 0 {
			return badRequest("unknown query parameter %q (this URL takes none)", name)
		}
		if !slices.Contains(allowed, name) {
			return badRequest("unknown query parameter %q (want %s)", name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// api adapts an endpoint: its value as JSON (HTML-safe), or its error as
// {"error": "..."} with the error's status.
func (s *Server) api(f func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := f(r)
		code := http.StatusOK
		if err != nil {
			code = status(err)
			s.logError(r, code, err)
			v = map[string]string{"error": err.Error()}
		}
		var body []byte
		if e, ok := v.(interface{ encodedJSON() ([]byte, error) }); ok {
			body, err = e.encodedJSON()
		} else {
			body, err = compactJSON(v)
		}
		if err != nil {
			code = http.StatusInternalServerError
			s.logError(r, code, err)
			body, _ = compactJSON(map[string]string{"error": err.Error()})
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(body) // the client went away: nothing to do
	}
}

// compactJSON is v as json.Encoder writes it: compact, HTML-safe, ending
// in a newline. The API is not indented: indenting a comparison's JSON
// (megabytes) was a fifth of its CPU; `jq .` indents it for people.
func compactJSON(v any) ([]byte, error) {
	flat, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(flat, '\n'), nil
}

func (s *Server) logError(r *http.Request, code int, err error) {
	if code >= 500 {
		s.opts.Log.Error("serve", "method", r.Method, "url", r.URL.String(), "status", code, "err", err)
	}
}

func (s *Server) apiSeries(r *http.Request) (any, error) {
	snap, err := s.index(r.Context())
	if err != nil {
		return nil, err
	}
	f, err := labelFilter(r.URL.Query(), snap)
	if err != nil {
		return nil, err
	}
	list := seriesList(snap, f, s.opts.Store.String())
	list.Stale = s.indexError()
	return list, nil
}

func (s *Server) apiHistory(r *http.Request) (any, error) {
	sr, kpis, err := s.historyParams(r)
	if err != nil {
		return nil, err
	}
	return s.history(r.Context(), sr, kpis)
}

// historyParams reads ?series=ID[&kpi=NAME...].
func (s *Server) historyParams(r *http.Request) (*series, []string, error) {
	q := r.URL.Query()
	if err := checkParams(q, "series", "kpi"); err != nil {
		return nil, nil, err
	}
	if len(q["series"]) != 1 || q.Get("series") == "" {
		return nil, nil, badRequest("query parameter series: give one series id")
	}
	for _, k := range q["kpi"] {
		if !models.IsSnakeCase(k) {
			return nil, nil, badRequest("query parameter kpi %q: not a KPI name (snake_case)", k)
		}
	}
	sr, err := s.findSeries(r, q.Get("series"))
	return sr, q["kpi"], err
}

func (s *Server) findSeries(r *http.Request, id string) (*series, error) {
	snap, err := s.index(r.Context())
	if err != nil {
		return nil, err
	}
	sr, ok := snap.byID[id]
	if !ok {
		return nil, notFound("no series %q in %s", id, s.opts.Store)
	}
	return sr, nil
}

func (s *Server) apiBuild(r *http.Request) (any, error) {
	q := r.URL.Query()
	if err := checkParams(q, "series"); err != nil {
		return nil, err
	}
	if len(q["series"]) > 1 {
		return nil, badRequest("query parameter series: give one series id")
	}
	return s.buildDetail(r.Context(), r.PathValue("id"), q.Get("series"))
}

func (s *Server) apiRun(r *http.Request) (any, error) {
	if err := checkParams(r.URL.Query()); err != nil {
		return nil, err
	}
	return s.payload(r.Context(), r.PathValue("uuid"))
}
