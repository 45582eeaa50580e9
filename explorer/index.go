package explorer

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// loadTimeout bounds one read of the whole store for the index. The read
// goes on when the request that started it is gone: the next request
// uses it.
const loadTimeout = 5 * time.Minute

// snapshot is the series index: every stored run, cut into series and
// builds, as of one read of the store.
type snapshot struct {
	at     time.Time
	series []*series // by workload, then key
	byID   map[string]*series
	builds map[string]*build
	runs   map[string]runRef // by test_uuid
	labels []string          // every label name of a series key, sorted
}

// series is one history: a workload's runs sharing their series key.
type series struct {
	ID       string
	Workload string
	// Labels are the series key: the runs' labels minus the comparison,
	// ignored and meta keys.
	Labels map[string]string
	key    string
	// MainKPI is the workload's first KPI the series has (else the first
	// by name); Unit and LowerBetter are its definition.
	MainKPI     string
	Unit        string
	LowerBetter bool
	Runs        int
	// Builds are the series' builds in the order of their first run, each
	// with the median of its runs' main KPI.
	Builds []seriesBuild
	Last   time.Time
}

type seriesBuild struct {
	build  *build
	median float64 // NaN: no run of the build has the main KPI
}

// build is what the runs of one build id share.
type build struct {
	ID string
	// Build is the first run's metadata.build; nil for a run that names
	// none (ID is then "run:" and its test_uuid).
	Build       *models.Build
	First, Last time.Time
	Runs        int
	// Series are the series it has runs in, in the order of their first
	// run, each with its number of runs.
	Series   []*series
	inSeries map[*series]int
}

// runRef locates a stored run: a query for its series at its time finds
// it.
type runRef struct {
	series *series
	build  *build
	time   time.Time
}

// index returns the series index, reading the store when the one kept is
// older than MaxAge. One read runs at a time; requests that need the index
// meanwhile wait for it. A read that fails is returned (503) and tried
// again by the next request.
func (s *Server) index(ctx context.Context) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil && time.Since(s.snap.at) < s.opts.MaxAge {
		return s.snap, nil
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
	defer cancel()
	snap, err := s.load(lctx)
	if err != nil {
		return nil, storeError(s.opts.Store, err)
	}
	s.snap = snap
	return snap, nil
}

// workload describes a workload; an unknown one has no keys and no KPI
// order.
func (s *Server) workload(name string) Workload {
	if s.opts.Workloads != nil {
		if w, ok := s.opts.Workloads(name); ok {
			return w
		}
	}
	return Workload{}
}

// seriesKey is the series key of a run's labels: its labels minus the keys
// that are not the series', with their canonical text (workload first).
func seriesKey(workload string, keys regression.Keys, labels map[string]string) (map[string]string, string) {
	out := make(map[string]string, len(labels))
	for name, v := range labels {
		if !slices.Contains(keys.ComparisonKeys, name) && !slices.Contains(keys.IgnoredKeys, name) && !slices.Contains(regression.MetaKeys, name) {
			out[name] = v
		}
	}
	var b strings.Builder
	b.WriteString(workload)
	for _, name := range slices.Sorted(maps.Keys(out)) {
		b.WriteByte(0)
		b.WriteString(name)
		b.WriteByte(0)
		b.WriteString(out[name])
	}
	return out, b.String()
}

// seriesID names a series in URLs: a hash of its key, stable as long as
// its labels are.
func seriesID(key string) string { return strconv.FormatUint(xxhash.Sum64String(key), 16) }

