package explorer_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
)

// alertStore is the fixture's SQLite store with the verdicts of two
// analyses of series 64 and 256 (the one with xss in a label): nightly-03
// lost rate (a regression, older), then nightly-04 regained it (an
// improvement, newer); the other results were ok.
func alertStore(t testing.TB) (lts.Store, map[string]lts.Verdict) {
	t.Helper()
	s := sqliteStore(t, fixture())
	srv := serve(t, s, explorer.Options{})
	var list explorer.SeriesList
	getJSON(t, srv, "/api/series", &list)
	labels := map[string]map[string]string{}
	for _, sr := range list.Series {
		labels[sr.Labels["matrix_size"]] = sr.Labels
	}
	verdict := func(analysis string, minute int, size, build, kpi, status string) lts.Verdict {
		v := ltstest.Verdict(analysis, minute, build, kpi, status)
		v.Labels = labels[size]
		v.Comparison = ""
		v.ID = lts.VerdictID(analysis, "pi", v.Labels, "", kpi)
		v.ReferenceBuilds = []string{"nightly-01", "nightly-02"}
		return v
	}
	vs := map[string]lts.Verdict{
		"regression":  verdict("a1", 10, "64", "nightly-03", "rate_gflops", "regression"),
		"ok":          verdict("a1", 10, "64", "nightly-03", "elapsed_ms", "ok"),
		"xss":         verdict("a1", 10, "256", "nightly-03", "rate_gflops", "regression"),
		"improvement": verdict("a2", 20, "64", "nightly-04", "rate_gflops", "improvement"),
	}
	var all []lts.Verdict
	for _, v := range vs {
		all = append(all, v)
	}
	if err := s.(lts.VerdictStore).PutVerdicts(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	return s, vs
}

// TestAlerts: /api/alerts and /alerts list the regressions and
// improvements, newest first, linked to their series and builds, filtered
// by status, workload, KPI and triage; a bad filter is 400; without
// --allow-triage the page says why triage is unavailable.
func TestAlerts(t *testing.T) {
	t.Parallel()
	s, vs := alertStore(t)
	srv := serve(t, s, explorer.Options{})
	ids := seriesIDs(t, srv)
	var list explorer.AlertList
	getJSON(t, srv, "/api/alerts", &list)
	if list.Total != 3 || len(list.Alerts) != 3 || list.Alerts[0].ID != vs["improvement"].ID {
		t.Fatalf("alerts %+v: want 3, the improvement first", list)
	}
	a := list.Alerts[0]
	if a.SeriesID != ids["64"] || a.SeriesURL != "/series/"+ids["64"] || a.BuildURL != "/builds/nightly-04" ||
		a.ReferenceBuild != "nightly-02" || a.TriageState != explorer.Untriaged {
		t.Errorf("alert %+v: want series 64, builds nightly-04 vs nightly-02, untriaged", a)
	}
	if list.Triage.Available || !strings.Contains(list.Triage.Reason, "--allow-triage") {
		t.Errorf("triage %+v: want unavailable, naming --allow-triage", list.Triage)
	}
	for q, want := range map[string]int{"status=improvement": 1, "status=regression": 2, "kpi=elapsed_ms": 0,
		"workload=pi&triage=untriaged": 3, "triage=fixed": 0} {
		var l explorer.AlertList
		getJSON(t, srv, "/api/alerts?"+q, &l)
		if l.Total != want {
			t.Errorf("/api/alerts?%s: %d alerts, want %d", q, l.Total, want)
		}
	}
	for _, q := range []string{"status=bogus", "label=x", "kpi=", "triage=open", "status=regression&status=improvement"} {
		if code, body := get(t, srv, "/api/alerts?"+q); code != http.StatusBadRequest {
			t.Errorf("/api/alerts?%s: %d %s, want 400", q, code, body)
		}
	}
	code, page := get(t, srv, "/alerts")
	if code != http.StatusOK {
		t.Fatalf("/alerts: %d %s", code, page)
	}
	for _, want := range []string{`href="/series/` + ids["256"] + `"`, `href="/builds/nightly-03"`, "&lt;script&gt;alert(1)&lt;/script&gt;",
		`id="triage-unavailable"`, "seshat serve --allow-triage turns it on", "-12.5%"} {
		if !strings.Contains(page, want) {
			t.Errorf("/alerts lacks %q", want)
		}
	}
	if strings.Contains(page, xss) || strings.Contains(page, "<button") {
		t.Errorf("/alerts shows raw markup or triage buttons without --allow-triage")
	}
}

// TestTriage: POST /api/alerts/{id}/triage stores the triage with
// --allow-triage, from the same origin, with the token when one is set;
// everything else is refused with its status.
func TestTriage(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-0123456789"
	good := `{"state": "acknowledged", "reason": "new BLAS <b>kernels</b>", "bug": "https://bugs.example/PERF-7"}`
	for _, tt := range []struct {
		name    string
		opts    explorer.Options
		alert   string // a key of the alert store's verdicts, else an id
		body    string
		headers map[string]string
		code    int
		want    string
	}{
		{"allowed", explorer.Options{AllowTriage: true}, "regression", good, nil, 200, `"triage_state":"acknowledged"`},
		{"invalid needs no reason", explorer.Options{AllowTriage: true}, "regression", `{"state": "invalid"}`, nil, 200, `"triage_state":"invalid"`},
		{"no --allow-triage", explorer.Options{}, "regression", good, nil, 403, "--allow-triage"},
		{"read-only store", explorer.Options{AllowTriage: true, ReadOnly: true}, "regression", good, nil, 403, "read-only"},
		{"no token", explorer.Options{AllowTriage: true, Token: token}, "regression", good, nil, 401, "--token-file"},
		{"wrong token", explorer.Options{AllowTriage: true, Token: token}, "regression", good, map[string]string{"Authorization": "Bearer " + token + "x"}, 401, "--token-file"},
		{"token", explorer.Options{AllowTriage: true, Token: token}, "regression", good, map[string]string{"Authorization": "Bearer " + token}, 200, `"triage_state":"acknowledged"`},
		{"bad JSON", explorer.Options{AllowTriage: true}, "regression", `{"state": "acknowledged",`, nil, 400, "not {"},
		{"unknown field", explorer.Options{AllowTriage: true}, "regression", `{"state": "fixed", "by": "me"}`, nil, 400, "unknown field"},
		{"bad state", explorer.Options{AllowTriage: true}, "regression", `{"state": "wontfix"}`, nil, 400, "wontfix"},
		{"ack without reason", explorer.Options{AllowTriage: true}, "regression", `{"state": "acknowledged"}`, nil, 400, "needs a reason"},
		{"bug not a URL", explorer.Options{AllowTriage: true}, "regression", `{"state": "fixed", "bug": "javascript:alert(1)"}`, nil, 400, "http(s) URL"},
		{"unknown alert", explorer.Options{AllowTriage: true}, "0123456789abcdef0123", good, nil, 404, "no alert 0123456789abcdef0123"},
		{"cross-origin", explorer.Options{AllowTriage: true}, "regression", good, map[string]string{"Origin": "https://evil.example"}, 403, "another origin"},
		{"cross-site", explorer.Options{AllowTriage: true}, "regression", good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "another site"},
		{"a form", explorer.Options{AllowTriage: true}, "regression", good, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, vs := alertStore(t)
			srv := serve(t, s, tt.opts)
			id := tt.alert
			if v, ok := vs[id]; ok {
				id = v.ID
			}
			code, body := post(t, srv, "/api/alerts/"+id+"/triage", tt.body, tt.headers)
			if code != tt.code || !strings.Contains(body, tt.want) {
				t.Fatalf("POST: %d %s, want %d with %q", code, body, tt.code, tt.want)
			}
			var list explorer.AlertList
			getJSON(t, srv, "/api/alerts?triage=untriaged", &list)
			if triaged := 3 - list.Total; (code == 200) != (triaged == 1) {
				t.Errorf("after %d: %d alerts triaged", code, triaged)
			}
		})
	}
}

