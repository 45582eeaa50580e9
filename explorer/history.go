package explorer

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/history"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

func parseNumber(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// seriesQuery selects the runs of a series' key; runs with more labels
// match it too, and are told apart by their own key.
func seriesQuery(sr *series) lts.Query {
	q := lts.Query{Workload: sr.Workload, Labels: models.Filter{}}
	for name, v := range sr.Labels {
		q.Labels[name] = []string{v}
	}
	return q
}

// history reads the runs of a series from the store and puts them into
// points by the rule every verb uses (history.Points: a build at one
// comparison value, in time order), every KPI (or those of kpis, each of
// which must exist) with the median of each point's runs.
func (s *Server) history(ctx context.Context, sr *series, kpis []string) (*History, error) {
	w := s.workload(sr.Workload)
	rule := w.Keys.Rule()
	h := &History{Series: sr.ref(), Builds: []BuildPoint{}, KPIs: []KPIHistory{}}
	var runs []history.Run
	for r, err := range s.opts.Store.Records(ctx, seriesQuery(sr)) {
		if err != nil {
			return nil, storeError(s.opts.Store, err)
		}
		if _, key := seriesKey(r.Workload, w.Keys, r.Labels); key != sr.key {
			continue
		}
		runs = append(runs, history.RunOf(r, rule))
	}
	points := history.Points(runs, "")
	pointIndex := make(map[string]int, len(points))
	for i := range points {
		p := &points[i]
		pointIndex[p.Runs[0].PointKey()] = i
		h.Builds = append(h.Builds, BuildPoint{BuildRef: buildRef(&build{ID: p.BuildID, Build: p.Build}),
			Comparison: p.ComparisonValue, FirstRun: p.Time, Runs: len(p.Runs)})
	}
	byKPI := map[string]*KPIHistory{}
	for _, r := range runs {
		for name, v := range r.Values {
			k := byKPI[name]
			if k == nil {
				d := r.Defs[name]
				k = &KPIHistory{Name: name, Unit: d.Unit, Help: d.Help, LowerBetter: d.LowerBetter, Runs: []RunPoint{}}
				byKPI[name] = k
			}
			k.Runs = append(k.Runs, RunPoint{Build: pointIndex[r.PointKey()], TestUUID: r.TestUUID, Time: r.Time, Value: v})
		}
	}
	for _, name := range kpis {
		if _, ok := byKPI[name]; !ok {
			return nil, notFound("series %s has no KPI %s (KPIs: %s)", sr.ID, name, strings.Join(slices.Sorted(maps.Keys(byKPI)), ", "))
		}
	}
	names := kpis
	if len(names) == 0 {
		names = slices.SortedFunc(maps.Keys(byKPI), func(a, b string) int {
			ia, ib := slices.Index(w.KPIs, a), slices.Index(w.KPIs, b)
			if ia < 0 {
				ia = len(w.KPIs)
			}
			if ib < 0 {
				ib = len(w.KPIs)
			}
			return cmp.Or(cmp.Compare(ia, ib), strings.Compare(a, b))
		})
	}
	for _, name := range names {
		k := byKPI[name]
		k.Medians = make([]*float64, len(points))
		for i := range points {
			k.Medians[i] = number(points[i].Median(name))
		}
		h.KPIs = append(h.KPIs, *k)
	}
	if err := s.marks(sr, h); err != nil {
		return nil, err
	}
	return h, nil
}

// marks puts on each KPI of h its change points, as the default detector
// finds them in the build medians, and the verdicts `seshat regression
// --store-results` stored for the series (regressions, improvements,
// suspects and acknowledged findings) at their current builds, as the
// series index read them.
func (s *Server) marks(sr *series, h *History) error {
	m, err := analyze.New(analyze.DefaultDetector, analyze.Params{})
	if err != nil {
		return err
	}
	det := m.(analyze.Detector)
	byName := map[string]*KPIHistory{}
	for i := range h.KPIs {
		k := &h.KPIs[i]
		k.Marks = []HistoryMark{}
		byName[k.Name] = k
		var values []float64
		var at []int
		for b, v := range k.Medians {
			if v != nil {
				values, at = append(values, *v), append(at, b)
			}
		}
		cps, _ := det.ChangePoints(values)
		for _, c := range cps {
			k.Marks = append(k.Marks, HistoryMark{Build: at[c.Index], Kind: charts.MarkChange,
				Label: fmt.Sprintf("%+.1f%% (%s)", c.ForwardChangePercent(), analyze.DefaultDetector)})
		}
	}
	builds := map[string]int{}
	for i, b := range h.Builds {
		builds[b.ID] = i
	}
	// The series' verdicts as of the index (Server.latestVerdicts).
	for _, v := range sr.marked {
		kind := charts.VerdictMark(v.Status)
		k, ok := byName[v.KPI]
		b, known := builds[v.Build]
		if !ok || !known {
			continue
		}
		k.Marks = append(k.Marks, HistoryMark{Build: b, Kind: kind, Label: v.Summary()})
	}
	return nil
}

// MaxBuildRuns is the most runs a build's page and /api/builds give; a
// build with more (a CI build running every matrix point) is narrowed to
// one series with ?series=ID.
const MaxBuildRuns = 200

// buildDetail reads the runs of a build from the store, of one series
// when seriesID is not "": for each workload of its series, the runs of
// the build's time span that are the build's, the first MaxBuildRuns.
func (s *Server) buildDetail(ctx context.Context, id, seriesID string) (*BuildDetail, error) {
	snap, err := s.index(ctx)
	if err != nil {
		return nil, err
	}
	b, ok := snap.builds[id]
	if !ok {
		return nil, notFound("no build %q in %s", id, s.opts.Store)
	}
	out := &BuildDetail{Build: buildRef(b), FirstRun: b.First, LastRun: b.Last, RunsTotal: b.Runs, Runs: []RunDetail{}}
	var only *series
	if seriesID != "" {
		if only, ok = snap.byID[seriesID]; !ok {
			return nil, notFound("no series %q in %s", seriesID, s.opts.Store)
		}
		if out.RunsTotal = b.inSeries[only]; out.RunsTotal == 0 {
			return nil, notFound("build %s has no run in series %s", id, seriesID)
		}
		out.Series = seriesID
	}
	var queries []lts.Query
	if only != nil {
		queries = append(queries, seriesQuery(only))
	} else {
		var workloads []string
		for _, sr := range b.Series {
			if !slices.Contains(workloads, sr.Workload) {
				workloads = append(workloads, sr.Workload)
				queries = append(queries, lts.Query{Workload: sr.Workload})
			}
		}
	}
	// The span of the runs shown, not the build's: a build of 5,000 runs
	// was read whole to show its first 200 (329 ms at p95 instead of
	// 200). A build named by its runs is asked by name as well.
	until := b.Last
	if only == nil {
		until = b.times[min(len(b.times), MaxBuildRuns)-1]
	}
	for _, q := range queries {
		q.Since, q.Until = b.First, until.Add(time.Nanosecond)
		if only == nil && !strings.HasPrefix(id, "run:") {
			q.Builds = []string{id}
		}
		// Pages of the runs kept, at most, not of the store's default:
		// the runs of the span are mostly the build's.
		q.PageSize = MaxBuildRuns + 1
		for p, err := range s.opts.Store.Payloads(ctx, q) {
			if err != nil {
				return nil, storeError(s.opts.Store, err)
			}
			ref, ok := snap.runs[p.Metadata.TestUUID]
			if !ok || ref.build != b || (only != nil && ref.series != only) {
				continue
			}
			if len(out.Runs) == MaxBuildRuns {
				break
			}
			out.Runs = append(out.Runs, s.runDetail(p, ref.series))
		}
	}
	slices.SortStableFunc(out.Runs, func(a, b RunDetail) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.TestUUID, b.TestUUID))
	})
	return out, nil
}

