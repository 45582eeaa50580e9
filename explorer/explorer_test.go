package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/golden"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/workloads"
)

// TestAPIGolden: the JSON a script reads from each endpoint.
func TestAPIGolden(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	ids := seriesIDs(t, srv)
	for _, c := range []struct{ name, path string }{
		{"series", "/api/series"},
		{"series-filtered", "/api/series?matrix_size=64&matrix_size=128"},
		{"history", "/api/history?series=" + ids["64"]},
		{"history-kpi", "/api/history?series=" + ids["128"] + "&kpi=rate_gflops"},
		{"build", "/api/builds/nightly-03"},
		{"build-series", "/api/builds/nightly-03?series=" + ids["256"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := get(t, srv, c.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", c.path, code, body)
			}
			// The store's path is a temporary directory.
			body = string(indented(t, strings.ReplaceAll(body, srv.URL, "SERVER")))
			body = storePath.ReplaceAllString(body, `"store": "sqlite:STORE"`)
			golden.Check(t, filepath.Join("testdata", "api", c.name+".json"), []byte(body), *update)
		})
	}
}

// TestHistoryByBuild: a series' history has one point per build, the
// median of its runs, builds in the order of their first run, and the run
// without a build as its own build; the slower build shows.
func TestHistoryByBuild(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	var h explorer.History
	getJSON(t, srv, "/api/history?series="+seriesIDs(t, srv)["64"], &h)
	var names []string
	for _, b := range h.Builds {
		names = append(names, b.ID)
		if b.ID != h.Builds[len(h.Builds)-1].ID && (b.Runs != 2 || b.ShortCommit == "" || b.CIURL == "") {
			t.Errorf("build %+v: want 2 runs, a short commit and a CI link", b)
		}
	}
	if got := strings.Join(names[:4], " "); got != "nightly-01 nightly-02 nightly-03 nightly-04" || len(names) != 5 || !strings.HasPrefix(names[4], "run:") {
		t.Fatalf("builds %v", names)
	}
	if h.KPIs[0].Name != "rate_gflops" {
		t.Errorf("first KPI %s, want pi's main KPI rate_gflops", h.KPIs[0].Name)
	}
	rate := h.KPIs[0]
	if len(rate.Runs) != 9 || len(rate.Medians) != 5 {
		t.Fatalf("rate_gflops: %d runs, %d medians; want 9 and 5", len(rate.Runs), len(rate.Medians))
	}
	if drop := *rate.Medians[2] / *rate.Medians[1]; drop < 0.75 || drop > 0.85 {
		t.Errorf("nightly-03 / nightly-02 = %.2f, want the planted 0.8", drop)
	}
}

// TestLandingPage: every series, grouped by workload, with only the labels
// that tell them apart, a sparkline and the latest build by id and short
// commit; the label filter narrows the list and shows the counts.
func TestLandingPage(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	code, body := get(t, srv, "/")
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	for _, want := range []string{`Series <span class="muted">3 of 3</span>`, `<h2>pi</h2>`, `matrix_size=64`, `<path class="line" d="M`,
		`href="/builds/run:`, `data-label="matrix_size"`, `<span class="v">128</span> <span class="count">1</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the landing page lacks %s", want)
		}
	}
	if strings.Contains(body, `<span class="label">cpu_model=`) && !strings.Contains(body, `All: `) {
		t.Error("labels shared by every series are repeated on each row")
	}
	_, body = get(t, srv, "/?matrix_size=64")
	if !strings.Contains(body, `1 of 3`) || !strings.Contains(body, `class="chip" href="/"`) {
		t.Errorf("filtered by matrix_size=64: want 1 of 3 series and a chip removing the filter:\n%s", body)
	}
}

// TestBadInput: unknown things are 404 naming them, malformed parameters
// 400, for pages and API alike.
func TestBadInput(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	id := seriesIDs(t, srv)["64"]
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/?no_such_label=1", 404, "no series has the label no_such_label"},
		{"/?matrix_size=63", 404, "no series has matrix_size=63"},
		{"/?Bad-Name=1", 400, `query parameter &#34;Bad-Name&#34;: not a label name`},
		{"/?matrix_size=", 400, "label matrix_size: empty value"},
		{"/api/series?no_such_label=1", 404, "no series has the label no_such_label"},
		{"/series/0123456789abcdef", 404, `no series &#34;0123456789abcdef&#34;`},
		{"/series/" + id + "?zoom=2", 400, `unknown query parameter &#34;zoom&#34;`},
		{"/series/" + id + "?axis=date", 400, "query parameter axis: want one of build, time"},
		{"/series/" + id + "?axis=time&axis=build", 400, "query parameter axis: want one of build, time"},
		{"/series/" + id + "?overlay=0123456789abcdef", 404, `overlay: no series &#34;0123456789abcdef&#34;`},
		{"/series/" + id + "?overlay=" + id, 400, "is the page&#39;s own series"},
		{"/builds/nightly-99", 404, `no build &#34;nightly-99&#34;`},
		{"/api/builds/nightly-99", 404, `no build \"nightly-99\"`},
		{"/api/builds/nightly-01?series=nope", 404, `no series \"nope\"`},
		{"/builds/nightly-01?axis=time", 400, `unknown query parameter &#34;axis&#34;`},
		{"/api/history", 400, "query parameter series: give one series id"},
		{"/api/history?series=" + id + "&series=" + id, 400, "give one series id"},
		{"/api/history?series=" + id + "&color=red", 400, `unknown query parameter \"color\"`},
		{"/api/history?series=nope", 404, `no series \"nope\"`},
		{"/api/history?series=" + id + "&kpi=no_such_kpi", 404, "has no KPI no_such_kpi"},
		{"/api/history?series=" + id + "&kpi=Bad", 400, `kpi \"Bad\": not a KPI name`},
		{"/api/runs/00000000-0000-4000-8000-000000000000", 404, "no run"},
		{"/runs/00000000-0000-4000-8000-000000000000/", 404, "no run directory"},
		{"/api/nothing", 404, "no endpoint GET /api/nothing"},
		{"/nothing", 404, "no page GET /nothing"},
	} {
		code, body := get(t, srv, c.path)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", c.path, code, c.code, c.want, body)
		}
	}
}