// post sends a JSON body (Content-Type application/json unless headers
// say otherwise) from the server's own origin.
func post(t testing.TB, srv *httptest.Server, path, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.URL)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}

// FuzzTriage posts any body to the triage of a stored alert (and of an
// unknown one): the explorer answers 200, 400 or 404, never fails, and
// echoes no markup. Seeds in testdata/fuzz/FuzzTriage.
func FuzzTriage(f *testing.F) {
	s, vs := alertStore(f)
	srv := serve(f, s, explorer.Options{AllowTriage: true})
	h := srv.Config.Handler
	for _, seed := range []string{`{"state": "acknowledged", "reason": "<script>x</script>"}`, `{"state": "fixed", "bug": "https://b.example/<b>"}`,
		`{"state": "invalid"}{}`, `[]`, `{"state": null}`, ""} {
		f.Add(seed, true)
	}
	id := vs["regression"].ID
	f.Fuzz(func(t *testing.T, body string, known bool) {
		target := "/api/alerts/" + id + "/triage"
		if !known {
			target = "/api/alerts/0123456789abcdef0123/triage"
		}
		req := httptest.NewRequest(http.MethodPost, "http://explorer"+target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("POST %s %q: %d %s", target, body, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "<") {
			t.Fatalf("POST %q: markup in the answer:\n%s", body, w.Body)
		}
	})
}

// TestHistoryMarksVerdicts: /api/history marks the stored verdicts of a
// series at their builds (the regression at nightly-03, the improvement
// at nightly-04), on their KPI only, and no other series' verdict.
func TestHistoryMarksVerdicts(t *testing.T) {
	t.Parallel()
	s, _ := alertStore(t)
	srv := serve(t, s, explorer.Options{})
	var h explorer.History
	getJSON(t, srv, "/api/history?series="+seriesIDs(t, srv)["64"], &h)
	got := map[string][]string{}
	for _, k := range h.KPIs {
		for _, m := range k.Marks {
			if m.Kind != "change" {
				got[k.Name] = append(got[k.Name], h.Builds[m.Build].ID+" "+m.Kind)
			}
		}
	}
	want := []string{"nightly-03 regression", "nightly-04 improvement"}
	if g := got["rate_gflops"]; !slices.Equal(slices.Sorted(slices.Values(g)), want) {
		t.Errorf("rate_gflops marks %q, want %q", g, want)
	}
	if len(got) != 1 {
		t.Errorf("marks on %d KPIs (%v), want on rate_gflops only (the ok verdict is no mark)", len(got), got)
	}
}

// TestTriageHistoryInChromium: triaging an alert twice on the alerts page
// (invalid, then acknowledged with a reason) shows both triages under it,
// oldest first, by the serve's triage user; the page read again and
// /api/alerts show the same history, the latest triage the alert's state.
func TestTriageHistoryInChromium(t *testing.T) {
	browsertest.Chromium(t)
	s, vs := alertStore(t)
	srv := serve(t, s, explorer.Options{AllowTriage: true, TriageUser: "alice <a@example.com>"})
	id := vs["regression"].ID
	ctx, done := browsertest.Tab(t, srv.URL+"/alerts")
	defer done()
	row := `#alert-` + id
	history := func(what string, want int) []string {
		t.Helper()
		items := value(t, ctx, what, chromedp.Poll[[]string](fmt.Sprintf(`(() => {
			const li = Array.from(document.querySelectorAll(%q)).map((e) => e.textContent);
			return li.length === %d ? li : null;
		})()`, row+` ol.triage-history li`, want), chromedp.WithPollingTimeout(20*time.Second)))
		return items
	}
	do(t, ctx, "triaging invalid", chromedp.Click(chromedp.CSS(row+` button[data-state="invalid"]`)))
	history("the history after one triage", 1)
	do(t, ctx, "acknowledging",
		chromedp.SendKeys(chromedp.CSS(row+` input.reason`), "new BLAS <b>kernels</b>"),
		chromedp.Click(chromedp.CSS(row+` button[data-state="acknowledged"]`)))
	check := func(what string, items []string) {
		t.Helper()
		if !strings.Contains(items[0], "alice <a@example.com>: invalid") || !strings.Contains(items[1], "alice <a@example.com>: acknowledged new BLAS <b>kernels</b>") {
			t.Errorf("%s: triage history %q, want invalid then acknowledged, by alice, the reason as text", what, items)
		}
	}
	check("after two triages", history("the history after two triages", 2))
	if state := value(t, ctx, "the state", chromedp.Text(chromedp.CSS(row+` .triage-state`))); state != "acknowledged" {
		t.Errorf("the alert's state %q, want the latest triage, acknowledged", state)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "triage-history"))
	do(t, ctx, "reading the page again", chromedp.Reload())
	check("the page read again", history("the history read again", 2))
	var list explorer.AlertList
	getJSON(t, srv, "/api/alerts?triage=acknowledged", &list)
	if len(list.Alerts) != 1 || len(list.Alerts[0].TriageHistory) != 2 || list.Alerts[0].TriageHistory[0].User != "alice <a@example.com>" ||
		list.Alerts[0].TriageHistory[1].State != lts.TriageAcknowledged {
		t.Errorf("/api/alerts?triage=acknowledged: %+v, want the alert with its two triages by alice", list.Alerts)
	}
}