// runResults are the parts of a workload's results that a build page
// shows, when the results have them.
type runResults struct {
	HWInfo *models.HWInfo `json:"hwinfo"`
	Usage  *models.Usage  `json:"usage"`
}

func (s *Server) runDetail(p *models.Payload, sr *series) RunDetail {
	m := p.Metadata
	d := RunDetail{TestUUID: m.TestUUID, Series: sr.ref(), Start: m.Start.UTC(), End: m.End.UTC(), ExitCode: m.ExitCode,
		Labels: m.Labels, Settings: m.Settings, KPIs: map[string]RunKPI{}, URLs: m.URLs,
		Payload: "/api/runs/" + m.TestUUID}
	for name, v := range p.KPIs {
		d.KPIs[name] = RunKPI{Value: v.Value, Unit: v.Unit, LowerBetter: v.LowerBetter}
	}
	if raw, ok := p.Results.(*json.RawMessage); ok && raw != nil {
		var res runResults
		if json.Unmarshal(*raw, &res) == nil {
			d.Hardware, d.Usage = res.HWInfo, res.Usage
		}
	}
	if _, ok := s.runDirs[m.TestUUID]; ok {
		d.RunDir = "/runs/" + m.TestUUID + "/"
	}
	return d
}

// payload reads one run's payload from the store.
func (s *Server) payload(ctx context.Context, uuid string) (*models.Payload, error) {
	snap, err := s.index(ctx)
	if err != nil {
		return nil, err
	}
	ref, ok := snap.runs[uuid]
	if !ok {
		return nil, notFound("no run %q in %s", uuid, s.opts.Store)
	}
	q := seriesQuery(ref.series)
	q.Since, q.Until = ref.time, ref.time.Add(time.Nanosecond)
	for p, err := range s.opts.Store.Payloads(ctx, q) {
		if err != nil {
			return nil, storeError(s.opts.Store, err)
		}
		if p.Metadata.TestUUID == uuid {
			return p, nil
		}
	}
	return nil, notFound("no run %q in %s (it was there when the index was read)", uuid, s.opts.Store)
}
