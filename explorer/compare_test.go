package explorer_test

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/internal/golden"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
	"github.com/seshat-bench/seshat/workloads/pi"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// compareFixture: builds base and slow run 3 series 6 times each, slow
// with 20% less rate_gflops; build lonely runs one other series.
func compareFixture() []*models.Payload {
	const series, runs = 3, 6
	ps := pitest.Payloads(series*runs*2, ltstest.Options{Series: series, Samples: 10, Seed: 11})
	for i, p := range ps {
		m := &p.Metadata
		m.Start = ltstest.Start.Add(time.Duration(i) * time.Minute)
		m.End = m.Start.Add(2 * time.Second)
		id, commit := "base", "c0ffee1"
		if i >= series*runs {
			id, commit = "slow", "bad5eed"
			v := p.KPIs["rate_gflops"]
			v.Value *= 0.8
			p.KPIs["rate_gflops"] = v
		}
		m.Build = &models.Build{ID: id, Commit: commit + strings.Repeat("0", 33), Ref: "main"}
	}
	lonely := pitest.Payloads(2, ltstest.Options{Series: 1, Samples: 10, Seed: 12})
	for i, p := range lonely {
		m := &p.Metadata
		m.Start = ltstest.Start.Add(time.Duration(len(ps)+i) * time.Minute)
		m.End = m.Start.Add(2 * time.Second)
		m.Labels["matrix_size"] = "7"
		m.Build = &models.Build{ID: "lonely", Commit: fmt.Sprintf("%040d", 7), Ref: "topic"}
	}
	return append(ps, lonely...)
}

// TestCompareAPI: /api/compare puts two builds side by side per series
// and KPI as `seshat compare` does; the slower build's rate is worse in
// every series (the series with a change first); an unknown build is 404
// naming it, a missing one 400, and builds with no series in common say
// so.
func TestCompareAPI(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, compareFixture()), explorer.Options{})
	code, body := get(t, srv, "/api/compare?a=base&b=slow")
	if code != http.StatusOK {
		t.Fatalf("GET /api/compare?a=base&b=slow: %d %s", code, body)
	}
	golden.Check(t, filepath.Join("testdata", "api", "compare.json"), indented(t, body), *update)
	var c explorer.Comparison
	getJSON(t, srv, "/api/compare?a=base&b=slow", &c)
	if len(c.Series) != 3 {
		t.Fatalf("%d series compared, want 3", len(c.Series))
	}
	for _, sc := range c.Series {
		k := sc.KPIs[0]
		if k.KPI != "rate_gflops" || k.Verdict != "worse" || k.Delta == nil || *k.Delta > -15 || *k.Delta < -25 || k.P == nil || *k.P >= 0.05 {
			t.Errorf("series %v: first KPI %s %s delta %v p %v, want rate_gflops worse by about 20%%", sc.Series.Labels, k.KPI, k.Verdict, k.Delta, k.P)
		}
	}
	getJSON(t, srv, "/api/compare?a=base&b=lonely", &c)
	if len(c.Series) != 0 || !strings.Contains(c.Message, "no series in common") || c.OnlyA != 3 || c.OnlyB != 1 {
		t.Errorf("base vs lonely: %d series, message %q, only %d/%d; want none, said", len(c.Series), c.Message, c.OnlyA, c.OnlyB)
	}
	for _, e := range []struct {
		path string
		code int
		want string
	}{
		{"/api/compare?a=base&b=nope", http.StatusNotFound, `no build \"nope\"`},
		{"/api/compare?a=base", http.StatusBadRequest, "query parameter b"},
		{"/api/compare?a=base&b=slow&c=1", http.StatusBadRequest, "c"},
		{"/builds/nope/compare", http.StatusNotFound, "no build &#34;nope&#34;"},
		{"/builds/slow/compare?with=nope", http.StatusNotFound, "no build &#34;nope&#34;"},
		{"/builds/slow/compare?with=lonely", http.StatusOK, "no series in common"},
		{"/builds/slow/compare", http.StatusOK, "previous build (base)"},
	} {
		if code, body := get(t, srv, e.path); code != e.code || !strings.Contains(body, e.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", e.path, code, e.code, e.want, body)
		}
	}
}