// load reads every stored run into a new index.
func (s *Server) load(ctx context.Context) (*snapshot, error) {
	snap := &snapshot{at: time.Now(), byID: map[string]*series{}, builds: map[string]*build{}, runs: map[string]runRef{}}
	type point struct {
		b      *build
		values map[string]float64
		defs   map[string]lts.KPIDef
	}
	points := map[*series][]point{}
	byKey := map[string]*series{}
	workloads := map[string]Workload{}
	labelNames := map[string]bool{}
	for r, err := range s.opts.Store.Records(ctx, lts.Query{}) {
		if err != nil {
			return nil, err
		}
		w, ok := workloads[r.Workload]
		if !ok {
			w = s.workload(r.Workload)
			workloads[r.Workload] = w
		}
		labels, key := seriesKey(r.Workload, w.Keys, r.Labels)
		sr := byKey[key]
		if sr == nil {
			sr = &series{ID: seriesID(key), Workload: r.Workload, Labels: labels, key: key}
			byKey[key] = sr
			snap.byID[sr.ID] = sr
			snap.series = append(snap.series, sr)
			for name := range labels {
				labelNames[name] = true
			}
		}
		id := r.BuildID()
		b := snap.builds[id]
		if b == nil {
			b = &build{ID: id, Build: r.Build, First: r.Time, inSeries: map[*series]int{}}
			snap.builds[id] = b
		}
		b.Runs++
		b.Last = r.Time
		if b.inSeries[sr] == 0 {
			b.Series = append(b.Series, sr)
		}
		b.inSeries[sr]++
		sr.Runs++
		sr.Last = r.Time
		points[sr] = append(points[sr], point{b: b, values: r.Values, defs: r.Defs})
		snap.runs[r.TestUUID] = runRef{series: sr, build: b, time: r.Time}
	}
	for _, sr := range snap.series {
		ps := points[sr]
		has := map[string]lts.KPIDef{}
		for _, p := range ps {
			for name := range p.values {
				if _, ok := has[name]; !ok {
					has[name] = p.defs[name]
				}
			}
		}
		sr.MainKPI = mainKPI(workloads[sr.Workload].KPIs, slices.Collect(maps.Keys(has)))
		if d, ok := has[sr.MainKPI]; ok {
			sr.Unit, sr.LowerBetter = d.Unit, d.LowerBetter
		}
		var order []*build
		values := map[*build][]float64{}
		for _, p := range ps {
			if _, seen := values[p.b]; !seen {
				order = append(order, p.b)
				values[p.b] = nil
			}
			if v, ok := p.values[sr.MainKPI]; ok {
				values[p.b] = append(values[p.b], v)
			}
		}
		sr.Builds = make([]seriesBuild, len(order))
		for i, b := range order {
			sr.Builds[i] = seriesBuild{build: b, median: analyze.Median(values[b])}
		}
	}
	slices.SortFunc(snap.series, compareSeries)
	snap.labels = slices.Sorted(maps.Keys(labelNames))
	return snap, nil
}

// compareSeries orders series by workload, then by their labels in name
// order, values as a person reads them (matrix_size 64 before 1024).
func compareSeries(a, b *series) int {
	if c := strings.Compare(a.Workload, b.Workload); c != 0 {
		return c
	}
	names := slices.Sorted(maps.Keys(a.Labels))
	for _, n := range slices.Sorted(maps.Keys(b.Labels)) {
		if _, ok := a.Labels[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		va, okA := a.Labels[n]
		vb, okB := b.Labels[n]
		switch {
		case okA != okB && !okA:
			return -1
		case okA != okB:
			return 1
		}
		if c := compareValues(va, vb); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.key, b.key)
}

// mainKPI is the first of order that the series has, else the first of
// its KPIs by name; "" when it has none.
func mainKPI(order, has []string) string {
	for _, name := range order {
		if slices.Contains(has, name) {
			return name
		}
	}
	if len(has) == 0 {
		return ""
	}
	return slices.Min(has)
}

// latest is the median of the main KPI of the series' last build that
// has one; false when none has.
func (sr *series) latest() (float64, bool) {
	for i := len(sr.Builds) - 1; i >= 0; i-- {
		if v := sr.Builds[i].median; !math.IsNaN(v) {
			return v, true
		}
	}
	return 0, false
}
