package explorer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/lts"
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

	encoded *encodedOnce // its JSON, made once (a kept comparison's is reused)
}

// encodedOnce is a value's JSON, made at its first use.
type encodedOnce struct {
	once sync.Once
	body []byte
	err  error
}

// encodedJSON is the comparison's JSON as the API writes it
// (compactJSON), made once for a comparison kept for the next requests
// (Server.compares): the JSON of two 5,000-run builds compared is
// megabytes.
func (c *Comparison) encodedJSON() ([]byte, error) {
	if c.encoded == nil {
		return compactJSON(c)
	}
	c.encoded.once.Do(func() { c.encoded.body, c.encoded.err = c.encode() })
	return c.encoded.body, c.encoded.err
}

// seriesHole is where the series go in the JSON of a comparison without
// them: a quote is escaped inside a JSON string, so no value holds it,
// and the fields before the series (the builds, alpha, confidence) hold
// no array.
const seriesHole = `"series":[]`

// encode is compactJSON(c), its series encoded on every core: the JSON
// of two 5,000-run builds compared is megabytes, and encoding it on one
// core was a third of a comparison's time. Each series is encoded alone
// and put where the comparison without its series has "series":[], so
// the bytes are compactJSON's.
func (c *Comparison) encode() ([]byte, error) {
	head := *c
	head.Series, head.encoded = []SeriesComparison{}, nil
	frame, err := compactJSON(&head)
	at := bytes.Index(frame, []byte(seriesHole))
	if err != nil || len(c.Series) == 0 || at < 0 {
		return frame, err
	}
	parts := make([][]byte, len(c.Series))
	errs := make([]error, len(c.Series))
	parallelEach(len(c.Series), func(i int) { parts[i], errs[i] = json.Marshal(&c.Series[i]) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	size := len(frame)
	for _, p := range parts {
		size += len(p) + 1
	}
	out := make([]byte, 0, size+2)
	out = append(out, frame[:at]...)
	out = append(out, `"series":[`...)
	for i, p := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	out = append(out, ']')
	return append(out, frame[at+len(seriesHole):]...), nil
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

	// display formats a value for the page: its KPI table's, less the
	// rows, so that a kept comparison keeps no compare.Table.
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
	if c, ok := s.compares.get(snap, [2]string{aID, bID}); ok {
		return c, nil
	}
	out := &Comparison{A: buildRef(builds[0]), B: buildRef(builds[1]), Series: []SeriesComparison{}, encoded: &encodedOnce{}}
	// Both builds read at once, each in its share of the cores' spans
	// (buildRuns): a store decodes on the cores left.
	var sides [2]buildRunsOf
	var kept [2]bool
	var errs [2]error
	reading := 0
	for i, b := range builds {
		if sides[i], kept[i] = s.builds.get(snap, b.ID); !kept[i] {
			reading++
		}
	}
	spans := max(1, runtime.GOMAXPROCS(0)/max(1, reading))
	parallelEach(2, func(i int) {
		if kept[i] {
			return
		}
		id := builds[i].ID
		if sides[i], errs[i] = s.buildRuns(ctx, snap, id, spans); errs[i] == nil {
			s.builds.put(snap, id, sides[i])
		}
	})
	if err := errors.Join(errs[:]...); err != nil {
		return nil, storeError(s.opts.Store, err)
	}
	bySeries := [2]map[*series][]*models.Payload{sides[0].bySeries, sides[1].bySeries}
	for sr := range bySeries[1] {
		if _, ok := bySeries[0][sr]; !ok {
			out.OnlyB++
		}
	}
	// The series both ran, in the index's order (compareSeries), each
	// compared on its own goroutine's turn: compare.Build is most of a
	// comparison's time, and its bootstrap is seeded from the data, so
	// the order changes nothing.
	var both []*series
	for _, sr := range snap.series {
		if _, ok := bySeries[0][sr]; ok {
			if _, ok := bySeries[1][sr]; ok {
				both = append(both, sr)
				continue
			}
			out.OnlyA++
		}
	}
	// The samples were taken from each run as it was read (buildRuns),
	// or their summaries that the store kept: compare.Build finds them by
	// run.
	samples := func(p *models.Payload, kpi string) []float64 {
		for _, side := range sides {
			if m, ok := side.samples[p]; ok {
				return m[kpi]
			}
		}
		return nil
	}
	// A series' lookup of the kept summaries, for one goroutine:
	// compare.Build asks for a run's KPIs one after the other, so each
	// run's are looked up once, not once a KPI.
	sampleStats := func() func(p *models.Payload, kpi string) (analyze.RunStats, bool) {
		var last *models.Payload
		var stats map[string]analyze.RunStats
		var kept bool
		return func(p *models.Payload, kpi string) (analyze.RunStats, bool) {
			if p != last {
				last, stats, kept = p, nil, false
				for _, side := range sides {
					if stats, kept = side.stats[p]; kept {
						break
					}
				}
			}
			return stats[kpi], kept
		}
	}
	// Each workload described once, not once a series.
	keys, orders, needs := map[string][]string{}, map[string][]string{}, map[string]bool{}
	for _, sr := range both {
		if _, ok := keys[sr.Workload]; !ok {
			keys[sr.Workload], orders[sr.Workload] = s.compareKeys(sr.Workload), s.workload(sr.Workload).KPIs
			needs[sr.Workload] = s.needsResults(sr.Workload)
		}
	}
	// Each series' table made into its rows on the same goroutine: only
	// the rows are kept.
	out.Series = make([]SeriesComparison, len(both))
	var alpha, confidence float64 // the same in every table
	parallelEach(len(both), func(i int) {
		sr := both[i]
		o := s.opts.Compare
		o.Keys = func(workload string) []string { return keys[workload] }
		o.NoRatioInterval = true // a comparison's JSON and page show none
		if o.Samples != nil {
			o.Samples, o.SampleStats = samples, sampleStats()
		}
		if !needs[sr.Workload] {
			o.Samples, o.SampleStats = nil, nil // its runs were read as records: there are none
		}
		t := compare.Build(bySeries[0][sr], bySeries[1][sr], [2]string{aID, bID}, o)
		if i == 0 {
			alpha, confidence = t.Alpha, t.Confidence
		}
		out.Series[i] = seriesComparison(sr, t, orders[sr.Workload])
	})
	out.Alpha, out.Confidence = alpha, confidence
	if len(out.Series) == 0 {
		out.Message = fmt.Sprintf("builds %s and %s have no series in common: %s ran %d series, %s ran %d; compare builds that ran the same workloads and labels",
			aID, bID, aID, len(bySeries[0]), bID, len(bySeries[1]))
	}
	// Stable: the series of a rank stay in the index's order.
	slices.SortStableFunc(out.Series, func(x, y SeriesComparison) int { return cmp.Compare(x.rank(), y.rank()) })
	s.compares.put(snap, [2]string{aID, bID}, out)
	return out, nil
}

// maxCachedComparisons is how many comparisons a server keeps: the last
// ones asked, of the index they were made on.
const maxCachedComparisons = 2

// maxCachedBuilds is how many builds' runs (buildRunsOf) a server keeps,
// of the index they were read on: a person stepping through builds
// compares each with the one before, so each comparison after the first
// reads one build, the other kept from the comparison before.
const maxCachedBuilds = 2

// cacheKey is what a snapshotCache is keyed by: a build id or two
// (the package's comparable func hides the predeclared constraint).
type cacheKey interface{ string | [2]string }

// snapshotCache keeps the last values made on one index, so that a
// comparison asked again (the page and /api/compare, a reload, a script
// polling), or a build compared again with another, is not read and
// computed again. A comparison or a build's runs depend only on the runs
// of the index (buildRuns reads no other, and a stored run does not
// change), so they are kept until the index is read again. The values are
// shared between requests: nothing changes one once made.
type snapshotCache[K cacheKey, V any] struct {
	max    int
	mu     sync.Mutex
	snap   *snapshot
	recent []cached[K, V] // oldest first
}

type cached[K cacheKey, V any] struct {
	key K
	v   V
}

func (c *snapshotCache[K, V]) get(snap *snapshot, key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == snap {
		for _, r := range c.recent {
			if r.key == key {
				return r.v, true
			}
		}
	}
	var zero V
	return zero, false
}

func (c *snapshotCache[K, V]) put(snap *snapshot, key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap {
		c.snap, c.recent = snap, nil
	}
	c.recent = slices.DeleteFunc(c.recent, func(r cached[K, V]) bool { return r.key == key })
	if len(c.recent) == c.max {
		c.recent = slices.Delete(c.recent, 0, 1)
	}
	c.recent = append(c.recent, cached[K, V]{key, v})
}

// buildRunsOf is what buildRuns reads of a build: its runs by series,
// the summaries of the per-iteration samples that the store kept, and
// the samples of the runs whose results were read (stored without
// summaries), by run and KPI.
type buildRunsOf struct {
	bySeries map[*series][]*models.Payload
	stats    map[*models.Payload]map[string]analyze.RunStats
	samples  map[*models.Payload]map[string][]float64
}

func newBuildRunsOf() buildRunsOf {
	return buildRunsOf{bySeries: map[*series][]*models.Payload{}, stats: map[*models.Payload]map[string]analyze.RunStats{},
		samples: map[*models.Payload]map[string][]float64{}}
}

// buildRuns returns the runs of build id by series, as compare.Build
// reads them. A build's runs are read as `seshat compare build:ID` reads
// them (compare.StoreBuild), but only what the comparison uses: the
// records of the build (labels and KPIs: neither settings nor results
// decoded), and the results of the runs of the workloads whose results
// hold per-iteration samples for Options.Compare.Samples (needsResults),
// whose samples are taken as they are read: a build's payloads are never
// all in memory. A run that names no build is read by compare.StoreBuild.
//
// The build is read in spans of its time (as many as there are cores,
// or their share when two builds are read at once: more queries at once
// than cores opened connections that the pool then closed, their page
// caches lost), each as many of its runs, on its own goroutine (a store
// decodes a span on each core), and the spans put back in time order:
// the runs of a series come in the order one query gives them.
func (s *Server) buildRuns(ctx context.Context, snap *snapshot, id string, spans int) (buildRunsOf, error) {
	if strings.HasPrefix(id, "run:") {
		out := newBuildRunsOf()
		ps, err := compare.StoreBuild{Store: s.opts.Store, ID: id}.Payloads(ctx)
		for _, p := range ps {
			s.addSampled(snap, &out, p, p.Results)
		}
		return out, err
	}
	b := snap.builds[id]
	var whole []string // the workloads it ran (the index's) whose results are read
	needs := s.needsResultsOnce()
	for _, sr := range b.Series {
		if needs(sr.Workload) && !slices.Contains(whole, sr.Workload) {
			whole = append(whole, sr.Workload)
		}
	}
	queries := buildSpans(b, spans)
	parts := make([]buildRunsOf, len(queries))
	errs := make([]error, len(queries))
	parallelEach(len(queries), func(i int) { parts[i], errs[i] = s.buildRunsIn(ctx, snap, queries[i], whole) })
	if err := errors.Join(errs...); err != nil {
		return buildRunsOf{}, err
	}
	out := parts[0]
	for _, part := range parts[1:] {
		for sr, ps := range part.bySeries {
			out.bySeries[sr] = append(out.bySeries[sr], ps...)
		}
		maps.Copy(out.samples, part.samples)
		maps.Copy(out.stats, part.stats)
	}
	return out, nil
}

// buildSpans cuts the query of build b's runs into n queries of spans of
// its time, each of as many runs (the index's), fewer when its runs are
// few or start at one time.
func buildSpans(b *build, n int) []lts.Query {
	q := lts.Query{Builds: []string{b.ID}}
	if n < 2 || len(b.times) < 2*n {
		return []lts.Query{q}
	}
	var out []lts.Query
	var since time.Time // the span's start; zero: before the build's first run
	for i := 1; i < n; i++ {
		at := b.times[i*len(b.times)/n]
		if !at.After(b.times[0]) || !at.After(since) {
			continue // an empty span: its runs start at one time
		}
		part := q
		part.Since, part.Until = since, at
		out = append(out, part)
		since = at
	}
	last := q
	last.Since = since
	return append(out, last)
}

// buildRunsIn reads the runs of one query of a build (buildRuns): each
// as its record (labels and KPIs) with the summaries of its samples that
// the store kept (Query.SampleStats: what the comparison needs of them,
// analyze.HierBootstrap.CompareStats), and, for the runs of the
// workloads in whole stored without them, their results (one query a
// workload, Query.ResultsOnly), from which their samples are taken as
// they are read.
func (s *Server) buildRunsIn(ctx context.Context, snap *snapshot, q lts.Query, whole []string) (buildRunsOf, error) {
	out := newBuildRunsOf()
	sampled := map[string]*models.Payload{} // the runs of the workloads in whole without summaries, by test_uuid
	unread := map[string]bool{}             // the workloads of those
	rq := q
	rq.SampleStats = len(whole) > 0
	needs := s.needsResultsOnce()
	for r, err := range s.opts.Store.Records(ctx, rq) {
		if err != nil {
			return out, err
		}
		p := recordPayload(r)
		switch {
		case !needs(r.Workload):
			out.add(snap, p)
		case r.Samples != nil:
			if out.add(snap, p) {
				out.stats[p] = r.Samples
			}
		default:
			sampled[r.TestUUID] = p
			unread[r.Workload] = true
		}
	}
	for _, w := range whole {
		if !unread[w] {
			continue
		}
		q := q
		q.Workload, q.ResultsOnly = w, true
		for res, err := range s.opts.Store.Payloads(ctx, q) {
			if err != nil {
				return out, err
			}
			if p := sampled[res.Metadata.TestUUID]; p != nil {
				s.addSampled(snap, &out, p, res.Results)
			}
		}
	}
	return out, nil
}

// add puts a run of the index in its series, and tells whether it is
// one.
func (b *buildRunsOf) add(snap *snapshot, p *models.Payload) bool {
	ref, ok := snap.runs[p.Metadata.TestUUID]
	if ok {
		b.bySeries[ref.series] = append(b.bySeries[ref.series], p)
	}
	return ok
}

// addSampled puts a run of the index in its series with the samples of
// its KPIs that results hold, its own or read apart from it: the run
// kept for the next comparison (Server.builds) need not hold them.
func (s *Server) addSampled(snap *snapshot, b *buildRunsOf, p *models.Payload, results any) {
	if _, ok := snap.runs[p.Metadata.TestUUID]; !ok {
		return
	}
	if f := s.opts.Compare.Samples; f != nil {
		whole := &models.Payload{Metadata: p.Metadata, KPIs: p.KPIs, Results: results}
		m := map[string][]float64{}
		for name := range p.KPIs {
			if vs := f(whole, name); vs != nil {
				m[name] = vs
			}
		}
		b.samples[p] = m
	}
	b.add(snap, p)
}

// needsResultsOnce is needsResults asked once a workload, for one
// goroutine: describing a workload (Options.Workloads) sorts its KPI
// definitions, and a build's every run asked it.
func (s *Server) needsResultsOnce() func(workload string) bool {
	known := map[string]bool{}
	return func(workload string) bool {
		needs, ok := known[workload]
		if !ok {
			needs = s.needsResults(workload)
			known[workload] = needs
		}
		return needs
	}
}

// needsResults tells whether comparing the runs of a workload needs
// their results: Options.Compare.Samples is set and the workload's
// results may hold per-iteration samples (Workload.Samples; an
// undescribed workload may).
func (s *Server) needsResults(workload string) bool {
	if s.opts.Compare.Samples == nil {
		return false
	}
	if s.opts.Workloads == nil {
		return true
	}
	w, ok := s.opts.Workloads(workload)
	return !ok || w.Samples
}

// recordPayload is a stored run as compare.Build reads it: its metadata
// (workload, labels, build) and KPIs; no settings, no results.
func recordPayload(r lts.Record) *models.Payload {
	p := &models.Payload{
		Metadata: models.Metadata{TestUUID: r.TestUUID, Workload: r.Workload, Start: r.Time, Build: r.Build, Labels: r.Labels, ExitCode: r.ExitCode},
		KPIs:     make(map[string]models.KPIValue, len(r.Values)),
	}
	for name := range r.Values {
		p.KPIs[name], _ = r.KPI(name)
	}
	return p
}

// parallelEach calls f for 0..n-1 on up to GOMAXPROCS goroutines.
func parallelEach(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				f(i)
			}
		})
	}
	wg.Wait()
}