// TestCompareInChromium: on a build's comparison page, picking the other
// build from the list shows the table, series by series, the slower rate
// marked worse, within 1,280 px.
func TestCompareInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, compareFixture()), explorer.Options{})
	ctx, done := browsertest.Tab(t, srv.URL+"/builds/slow")
	defer done()
	// Each step loads a new page: wait for it to be whole before the next
	// step picks a node of it (under load, a node of the page before was
	// picked: "No node with given id found").
	loaded := func(what string) {
		t.Helper()
		value(t, ctx, what+": the page loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	}
	do(t, ctx, "following the compare link",
		chromedp.Click(chromedp.CSS(`a.compare-link`)),
		chromedp.WaitVisible(chromedp.ID("with")))
	loaded("following the compare link")
	do(t, ctx, "picking lonely",
		chromedp.SetValue(chromedp.ID("with"), "lonely"),
		chromedp.Click(chromedp.ID("compare-go")),
		chromedp.WaitVisible(chromedp.ID("no-common")))
	loaded("picking lonely")
	do(t, ctx, "picking base",
		chromedp.SetValue(chromedp.ID("with"), "base"),
		chromedp.Click(chromedp.ID("compare-go")),
		chromedp.WaitVisible(chromedp.ID("comparison")))
	loc := value(t, ctx, "the URL", chromedp.Location())
	groups := value(t, ctx, "the series", chromedp.Evaluate[int](`document.querySelectorAll("#comparison tbody.series-group").length`))
	worse := value(t, ctx, "the worse rows", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#comparison tr.verdict-worse td:first-child"), e => e.textContent)`))
	if !strings.HasSuffix(loc, "/builds/slow/compare?with=base") || groups != 3 || len(worse) != 3 || worse[0] != "rate_gflops" {
		t.Errorf("compared with base at %s: %d series, worse rows %q; want 3 series, rate_gflops worse in each", loc, groups, worse)
	}
	if w := value(t, ctx, "the page's width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 1280 {
		t.Errorf("the comparison is %d px wide, more than the window's 1,280", w)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "compare"))
}

// TestCompareSamples: with per-iteration samples (what `seshat serve`
// passes: pi's samples_ms, kept in the stored results), a series is
// compared on every sample (the hierarchical bootstrap), each KPI's
// figures those of compare.Build over the builds' whole payloads, as
// `seshat compare build:base build:slow` computes them. The same whether
// the store kept the summaries of the runs' samples (then no result is
// read), kept none (runs stored before stores did: their results are
// read), or kept those of some runs.
func TestCompareSamples(t *testing.T) {
	t.Parallel()
	samples := func(p *models.Payload, kpi string) []float64 { return pi.Workload{}.KPISamples(p, kpi) }
	ps := compareFixture()
	for _, tc := range []struct {
		name    string
		kept    []*models.Payload // stored with the summaries of their samples
		without []*models.Payload // stored without
		reads   bool              // whether results are read
	}{
		{"summaries kept", ps, nil, false},
		{"no summary kept", nil, ps, true},
		{"some kept", ps[:len(ps)/2], ps[len(ps)/2:], true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := "sqlite:" + filepath.Join(t.TempDir(), "lts.db")
			for _, put := range []struct {
				ps   []*models.Payload
				opts lts.StoreOptions
			}{{tc.without, lts.StoreOptions{}}, {tc.kept, lts.StoreOptions{Samples: samples}}} {
				if _, err := ltstest.Open(t, path, put.opts).Put(context.Background(), put.ps); err != nil {
					t.Fatal(err)
				}
			}
			store := &countingStore{Store: ltstest.Open(t, path, lts.StoreOptions{})}
			srv := serve(t, store, explorer.Options{Compare: compare.Options{Samples: samples}})
			compareSamplesCheck(t, srv, store.Store, samples)
			if n := store.payloads.Load(); (n > 0) != tc.reads {
				t.Errorf("%d Payloads queries, want results read: %v", n, tc.reads)
			}
		})
	}
}

// TestCompareAfterBackfill: a store whose runs were stored without the
// summaries of their samples, once backfilled (what seshat serve does on
// a writable store), compares its builds without reading a result, and
// to the same figures, byte for byte.
func TestCompareAfterBackfill(t *testing.T) {
	t.Parallel()
	samples := func(p *models.Payload, kpi string) []float64 { return pi.Workload{}.KPISamples(p, kpi) }
	path := "sqlite:" + filepath.Join(t.TempDir(), "lts.db")
	if _, err := ltstest.Open(t, path, lts.StoreOptions{}).Put(context.Background(), compareFixture()); err != nil {
		t.Fatal(err)
	}
	compareOnce := func() (string, int32) {
		store := &countingStore{Store: ltstest.Open(t, path, lts.StoreOptions{})}
		srv := serve(t, store, explorer.Options{Compare: compare.Options{Samples: samples}})
		code, body := get(t, srv, "/api/compare?a=base&b=slow")
		if code != http.StatusOK {
			t.Fatalf("GET /api/compare?a=base&b=slow: %d %s", code, body)
		}
		return body, store.payloads.Load()
	}
	before, reads := compareOnce()
	if reads == 0 {
		t.Fatal("no result read before the backfill: the store kept summaries")
	}
	b, ok := ltstest.Open(t, path, lts.StoreOptions{Samples: samples}).(lts.SampleStatsBackfiller)
	if !ok {
		t.Fatal("the SQLite store is no lts.SampleStatsBackfiller")
	}
	if n, err := b.BackfillSampleStats(context.Background(), 0); err != nil || n != len(compareFixture()) {
		t.Fatalf("backfill: %d runs (%v), want %d", n, err, len(compareFixture()))
	}
	after, reads := compareOnce()
	if reads != 0 {
		t.Errorf("%d Payloads queries after the backfill, want none", reads)
	}
	if after != before {
		t.Errorf("after the backfill:\n%s\nbefore:\n%s", after, before)
	}
}

// countingStore counts the Payloads queries of a store.
type countingStore struct {
	lts.Store
	payloads atomic.Int32
}

