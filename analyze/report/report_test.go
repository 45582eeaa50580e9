package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/internal/golden"
)

// update rewrites the golden files in testdata instead of comparing:
// go test ./analyze/report -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// synthetic builds a report of n entries, each with one rate KPI of the
// given status.
func synthetic(n int, status analyze.Status) *regression.Report {
	rep := &regression.Report{Method: "edivisive", Keys: map[string]regression.Keys{}}
	for i := range n {
		r := &regression.KPIResult{KPI: "rate|gflops", Unit: "GFLOPS", Direction: analyze.HigherIsBetter, Status: status,
			Result: analyze.Result{Method: "edivisive", Status: status, Reference: 100, DeltaPercent: -10, PValue: 1e-6,
				Score: 0.1, CILow: math.NaN(), CIHigh: math.NaN(), Floor: 3, QValue: 1e-5, Noise: 0.01, Detectable: 2.5, Details: "a <b> & c"},
			Current: analyze.Point{Value: 90, Label: "v2"},
			History: []analyze.Point{{Value: 100, Label: "v0", Time: time.Unix(0, 0)}, {Value: 101, Label: "v1", Time: time.Unix(3600, 0)}}}
		r.Failing = status == analyze.StatusRegression
		e := &regression.Entry{ID: i + 1, Name: fmt.Sprintf("size=%d", i), Workload: "pi", ComparisonValue: "v2",
			Labels: map[string]string{"size": fmt.Sprint(i)}, Results: []*regression.KPIResult{r}}
		rep.Entries = append(rep.Entries, e)
		rep.Summary.TotalPoints++
		if r.Failing {
			rep.Summary.Regressions++
			rep.Summary.Failing++
		}
	}
	rep.Summary.Entries, rep.Summary.KPIs = n, 1
	return rep
}