// compareKeys are the labels left out of a compared entry: those that
// are not a series' (comparison, ignored and meta keys), so that the
// runs of a series are one entry.
func (s *Server) compareKeys(workload string) []string {
	k := s.workload(workload).Keys
	return slices.Concat(k.ComparisonKeys, k.IgnoredKeys, regression.MetaKeys)
}

// seriesComparison is the table of one series (one entry), its KPIs in
// the workload's order (order), the main one first, the changed ones
// before the others.
func seriesComparison(sr *series, t *compare.Table, order []string) SeriesComparison {
	out := SeriesComparison{Series: sr.ref()}
	n := 0
	for _, kt := range t.KPIs {
		n += len(kt.Rows)
	}
	out.KPIs = make([]KPIComparison, 0, n)
	// The rows' sides and numbers made in one slice each, not each apart
	// (eight allocations a row, 8,000 rows when two 5,000-run builds are
	// compared): a is made to hold them all.
	a := rowAlloc{sides: make([]CompareSide, 0, 2*n), numbers: make([]float64, 0, 6*n)}
	for _, kt := range t.KPIs {
		format := *kt
		format.Rows, format.Geomean = nil, nil
		display := format.Display
		for _, r := range kt.Rows {
			k := KPIComparison{KPI: kt.KPI, Unit: kt.Unit, LowerBetter: kt.LowerBetter, A: a.side(r.A), B: a.side(r.B),
				Delta: a.number(r.Delta), P: a.number(r.P), Method: r.Method, Verdict: r.Verdict, Warnings: r.Warnings, display: display}
			out.KPIs = append(out.KPIs, k)
		}
	}
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

// rowAlloc makes the sides and numbers of a series' rows in its slices,
// made with the capacity for them all: two sides and six numbers a row.
type rowAlloc struct {
	sides   []CompareSide
	numbers []float64
}

// side is a row's side (nil when the build has none).
func (a *rowAlloc) side(s *compare.Summary) *CompareSide {
	if s == nil {
		return nil
	}
	a.sides = append(a.sides, CompareSide{Center: s.Center, Lo: a.number(s.Lo), Hi: a.number(s.Hi), Runs: s.N})
	return &a.sides[len(a.sides)-1]
}

// number is number(v), made in a.numbers: nil when v is not finite.
func (a *rowAlloc) number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	a.numbers = append(a.numbers, v)
	return &a.numbers[len(a.numbers)-1]
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