func (s *countingStore) Payloads(ctx context.Context, q lts.Query) iter.Seq2[*models.Payload, error] {
	s.payloads.Add(1)
	return s.Store.Payloads(ctx, q)
}

// compareSamplesCheck checks srv's comparison of base and slow against
// compare.Build's over the builds' whole payloads in store.
func compareSamplesCheck(t *testing.T, srv *httptest.Server, store lts.Store, samples func(*models.Payload, string) []float64) {
	t.Helper()
	var c explorer.Comparison
	getJSON(t, srv, "/api/compare?a=base&b=slow", &c)
	var sides [2][]*models.Payload
	for i, id := range []string{"base", "slow"} {
		ps, err := compare.StoreBuild{Store: store, ID: id}.Payloads(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sides[i] = ps
	}
	keys := func(w string) []string {
		k, _ := explorer.Registered(workloads.Builtin())(w)
		return slices.Concat(k.Keys.ComparisonKeys, k.Keys.IgnoredKeys, regression.MetaKeys)
	}
	hierarchical := 0
	for _, sc := range c.Series {
		var in [2][]*models.Payload
		for i, ps := range sides {
			for _, p := range ps {
				if maps.Equal(sc.Series.Labels, keysLess(p.Metadata.Labels, keys(p.Metadata.Workload))) {
					in[i] = append(in[i], p)
				}
			}
		}
		want := compare.Build(in[0], in[1], [2]string{"base", "slow"}, compare.Options{Keys: keys, Samples: samples})
		rows := map[string]*compare.Row{}
		for _, kt := range want.KPIs {
			if len(kt.Rows) != 1 {
				t.Fatalf("series %v: %d rows of %s, want 1", sc.Series.Labels, len(kt.Rows), kt.KPI)
			}
			rows[kt.KPI] = kt.Rows[0]
		}
		if len(sc.KPIs) != len(rows) {
			t.Errorf("series %v: %d KPIs compared, want %d", sc.Series.Labels, len(sc.KPIs), len(rows))
		}
		for _, k := range sc.KPIs {
			r := rows[k.KPI]
			if r == nil || k.Method != r.Method || k.Verdict != r.Verdict || k.P == nil || *k.P != r.P || k.Delta == nil || *k.Delta != r.Delta {
				t.Errorf("series %v, %s: %s %s p %v delta %v; want compare.Build's %+v", sc.Series.Labels, k.KPI, k.Method, k.Verdict, k.P, k.Delta, r)
			}
			if k.Method == compare.MethodHierarchical {
				hierarchical++
			}
		}
	}
	if len(c.Series) != 3 || hierarchical < 3 {
		t.Errorf("%d series, %d KPIs compared on their samples; want 3 series, rate_gflops and elapsed_ms on samples", len(c.Series), hierarchical)
	}
}

// keysLess is labels without keys.
func keysLess(labels map[string]string, keys []string) map[string]string {
	out := maps.Clone(labels)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// TestCompareAfterIndexRead: a comparison asked again is the same,
// byte for byte, and runs stored since count once the index is read
// again: neither a kept comparison nor a build's runs kept for the next
// comparison (the pair the other way round) outlive their index.
func TestCompareAfterIndexRead(t *testing.T) {
	t.Parallel()
	ps := compareFixture()
	s := sqliteStore(t, ps)
	h, err := explorer.New(explorer.Options{Store: s, Workloads: explorer.Registered(workloads.Builtin()), MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	const path = "/api/compare?a=base&b=slow"
	runsOfB := func() int {
		var c explorer.Comparison
		getJSON(t, srv, path, &c)
		return c.Series[0].KPIs[0].B.Runs
	}
	runsOfBReversed := func() int {
		var c explorer.Comparison
		getJSON(t, srv, "/api/compare?a=slow&b=base", &c)
		return c.Series[0].KPIs[0].A.Runs
	}
	_, first := get(t, srv, path)
	if _, again := get(t, srv, path); again != first {
		t.Errorf("the comparison asked again differs:\n%s\nfirst:\n%s", again, first)
	}
	if n := runsOfB(); n != 6 {
		t.Fatalf("build slow: %d runs a series, want 6", n)
	}
	// Two more runs of build slow in every series.
	more := pitest.Payloads(6, ltstest.Options{Series: 3, Samples: 10, Seed: 13})
	for i, p := range more {
		m := &p.Metadata
		m.Start = ltstest.Start.Add(time.Duration(100+i) * time.Minute)
		m.End = m.Start.Add(2 * time.Second)
		m.Build = ps[len(ps)-3].Metadata.Build
	}
	if _, err := s.Put(context.Background(), more); err != nil {
		t.Fatal(err)
	}
	if n, m := runsOfB(), runsOfBReversed(); n != 6 || m != 6 {
		t.Errorf("before the index is read again: %d and %d (compared the other way round) runs a series of build slow, want the index's 6", n, m)
	}
	if err := h.Preload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, m := runsOfBReversed(), runsOfB(); n != 8 || m != 8 {
		t.Errorf("after the index is read again: %d and %d (compared the other way round) runs a series of build slow, want 8", n, m)
	}
}