func TestMarkdownCapsAndEscapes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteMarkdown(&b, synthetic(MaxMarkdownRows+7, analyze.StatusRegression), Info{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if n := strings.Count(md, "| 🔴 regression |"); n != MaxMarkdownRows {
		t.Errorf("%d rows, want %d", n, MaxMarkdownRows)
	}
	if !strings.Contains(md, "… and 7 more in regression_report.html") || !strings.Contains(md, `rate\|gflops`) {
		t.Errorf("no cap note or unescaped pipe:\n%s", md)
	}
}

// hostile is a report whose every value a user or an input may choose —
// labels, KPI names, units, reasons, acks, the store's name — holds HTML
// and Markdown.
func hostile() (*regression.Report, Info) {
	const img = "<img src=x onerror=alert(1)>"
	rep := synthetic(4, analyze.StatusRegression)
	for i, e := range rep.Entries {
		e.Name = fmt.Sprintf("path=%s|*x*_%d", img, i)
		e.ComparisonValue = "[v2](javascript:alert(1)) `v2` ~~old~~ $x$ \\ &amp; <b>"
		r := e.Results[0]
		r.KPI, r.Unit = "rate_<b>x</b>", "req"+img+"/s"
	}
	acked := rep.Entries[1].Results[0]
	acked.Status, acked.Failing = regression.StatusAcknowledged, false
	acked.Ack = &regression.Ack{Reason: "accepted in [PERF-12](https://evil.example) " + img}
	suspect := rep.Entries[2].Results[0]
	suspect.Status, suspect.Failing, suspect.Result.Reason = analyze.StatusSuspect, false, "a new level "+img
	skipped := rep.Entries[3].Results[0]
	skipped.Status, skipped.Failing, skipped.Result.Reason = analyze.StatusNotAnalyzed, false, "no KPI: run `x` | y\n<script>alert(1)</script>"
	rep.Summary = regression.Summary{Entries: 4, KPIs: 1, TotalPoints: 4, Regressions: 1, Acknowledged: 1, Suspects: 1, NotAnalyzed: 1, Failing: 1}
	return rep, Info{History: "sqlite:/tmp/`a`<b>.db", Params: "alpha 0.01 <i>x</i> ``y``"}
}

// TestMarkdownEscapesHostileValues: summary.md is rendered by GitHub as a
// step summary; no value written there becomes HTML or Markdown.
func TestMarkdownEscapesHostileValues(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rep, info := hostile()
	if err := WriteMarkdown(&b, rep, info); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// (The store's name is a code span, where "<b>" is text.)
	for _, raw := range []string{"<img", "<script", "<i>", "[v2](", "[PERF-12](", "~~old", "$x$", "`v2`"} {
		if strings.Contains(md, raw) {
			t.Errorf("summary.md holds %q unescaped", raw)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, "<") {
			t.Errorf("a table row holds HTML: %s", line)
		}
	}
	golden.Check(t, filepath.Join("testdata", "summary_hostile.md"), b.Bytes(), *update)
}

func TestJUnitIsValidXML(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteJUnit(&b, synthetic(3, analyze.StatusRegression), Info{History: "sqlite:x"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	c := doc.Suites[0].Cases[0]
	if doc.Tests != 3 || doc.Failures != 3 || c.Name != "rate|gflops" || c.Failure.Text != "a <b> & c" ||
		c.Failure.Message != "regression: 90 GFLOPS -10.0% against 100 GFLOPS (p=1e-06, floor ±3.0%)" {
		t.Errorf("%+v", doc)
	}
}

func TestSparkline(t *testing.T) {
	t.Parallel()
	r := synthetic(1, analyze.StatusRegression).Entries[0].Results[0]
	s := newSparkline(r)
	// 100 and 101 then the current 90: the lowest value at the bottom.
	if s.Line != "3.0,4.8 60.0,3.0" || s.CX != "117.0" || s.CY != "23.0" || s.Color != "#c62828" {
		t.Errorf("%+v", s)
	}
	r.History, r.Current.Value = nil, math.NaN()
	if !newSparkline(r).Empty {
		t.Error("nothing to draw is not empty")
	}
}

// TestHTMLIsDeterministic: the same report, the same bytes; the details
// are escaped.
func TestHTMLIsDeterministic(t *testing.T) {
	t.Parallel()
	rep := synthetic(4, analyze.StatusRegression)
	var a, b bytes.Buffer
	if err := WriteHTML(&a, rep, Info{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&b, rep, Info{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("two renderings differ")
	}
	if strings.Contains(a.String(), "a <b> & c") || !strings.Contains(a.String(), "a &lt;b&gt; &amp; c") {
		t.Error("details not escaped")
	}
	if figs := Figures(rep); len(figs) != 4 || figs[0].Path != "regression_plots/entry-1-rate_gflops.svg" {
		t.Errorf("figures %v", figs)
	}
	var svg bytes.Buffer
	if err := Figures(rep)[0].Write(&svg); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("figure: %v", err)
	}
}

// TestTextFitsATerminal: the stdout table of entries that differ in many
// labels and in a long comparison value (a BLAS library path, as the PIs
// recorded it once) fits texttable.Width columns: the shared labels are
// said once above it, each row keeps what differs, long cells are cut and
// notes go below the table.
func TestTextFitsATerminal(t *testing.T) {
	t.Parallel()
	const blas = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so,/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"
	rep := synthetic(3, analyze.StatusRegression)
	rep.Fixed = map[string]string{"cpu_model": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "os": "debian 12", "pi": "matmul"}
	for i, e := range rep.Entries {
		e.Name = fmt.Sprintf("backend=numpy dtype=float32 matrix_size=%d openblas_num_threads=%d input_channels=3 strides=1", 128<<i, i+1)
		e.Comparison = map[string]string{"framework_version": "1.24.2", "blas": blas, "os": "debian 12"}
		if i == 2 {
			e.Comparison["blas"] = "mkl 2023.1"
		}
	}
	noisy := rep.Entries[1].Results[0]
	noisy.Status, noisy.Failing = analyze.StatusNoisy, false
	noisy.Result.Reason = strings.Repeat("too noisy to judge, changes cannot be told from this series' noise; ", 3)
	rep.Summary.Regressions, rep.Summary.Failing, rep.Summary.Noisy = 2, 2, 1
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	golden.Check(t, filepath.Join("testdata", "text_wide.txt"), b.Bytes(), *update)
}

// named is a report of builds given ids (--build-id), entries differing in
// one label out of several, a failing result after a passing one.
func named() *regression.Report {
	rep := synthetic(3, analyze.StatusOK)
	for i, e := range rep.Entries {
		e.Labels = map[string]string{"backend": "gonum", "dtype": "float32", "size": fmt.Sprint(128 << i)}
		e.Name = fmt.Sprintf("size=%d", 128<<i)
		e.Builds, e.Commit = []string{"stack-b"}, "db3a7aa0c0ffee"
		r := e.Results[0]
		r.Current.Build, r.Current.Commit = "stack-b", "db3a7aa0c0ffee"
		r.History[0].Build, r.History[0].Commit = "nightly-01", "aaaa001f00"
		r.History[1].Build, r.History[1].Commit = "nightly-02", "aaaa002f00"
	}
	failing := rep.Entries[1].Results[0]
	failing.Status, failing.Failing = analyze.StatusRegression, true
	rep.Summary.OK, rep.Summary.Regressions, rep.Summary.Failing = 2, 1, 1
	return rep
}

// TestHTMLBuildsByName: the report names builds by id with the short
// commit beside (the builds table, the figure's ticks), says the labels
// every entry shares and the shared current build once above the results,
// puts the failing entry first and offers the "failing only" view.
// Rewrite with go test ./analyze/report -run TestHTMLBuildsByName -update.
func TestHTMLBuildsByName(t *testing.T) {
	t.Parallel()
	rep := named()
	var b bytes.Buffer
	if err := WriteHTML(&b, rep, Info{History: "sqlite:lts.db"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`nightly-01 <span class="id">aaaa001</span>`,
		`Current build <b>stack-b (db3a7aa)</b>; every entry has <b>backend=gonum</b>, <b>dtype=float32</b>.`,
		`id="failing-only"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if first, other := strings.Index(page, "#2</span> size=256"), strings.Index(page, "#1</span> size=128"); first < 0 || first > other {
		t.Errorf("the failing entry #2 is not first in the results (at %d, #1 at %d)", first, other)
	}
	if strings.Count(page, `<tbody class="entry passing">`) != 2 {
		t.Error("want the two passing entries marked passing")
	}
	// The inlined chart script (internal/charts, uPlot whole) is checked
	// there, not in this golden.
	if !bytes.Contains(b.Bytes(), []byte(charts.Inline())) {
		t.Error("the report, with a figure, lacks the chart script")
	}
	golden.Check(t, filepath.Join("testdata", "report_named.html"), bytes.Replace(b.Bytes(), []byte(charts.Inline()), []byte("<!-- internal/charts.Inline() -->\n"), 1), *update)

	f, err := newFigure(rep.Entries[1], rep.Entries[1].Results[0])
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := f.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">nightly-01<", ">aaaa001<", ">stack-b<", ">db3a7aa<"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the figure lacks the tick text %q", want)
		}
	}
}

// abResult is an A/B regression with no store's history: head's 4 runs
// against the baseline side=base's 4, whose runs spread past both levels
// (as cpu_seconds did in a real A/B job on this host).
func abResult() *regression.Report {
	rep := synthetic(1, analyze.StatusRegression)
	r := rep.Entries[0].Results[0]
	r.History = nil
	r.Result.Method = regression.MethodBaseline
	r.Current = analyze.PointOf(0.168, 0.175, 0.177, 0.187)
	r.Current.Label = "v2"
	r.Result.Current, r.Result.Reference, r.Result.DeltaPercent = 0.176, 0.157, 12.1
	base := analyze.PointOf(0.137, 0.156, 0.158, 0.179)
	base.Value, base.Label = 0.157, "side=base"
	r.Sides = &regression.Sides{Baseline: "side=base", Current: "side=head", BaselinePoint: base}
	return rep
}

// TestABFigures: the figures of an A/B result without history draw the
// two sides, each at its level with its runs, the baseline's level as the
// reference, on an axis of the sides (the current build alone was drawn
// before, with no baseline).
func TestABFigures(t *testing.T) {
	t.Parallel()
	rep := abResult()
	e, r := rep.Entries[0], rep.Entries[0].Results[0]
	c := newChart(e, r)
	if got := strings.Join(c.X.Ticks, " "); got != "side=base side=head" {
		t.Errorf("ticks %q, want the two sides", got)
	}
	if len(c.Series) != 3 || c.Series[0].Name != "baseline side=base (its runs and level)" || c.Series[1].Name != "side=head (regression)" {
		t.Fatalf("series %+v, want the baseline, this side and the reference", c.Series)
	}
	if p := c.Series[0].Points[0]; p.X != 0 || p.Y != 0.157 || *p.Lo != 0.137 || *p.Hi != 0.179 {
		t.Errorf("the baseline's point %+v, want its level 0.157 at 0 with its runs 0.137-0.179", p)
	}
	if p := c.Series[1].Points[0]; p.X != 1 || p.Y != 0.176 {
		t.Errorf("this side's point %+v, want its level 0.176 at 1", p)
	}
	if ref := c.Series[2]; len(ref.Points) != 2 || ref.Points[0].Y != 0.157 || ref.Points[1].Y != 0.157 {
		t.Errorf("the reference %+v, want the baseline's level across", ref)
	}
	f, err := newFigure(e, r)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := f.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">side=base<", ">side=head<", "baseline side=base (its runs and level)", "side=head: 0.176"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the SVG figure lacks %q", want)
		}
	}
}

// TestABTextCountsRuns: against a baseline the table's N is the runs
// compared, the baseline's and the side's (benchstat's n), not the
// history points, which an A/B without a store has none of (every row
// read 0).
func TestABTextCountsRuns(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteText(&b, abResult()); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^1 .* 4\+4$`).MatchString(b.String()) {
		t.Errorf("the row does not end in N 4+4:\n%s", b.String())
	}
}
