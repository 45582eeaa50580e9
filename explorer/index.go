package explorer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/seshat-bench/seshat/analyze/history"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/charts"
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
	// Builds are the series' points by the one grouping of history
	// (history.Points: a build at one comparison value, in time order),
	// as its history page has them, each with the median of its runs'
	// main KPI; builds counts the distinct builds.
	Builds []seriesBuild
	builds int
	Last   time.Time
	// Verdict is the newest verdict stored for its main KPI (`seshat
	// regression --store-results`), nil when none is; marked are its
	// verdicts that its history marks, newest first.
	Verdict *lts.Verdict
	marked  []*lts.Verdict
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
	// times are its runs' starts, in time order: the first MaxBuildRuns
	// of them bound the query of its page.
	times []time.Time
}

// runRef locates a stored run: a query for its series at its time finds
// it.
type runRef struct {
	series *series
	build  *build
	time   time.Time
}

// index returns the series index. The first request waits for the first
// read of the store (unless Preload did it); afterwards the index kept is
// returned at once, and one older than MaxAge is read again in the
// background (Watch reads it on a timer instead), the requests meanwhile
// served the previous one. A read that fails keeps the previous index
// (indexError says why, the pages show it); it is a 503 only while no
// index was ever read. MaxAge 0 reads the store for every request that
// needs the index, and waits for it.
func (s *Server) index(ctx context.Context) (*snapshot, error) {
	s.mu.Lock()
	snap := s.snap
	if snap != nil && s.opts.MaxAge > 0 {
		if time.Since(snap.at) >= s.opts.MaxAge && !s.watching {
			s.startLoad()
		}
		s.mu.Unlock()
		return snap, nil
	}
	done := s.startLoad()
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil || (s.opts.MaxAge == 0 && s.loadErr != nil) {
		return nil, storeError(s.opts.Store, s.loadErr)
	}
	return s.snap, nil
}

// startLoad starts a read of the store into the index unless one is under
// way, and returns the channel closed when that read ends. s.mu is held.
func (s *Server) startLoad() <-chan struct{} {
	if s.loading != nil {
		return s.loading
	}
	done := make(chan struct{})
	s.loading = done
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
		defer cancel()
		snap, err := s.load(ctx)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.loading = nil
		if err != nil {
			s.loadErr, s.loadErrAt = err, time.Now()
			s.opts.Log.Error("reading the series index", "store", s.opts.Store.String(), "error", err)
			return
		}
		s.snap, s.loadErr = snap, nil
	}()
	return done
}

// Preload reads the series index now, so that the first request finds it:
// `seshat serve` calls it before it listens. A store that fails is
// returned (the server can serve anyway: the next request tries again).
func (s *Server) Preload(ctx context.Context) error {
	s.mu.Lock()
	done := s.startLoad()
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadErr != nil {
		return storeError(s.opts.Store, s.loadErr)
	}
	return nil
}

// Watch reads the series index again every MaxAge until ctx is done, so
// that no request finds it stale; requests no longer start reads. It
// returns at once when MaxAge is 0.
func (s *Server) Watch(ctx context.Context) {
	if s.opts.MaxAge <= 0 {
		return
	}
	s.mu.Lock()
	s.watching = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watching = false
		s.mu.Unlock()
	}()
	t := time.NewTicker(s.opts.MaxAge)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// A failure is kept for the pages (indexError) and logged.
			_ = s.Preload(ctx)
		}
	}
}