// TestStoreFailure: a store that fails while serving is 503 with its
// error, pages and API alike; the server goes on and serves again once
// the store is back.
func TestStoreFailure(t *testing.T) {
	t.Parallel()
	s := &failingStore{Store: sqliteStore(t, fixture())}
	srv := serve(t, s, explorer.Options{})
	id := seriesIDs(t, srv)["64"]
	s.fail.Store(true)
	for _, path := range []string{"/", "/api/series", "/series/" + id, "/api/history?series=" + id, "/builds/nightly-01", "/api/builds/nightly-01"} {
		code, body := get(t, srv, path)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "database is locked (injected)") {
			t.Errorf("GET %s with the store failing: %d, want 503 with the error:\n%s", path, code, body)
		}
	}
	s.fail.Store(false)
	if code, body := get(t, srv, "/series/"+id); code != http.StatusOK {
		t.Errorf("GET /series/%s once the store is back: %d %s", id, code, body)
	}
}

// TestEscaping: a setting and a label value holding markup are text in
// every page and in the JSON.
func TestEscaping(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	id := seriesIDs(t, srv)["256"]
	for _, path := range []string{"/", "/?dtype=" + url.QueryEscape("float32"+xss), "/series/" + id, "/builds/nightly-01", "/api/series", "/api/history?series=" + id, "/api/builds/nightly-01"} {
		code, body := get(t, srv, path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
		if strings.Contains(body, xss) {
			t.Errorf("GET %s: %s is not escaped", path, xss)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strings.Contains(body, `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
			t.Errorf("GET %s: %s is not shown at all", path, xss)
		}
	}
}

// TestRunDirectories: a build page links each run to its directory under
// --results-dir, found by its .uuid, and the server serves that
// directory's files and nothing outside it; other runs link to their
// payload.
func TestRunDirectories(t *testing.T) {
	t.Parallel()
	ps := fixture()
	results := t.TempDir()
	run := filepath.Join(results, "nightly", "000__matrix_size=64")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(run, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".uuid", strings.ToUpper(ps[0].Metadata.TestUUID)+"\n")
	write("stdout.log", "42 GFLOPS\n")
	secret := filepath.Join(results, "secret.txt")
	if err := os.WriteFile(secret, []byte("not for the web"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(run, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, sqliteStore(t, ps), explorer.Options{ResultsDirs: []string{results}})
	var b explorer.BuildDetail
	getJSON(t, srv, "/api/builds/nightly-01", &b)
	dirs := 0
	for _, r := range b.Runs {
		switch {
		case r.TestUUID == ps[0].Metadata.TestUUID && r.RunDir != "/runs/"+r.TestUUID+"/":
			t.Errorf("run %s: run_dir %q", r.TestUUID, r.RunDir)
		case r.RunDir != "":
			dirs++
		}
		if r.Payload != "/api/runs/"+r.TestUUID {
			t.Errorf("run %s: payload %q", r.TestUUID, r.Payload)
		}
	}
	if dirs != 1 || len(b.Runs) != 6 {
		t.Errorf("%d runs with a directory of %d, want 1 of 6", dirs, len(b.Runs))
	}
	if code, body := get(t, srv, "/runs/"+ps[0].Metadata.TestUUID+"/stdout.log"); code != 200 || body != "42 GFLOPS\n" {
		t.Errorf("stdout.log: %d %q", code, body)
	}
	if code, body := get(t, srv, "/runs/"+ps[0].Metadata.TestUUID+"/escape.txt"); code == 200 || strings.Contains(body, "not for the web") {
		t.Errorf("a symbolic link out of the run directory was served: %d %q", code, body)
	}
	_, page := get(t, srv, "/builds/nightly-01")
	if !strings.Contains(page, `class="run-dir" href="/runs/`+ps[0].Metadata.TestUUID+`/"`) || !strings.Contains(page, `class="payload" href="/api/runs/`) {
		t.Error("the build page does not link the run directory and the payloads of the others")
	}
	var p struct {
		Metadata struct {
			TestUUID string `json:"test_uuid"`
		} `json:"metadata"`
	}
	getJSON(t, srv, "/api/runs/"+ps[1].Metadata.TestUUID, &p)
	if p.Metadata.TestUUID != ps[1].Metadata.TestUUID {
		t.Errorf("payload of %s: %+v", ps[1].Metadata.TestUUID, p)
	}
}

// TestOpenSearch: the explorer over OpenSearch lists and draws what it
// does over SQLite.
func TestOpenSearch(t *testing.T) {
	t.Parallel()
	ps := fixture()
	os := opensearchtest.Start(t, opensearchtest.Config{})
	store := ltstest.Open(t, os.URL, lts.StoreOptions{})
	if _, err := store.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	over := serve(t, store, explorer.Options{})
	base := serve(t, sqliteStore(t, ps), explorer.Options{})
	id := seriesIDs(t, base)["128"]
	for _, path := range []string{"/api/series", "/api/history?series=" + id, "/api/builds/nightly-02"} {
		var a, b any
		getJSON(t, over, path, &a)
		getJSON(t, base, path, &b)
		if m, ok := a.(map[string]any); ok {
			delete(m, "store")
			delete(b.(map[string]any), "store")
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("GET %s over OpenSearch differs from SQLite:\n%s\n%s", path, ja, jb)
		}
	}
}

// TestServe: the server answers on the address it was given and shuts
// down when its context is done.
func TestServe(t *testing.T) {
	t.Parallel()
	h, err := explorer.New(explorer.Options{Store: sqliteStore(t, fixture()), Workloads: explorer.Registered(workloads.Builtin())})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- explorer.Serve(ctx, "127.0.0.1:0", h, func(u string) { urls <- u }) }()
	u := <-urls
	resp, err := http.Get(u + "api/series")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("GET %sapi/series: %d, CSP %q", u, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after its context is done: %v", err)
		}
	case <-time.After(time.Minute): // a hang, not a timing assertion
		t.Fatal("Serve did not return once its context was done")
	}
	if err := explorer.Serve(context.Background(), "127.0.0.1:bad", h, nil); err == nil || !strings.Contains(err.Error(), "--addr 127.0.0.1:bad") {
		t.Errorf("a bad address: %v", err)
	}
}

// TestSparklineAgreesWithHistory: the landing page's sparkline is the
// series page's line of the main KPI, point by point, because both group
// the runs by the one rule of analyze/history: on a series whose builds
// have several runs at two framework versions (comparison values), each
// build at each version is a point of both, in the same order.
func TestSparklineAgreesWithHistory(t *testing.T) {
	t.Parallel()
	ps := fixture()
	for i, p := range ps {
		if i%fixtureSeries != 0 {
			continue
		}
		// The second run of every build of the 64 series at a newer
		// framework, half again as fast.
		p.Metadata.Labels["framework_version"] = "1.0"
		if n := i / fixtureSeries; n%2 == 1 {
			p.Metadata.Labels["framework_version"] = "2.0"
			v := p.KPIs["rate_gflops"]
			v.Value *= 1.5
			p.KPIs["rate_gflops"] = v
		}
	}
	srv := serve(t, sqliteStore(t, ps), explorer.Options{})
	id := seriesIDs(t, srv)["64"]
	var list explorer.SeriesList
	getJSON(t, srv, "/api/series", &list)
	var spark []*float64
	for _, sr := range list.Series {
		if sr.ID == id {
			spark = sr.Sparkline
			if sr.Builds != 5 {
				t.Errorf("series 64 has %d builds, want 5", sr.Builds)
			}
		}
	}
	var h explorer.History
	getJSON(t, srv, "/api/history?series="+id+"&kpi=rate_gflops", &h)
	line := h.KPIs[0].Medians
	if len(line) != 9 {
		t.Fatalf("the series page has %d points, want 9 (4 builds at 2 versions, one run of its own)", len(line))
	}
	show := func(vs []*float64) string {
		var out []string
		for _, v := range vs {
			if v == nil {
				out = append(out, "null")
			} else {
				out = append(out, fmt.Sprintf("%.6g", *v))
			}
		}
		return strings.Join(out, " ")
	}
	if show(spark) != show(line) {
		t.Errorf("the landing sparkline %s differs from the series page's line %s", show(spark), show(line))
	}
}