// indexError says why the index shown is not fresh: the error of the last
// read of the store, when it failed after an index was read; "" when the
// last read succeeded.
func (s *Server) indexError() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadErr == nil || s.snap == nil {
		return ""
	}
	return fmt.Sprintf("the store failed at %s: %v; showing the series as read at %s",
		s.loadErrAt.UTC().Format(time.RFC3339), storeError(s.opts.Store, s.loadErr), s.snap.at.UTC().Format(time.RFC3339))
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
// that are not the series' (regression's rule), with their canonical text
// (workload first).
func seriesKey(workload string, keys regression.Keys, labels map[string]string) (map[string]string, string) {
	out := keys.SeriesLabels(labels)
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

// keyMemo remembers the series key of each label set of one read of the
// store. A store shares one map among the records of a label set (SQLite
// decodes each once), and making the key (sorting and joining the labels)
// was a third of the read: 2.6 s of the 7.4 s of five reads of 100,000
// runs. A map is found by its address: the memo holds the map, so no
// other can take its address while it is there. It is emptied when it
// grows past maxKeyMemo, so that a store sharing nothing does not keep
// every map alive.
type keyMemo map[keyMemoID]memoKey

type keyMemoID struct {
	workload string
	labels   unsafe.Pointer
}

type memoKey struct {
	orig, labels map[string]string // orig: held so that its address stays its
	key          string
	// cmpKey and cmpValue are the comparison of the labels
	// (history.RunOf's).
	cmpKey, cmpValue string
}

const maxKeyMemo = 1 << 14

func (m keyMemo) of(workload string, keys regression.Keys, labels map[string]string) memoKey {
	id := keyMemoID{workload, reflect.ValueOf(labels).UnsafePointer()}
	if k, ok := m[id]; ok {
		return k
	}
	out, key := seriesKey(workload, keys, labels)
	cmp, value := keys.Rule().ComparisonOf(labels)
	if len(m) >= maxKeyMemo {
		clear(m)
	}
	k := memoKey{orig: labels, labels: out, key: key, cmpKey: history.Canonical(cmp), cmpValue: value}
	m[id] = k
	return k
}

// seriesID names a series in URLs: a hash of its key, stable as long as
// its labels are.
func seriesID(key string) string { return strconv.FormatUint(xxhash.Sum64String(key), 16) }

// load reads every stored run into a new index.
func (s *Server) load(ctx context.Context) (*snapshot, error) {
	snap := &snapshot{at: time.Now(), byID: map[string]*series{}, builds: map[string]*build{}, runs: map[string]runRef{}}
	runs := map[*series][]history.Run{}
	byKey := map[string]*series{}
	workloads := map[string]Workload{}
	labelNames := map[string]bool{}
	keys := keyMemo{}
	for r, err := range s.opts.Store.Records(ctx, lts.Query{}) {
		if err != nil {
			return nil, err
		}
		w, ok := workloads[r.Workload]
		if !ok {
			w = s.workload(r.Workload)
			workloads[r.Workload] = w
		}
		memo := keys.of(r.Workload, w.Keys, r.Labels)
		labels, key := memo.labels, memo.key
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
		b.times = append(b.times, r.Time)
		if b.inSeries[sr] == 0 {
			b.Series = append(b.Series, sr)
		}
		b.inSeries[sr]++
		sr.Runs++
		sr.Last = r.Time
		// history.RunOf(r, w.Keys.Rule()), its comparison made once per
		// label set.
		runs[sr] = append(runs[sr], history.Run{Record: r, ComparisonKey: memo.cmpKey, ComparisonValue: memo.cmpValue})
		snap.runs[r.TestUUID] = runRef{series: sr, build: b, time: r.Time}
	}
	for _, sr := range snap.series {
		rs := runs[sr]
		has := map[string]lts.KPIDef{}
		for _, r := range rs {
			for name := range r.Values {
				if _, ok := has[name]; !ok {
					has[name] = r.Defs[name]
				}
			}
		}
		sr.MainKPI = mainKPI(workloads[sr.Workload].KPIs, slices.Collect(maps.Keys(has)))
		if d, ok := has[sr.MainKPI]; ok {
			sr.Unit, sr.LowerBetter = d.Unit, d.LowerBetter
		}
		// The points of the series page (Server.history), by the same
		// rule: the sparkline is its main KPI's line.
		points := history.Points(rs, "")
		sr.Builds = make([]seriesBuild, len(points))
		seen := map[*build]bool{}
		for i := range points {
			b := snap.builds[points[i].BuildID]
			sr.Builds[i] = seriesBuild{build: b, median: points[i].Median(sr.MainKPI)}
			seen[b] = true
		}
		sr.builds = len(seen)
	}
	slices.SortFunc(snap.series, compareSeries)
	snap.labels = slices.Sorted(maps.Keys(labelNames))
	if err := s.latestVerdicts(ctx, byKey, workloads); err != nil {
		return nil, err
	}
	return snap, nil
}

// latestVerdicts gives each series the verdicts stored for it, when the
// store keeps verdicts: the newest of its main KPI, and those its history
// marks (regressions, improvements, suspects, acknowledged). One query per
// workload, with the index, not per request: a workload's verdicts are
// every analysis × series × KPI (24,000 in BenchmarkExplorer), and reading
// them for each series page took 400 ms.
func (s *Server) latestVerdicts(ctx context.Context, byKey map[string]*series, workloads map[string]Workload) error {
	vs, ok := s.verdictStore()
	if !ok {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(workloads)) {
		verdicts, err := vs.Verdicts(ctx, lts.VerdictQuery{Workload: name})
		if err != nil {
			return fmt.Errorf("reading the verdicts of %s: %w", name, err)
		}
		keys := workloads[name].Keys
		for i := range verdicts { // newest first
			v := &verdicts[i]
			_, key := seriesKey(v.Workload, keys, v.Labels)
			sr := byKey[key]
			if sr == nil {
				continue
			}
			latest := sr.Verdict == nil && sr.MainKPI == v.KPI
			mark := charts.VerdictMark(v.Status) != ""
			if !latest && !mark {
				continue
			}
			// A copy: a pointer into verdicts would keep every verdict
			// read (all of them are, most are "ok") as long as the index
			// (29 MB of BenchmarkExplorer's 49 MB index).
			kept := new(*v)
			if latest {
				sr.Verdict = kept
			}
			if mark {
				sr.marked = append(sr.marked, kept)
			}
		}
	}
	return nil
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
