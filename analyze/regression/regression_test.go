package regression_test

import (
	"context"
	"fmt"
	"iter"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// memHistory is a store in memory (lts.Memory) that counts the label
// queries regression analysis asks.
type memHistory struct {
	*lts.Memory
	payloads []*models.Payload
	queries  [][]string
}

func newHistory(payloads ...*models.Payload) *memHistory {
	return &memHistory{Memory: lts.NewMemory("memory", payloads...), payloads: payloads}
}

// add stores a run of workload pi.
func (h *memHistory) add(uuid string, at time.Time, labels map[string]string, values map[string]float64) {
	p := &models.Payload{Metadata: models.Metadata{TestUUID: uuid, Start: at, Workload: "pi", Labels: labels}, KPIs: map[string]models.KPIValue{}}
	// One build per version, as a version-to-version history has them.
	if v, ok := labels["version"]; ok {
		p.Metadata.Build = &models.Build{ID: "build-" + v}
	}
	for name, v := range values {
		p.KPIs[name] = models.KPIValue{Value: v, Unit: "GFLOPS", Timestamp: at, TestUUID: uuid}
	}
	h.payloads = append(h.payloads, p)
	if _, err := h.Put(context.Background(), []*models.Payload{p}); err != nil {
		panic(err)
	}
}

func (h *memHistory) Records(ctx context.Context, q lts.Query) iter.Seq2[lts.Record, error] {
	var labels []string
	for _, name := range q.Labels.Names() {
		labels = append(labels, name+"="+strings.Join(q.Labels[name], ":"))
	}
	h.queries = append(h.queries, labels)
	return h.Memory.Records(ctx, q)
}

func labels(kv ...string) map[string]string {
	m := map[string]string{"workload": "pi", "pi": "matmul"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var piKeys = regression.Keys{ComparisonKeys: []string{"version"}, IgnoredKeys: []string{"kernel"}, SortingKeys: []string{"size"}}

func run(path, uuid, version, size string, rate float64) regression.Run {
	r := regression.Run{Path: path, Record: lts.Record{TestUUID: uuid, Workload: "pi", Time: t0.Add(100 * time.Hour),
		Labels: labels("version", version, "size", size, "kernel", "6.1")}}
	setKPI(&r, "rate", models.KPIValue{Value: rate, Unit: "GFLOPS"})
	return r
}

// setKPI gives a current run a KPI value.
func setKPI(r *regression.Run, name string, v models.KPIValue) {
	if r.Values == nil {
		r.Values, r.Defs = map[string]float64{}, map[string]lts.KPIDef{}
	}
	r.Values[name] = v.Value
	r.Defs[name] = lts.KPIDef{Unit: v.Unit, Help: v.Help, LowerBetter: v.LowerBetter}
}

func analyseWith(t *testing.T, method string, h *memHistory, runs []regression.Run, tweak func(*regression.Options)) *regression.Report {
	t.Helper()
	m, err := analyze.New(method, analyze.Params{})
	if err != nil {
		t.Fatal(err)
	}
	opts := regression.Options{Method: m, Keys: func(string) regression.Keys { return piKeys }, FailOnRegression: true}
	if tweak != nil {
		tweak(&opts)
	}
	rep, err := regression.Analyze(context.Background(), runs, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func result(t *testing.T, rep *regression.Report, entry int, kpi string) *regression.KPIResult {
	t.Helper()
	for _, e := range rep.Entries {
		if e.ID != entry {
			continue
		}
		for _, r := range e.Results {
			if r.KPI == kpi {
				return r
			}
		}
	}
	t.Fatalf("no result for entry %d kpi %q", entry, kpi)
	return nil
}

func pointLabels(ps []analyze.Point) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s=%g", p.Label, p.Value))
	}
	return strings.Join(out, " ")
}

// TestHistoryOrderedByTimeNotName: comparison values whose names sort
// differently from their times; the points follow time, each the median of
// its records at the time of the earliest.
func TestHistoryOrderedByTimeNotName(t *testing.T) {
	t.Parallel()
	h := newHistory()
	// v10 ran before v9 (a branch released later under a smaller number).
	plant := []struct {
		version string
		hours   []int
		rates   []float64
	}{
		{"v8", []int{1, 2, 3}, []float64{50, 52, 51}},
		{"v10", []int{4, 20}, []float64{49, 47}}, // a second record much later
		{"v9", []int{10, 11, 12}, []float64{40, 41, 39}},
	}
	n := 0
	for _, p := range plant {
		for i, hr := range p.hours {
			n++
			h.add(fmt.Sprintf("u%02d", n), t0.Add(time.Duration(hr)*time.Hour), labels("version", p.version, "size", "64"),
				map[string]float64{"rate": p.rates[i]})
		}
	}
	rep := analyseWith(t, "mannwhitney", h, []regression.Run{run("cur", "c1", "v11", "64", 40)}, nil)
	r := result(t, rep, 1, "rate")
	if got := pointLabels(r.History); got != "v8=51 v10=48 v9=40" {
		t.Errorf("history points %s, want v8=51 v10=48 v9=40 (time order, medians)", got)
	}
	if want := t0.Add(4 * time.Hour); !r.History[1].Time.Equal(want) {
		t.Errorf("v10's point at %s, want its earliest record %s", r.History[1].Time, want)
	}
	// mannwhitney compares with the previous point in time (v9 = 40): no
	// change; by name the previous would be v9 too, so check the reference.
	if r.Result.Reference != 40 {
		t.Errorf("reference %v, want v9's median 40", r.Result.Reference)
	}
}

// TestSeriesKey: the series key leaves out comparison, ignored and meta
// keys, and a stored record with another label is another series.
func TestSeriesKey(t *testing.T) {
	t.Parallel()
	h := newHistory()
	h.add("a", t0, labels("version", "v1", "size", "64", "kernel", "5.10", "run_id", "17"), map[string]float64{"rate": 50})
	h.add("b", t0.Add(time.Hour), labels("version", "v2", "size", "64", "kernel", "6.1"), map[string]float64{"rate": 51})
	h.add("c", t0.Add(2*time.Hour), labels("version", "v2", "size", "64", "blas", "mkl"), map[string]float64{"rate": 90})
	h.add("d", t0.Add(3*time.Hour), labels("version", "v2", "size", "128"), map[string]float64{"rate": 10})
	rep := analyseWith(t, "threshold", h, []regression.Run{run("cur", "c1", "v3", "64", 50)}, nil)
	r := result(t, rep, 1, "rate")
	if got := pointLabels(r.History); got != "v1=50 v2=51" {
		t.Errorf("history %s, want v1=50 v2=51 (kernel and run_id ignored; blas=mkl and size=128 other series)", got)
	}
	if rep.History.Other != 1 || rep.History.Records != 2 {
		t.Errorf("history stats %+v, want 2 records kept and 1 of another series", rep.History)
	}
}

// TestCurrentRunsAndIgnoredEntriesLeftOut: a current run already stored is
// not its own history; ignored entries are skipped, current and stored.
func TestCurrentRunsAndIgnoredEntriesLeftOut(t *testing.T) {
	t.Parallel()
	h := newHistory()
	h.add("old", t0, labels("version", "v1", "size", "64"), map[string]float64{"rate": 50})
	h.add("bad", t0.Add(time.Hour), labels("version", "v1b", "size", "64"), map[string]float64{"rate": 5})
	h.add("c1", t0.Add(2*time.Hour), labels("version", "v2", "size", "64"), map[string]float64{"rate": 40})
	keys := piKeys
	keys.IgnoredEntries = []string{"test_uuid=bad", "size=4096"}
	rep := analyseWith(t, "threshold", h, []regression.Run{run("cur", "c1", "v2", "64", 40), run("big", "c2", "v2", "4096", 1)},
		func(o *regression.Options) { o.Keys = func(string) regression.Keys { return keys } })
	if len(rep.Entries) != 1 || fmt.Sprint(rep.Skipped) != "[big]" {
		t.Fatalf("entries %d, skipped %v; want 1 and [big]", len(rep.Entries), rep.Skipped)
	}
	r := result(t, rep, 1, "rate")
	if got := pointLabels(r.History); got != "v1=50" {
		t.Errorf("history %s, want v1=50 only", got)
	}
	if r.Status != analyze.StatusRegression || rep.History.Excluded != 1 || rep.History.Ignored != 1 {
		t.Errorf("status %s, stats %+v", r.Status, rep.History)
	}
}

// TestRepeatsAreOneEntry: runs of one matrix point are one entry whose
// point is their median; a run without the KPI is a warning.
func TestRepeatsAreOneEntry(t *testing.T) {
	t.Parallel()
	h := newHistory()
	for i, v := range []float64{50, 51, 49, 50} {
		h.add(fmt.Sprint("h", i), t0.Add(time.Duration(i)*time.Hour), labels("version", fmt.Sprint("v", i), "size", "64"), map[string]float64{"rate": v})
	}
	failed := run("r3", "c3", "v9", "64", 0)
	failed.Values, failed.Defs, failed.Problems = nil, nil, []string{"exit code 1: no KPIs for a failed run"}
	rep := analyseWith(t, "zscore", h, []regression.Run{run("r1", "c1", "v9", "64", 30), run("r2", "c2", "v9", "64", 32), failed}, nil)
	if len(rep.Entries) != 1 || len(rep.Entries[0].Runs) != 3 {
		t.Fatalf("%d entries; want the three runs in one", len(rep.Entries))
	}
	r := result(t, rep, 1, "rate")
	if r.Current.Value != 31 || r.Status != analyze.StatusRegression {
		t.Errorf("current %v, status %s; want the median 31, a regression", r.Current.Value, r.Status)
	}
	if !slices.ContainsFunc(r.Warnings, func(w analyze.Warning) bool { return strings.Contains(w.Msg, "1 of 3 current runs") }) {
		t.Errorf("warnings %v, want the run without the KPI", r.Warnings)
	}
}

// TestNoKPIAndNoHistory: an entry without any KPI is not analysed with its
// runs' problems as reason; a KPI without history is no-history; neither
// fails.
func TestNoKPIAndNoHistory(t *testing.T) {
	t.Parallel()
	failed := run("failed", "c1", "v1", "512", 0)
	failed.Values, failed.Defs, failed.Problems = map[string]float64{}, map[string]lts.KPIDef{}, []string{"exit code 1: no KPIs for a failed run"}
	noPayload := regression.Run{Path: "broken", Problems: []string{"incomplete run"}}
	rep := analyseWith(t, "edivisive", newHistory(), []regression.Run{failed, noPayload, run("new", "c2", "v1", "64", 50)}, nil)
	got := map[string]string{}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			got[e.Name+"/"+r.KPI] = string(r.Status) + ": " + r.Result.Reason
		}
	}
	want := map[string]string{
		"size=64/rate": "no-history: no history for this KPI",
		"size=512/":    "not-analyzed: no KPI: failed: exit code 1: no KPIs for a failed run",
		"broken/":      "not-analyzed: no KPI: broken: incomplete run",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("results\n got %v\nwant %v", got, want)
	}
	if rep.Failed() || rep.Summary.NoHistory != 1 || rep.Summary.NotAnalyzed != 2 {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// TestBatchedQueriesAgree: series that differ in one label are asked in
// one query, and the report is the one of a query per series.
func TestBatchedQueriesAgree(t *testing.T) {
	t.Parallel()
	h := newHistory()
	var runs []regression.Run
	for s, size := range []string{"64", "128", "256", "512", "1024"} {
		for i := range 6 {
			h.add(fmt.Sprintf("%s-%d", size, i), t0.Add(time.Duration(i*10+s)*time.Minute),
				labels("version", fmt.Sprint("v", i), "size", size), map[string]float64{"rate": 100 + float64(i%2)})
		}
		runs = append(runs, run("cur-"+size, "c"+size, "v9", size, 100-float64(5*s)))
	}
	// Another label set (a GPU run) is asked on its own.
	gpu := run("gpu", "g", "v9", "64", 100)
	gpu.Labels["device"] = "gpu"
	runs = append(runs, gpu)
	batched := newHistory(h.payloads...)
	perSeries := newHistory(h.payloads...)
	a := analyseWith(t, "zscore", batched, runs, nil)
	b := analyseWith(t, "zscore", perSeries, runs, func(o *regression.Options) { o.BatchValues = 1 })
	if len(batched.queries) != 2 || len(perSeries.queries) != 6 {
		t.Errorf("%d batched queries %v, %d per series; want 2 and 6", len(batched.queries), batched.queries, len(perSeries.queries))
	}
	if want := "[pi=matmul size=1024:128:256:512:64 workload=pi]"; fmt.Sprint(batched.queries[len(batched.queries)-1]) != want &&
		fmt.Sprint(batched.queries[0]) != want {
		t.Errorf("queries %v, want one with %s", batched.queries, want)
	}
	if describe(a) != describe(b) {
		t.Errorf("batched and per-series reports differ:\n%s\n%s", describe(a), describe(b))
	}
	// Entries follow the sorting key as numbers: 64 before 128.
	if names := entryNames(a); names != "size=64, size=64 device=gpu, size=128, size=256, size=512, size=1024" {
		t.Errorf("entry order: %s", names)
	}
}

func describe(rep *regression.Report) string {
	var b strings.Builder
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			fmt.Fprintf(&b, "%d %s %s %s %s %.3f\n", e.ID, e.Name, r.KPI, r.Status, pointLabels(r.History), r.Result.DeltaPercent)
		}
	}
	return b.String()
}

// TestAcks: an ack turns a matching regression into acknowledged, which
// does not fail; an unmatched ack is listed.
func TestAcks(t *testing.T) {
	t.Parallel()
	h := newHistory()
	for i := range 4 {
		h.add(fmt.Sprint("h", i), t0.Add(time.Duration(i)*time.Hour), labels("version", fmt.Sprint("v", i), "size", "64"),
			map[string]float64{"rate": 50, "latency": 10})
	}
	cur := run("cur", "c1", "v9", "64", 40)
	setKPI(&cur, "latency", models.KPIValue{Value: 12, Unit: "ms", LowerBetter: true})
	tests := []struct {
		name, acks string
		failing    int
		unused     int
	}{
		{"none", ``, 2, 0},
		{"by test_uuid, one kpi", `[{test_uuid: c1, kpi: rate, reason: known}]`, 1, 0},
		{"by comparison value", `[{comparison: v9, reason: new allocator}]`, 0, 0},
		{"by comparison labels", `[{comparison: {version: v9}, kpi: latency, reason: x}]`, 1, 0},
		{"other version", `[{comparison: v8, reason: x}, {test_uuid: c1, kpi: "*", reason: y}]`, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			acks, err := regression.ReadAcks("acks.yaml", []byte(tt.acks))
			if err != nil {
				t.Fatal(err)
			}
			rep := analyseWith(t, "threshold", newHistory(h.payloads...), []regression.Run{cur},
				func(o *regression.Options) { o.Acks = acks })
			if rep.Summary.Failing != tt.failing || len(rep.UnusedAcks) != tt.unused ||
				rep.Summary.Acknowledged != 2-tt.failing {
				t.Errorf("summary %+v, unused %v", rep.Summary, rep.UnusedAcks)
			}
		})
	}
}

// TestImprovementFailsOnlyWhenAsked.
func TestImprovementFailsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	h := newHistory()
	for i := range 4 {
		h.add(fmt.Sprint("h", i), t0.Add(time.Duration(i)*time.Hour), labels("version", fmt.Sprint("v", i), "size", "64"), map[string]float64{"rate": 50})
	}
	for _, fail := range []bool{false, true} {
		rep := analyseWith(t, "threshold", h, []regression.Run{run("cur", "c1", "v9", "64", 60)},
			func(o *regression.Options) { o.FailOnImprovement = fail })
		r := result(t, rep, 1, "rate")
		if r.Status != analyze.StatusImprovement || rep.Failed() != fail || math.Abs(r.Result.DeltaPercent-20) > 1e-9 {
			t.Errorf("fail-on-improvement %v: status %s, failed %v, delta %v", fail, r.Status, rep.Failed(), r.Result.DeltaPercent)
		}
	}
}

func TestReadAcksErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, err string }{
		{"not a list", "test_uuid: x", "acks.yaml:1: want a list"},
		{"no reason", "- test_uuid: x\n  kpi: rate\n", "acks.yaml:1: field [0].reason: missing"},
		{"names nothing", "- kpi: rate\n  reason: r\n", "acks.yaml:1: field [0]: names no run"},
		{"unknown key", "- test_uuid: x\n  reason: r\n  kpis: rate\n", "acks.yaml:3: field [0].kpis: unknown key"},
		{"syntax", "- {test_uuid: x", "acks.yaml:1:"},
		{"second item", "- {test_uuid: x, reason: r}\n- [1]\n", "acks.yaml:2: field [1]: want a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := regression.ReadAcks("acks.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
	data, err := os.ReadFile("testdata/acks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if acks, err := regression.ReadAcks("testdata/acks.yaml", data); err != nil || len(acks) != 3 || acks[2].KPI != "*" {
		t.Errorf("shipped example: %+v, %v", acks, err)
	}
	acks, err := regression.ReadAcks("acks.json", []byte(`[{"test_uuid": "u", "kpi": "rate_gflops", "reason": "known"}]`))
	if err != nil || len(acks) != 1 || acks[0].Source != "acks.json:1" || acks[0].KPI != "rate_gflops" {
		t.Errorf("JSON acks: %+v, %v", acks, err)
	}
}

// FuzzReadAcks: any ack file is read or refused with an error, never a
// panic, and every ack read names a run and a reason.
func FuzzReadAcks(f *testing.F) {
	seed, err := os.ReadFile("testdata/acks.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("- {test_uuid: x, kpi: rate, reason: known}\n- comparison: {framework_version: '2.1'}\n  reason: r\n"))
	f.Add([]byte(`[{"comparison": "1.26.4", "reason": "numpy 2 migration"}]`))
	f.Add([]byte("- [\n"))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		acks, err := regression.ReadAcks("f.yaml", data)
		if err != nil {
			return
		}
		for _, a := range acks {
			if a.Reason == "" || (a.TestUUID == "" && a.ComparisonValue == "" && len(a.Comparison) == 0) {
				t.Fatalf("ack without run or reason: %+v", a)
			}
		}
	})
}

// Keys the user set win over a workload's defaults key by key, an empty
// list included; ignored entries parse as label filters or are refused.
func TestKeys(t *testing.T) {
	t.Parallel()
	defaults := regression.Keys{ComparisonKeys: []string{"version"}, IgnoredKeys: []string{"kernel"}, SortingKeys: []string{"size"}}
	got := regression.Keys{IgnoredKeys: []string{}, SortingKeys: []string{"pi"}}.Or(defaults)
	if fmt.Sprint(got) != fmt.Sprint(regression.Keys{ComparisonKeys: []string{"version"}, IgnoredKeys: []string{}, SortingKeys: []string{"pi"}}) ||
		got.IgnoredKeys == nil {
		t.Errorf("Or = %#v", got)
	}
	fs, err := regression.Keys{IgnoredEntries: []string{"pi=import, backend=numpy:torch", "test_uuid=x"}}.Filters()
	if err != nil || len(fs) != 2 || fs[0].String() != "backend=numpy:torch,pi=import" {
		t.Fatalf("%v %v", fs, err)
	}
	for _, bad := range []string{"", "pi", "Pi=x"} {
		if _, err := (regression.Keys{IgnoredEntries: []string{bad}}).Filters(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A workload whose keys do not parse fails the analysis.
	m, _ := analyze.New("threshold", analyze.Params{})
	_, err = regression.Analyze(context.Background(), []regression.Run{run("cur", "c1", "v2", "64", 40)}, newHistory(),
		regression.Options{Method: m, Keys: func(string) regression.Keys { return regression.Keys{IgnoredEntries: []string{"Pi=x"}} }})
	if err == nil || !strings.Contains(err.Error(), "workload pi: ignored entries") {
		t.Errorf("Analyze with a bad ignored entry: %v", err)
	}
}

func entryNames(rep *regression.Report) string {
	var names []string
	for _, e := range rep.Entries {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}

// TestSameBuildIsNotHistory: stored runs of the current build at the
// current comparison value (uploaded before the analysis, or by a parallel
// job of the same CI run) are not history; the same build at another
// comparison value is, and so is every earlier build at the same value.
func TestSameBuildIsNotHistory(t *testing.T) {
	t.Parallel()
	h := newHistory()
	put := func(uuid, build, version string, hour int, rate float64) {
		p := &models.Payload{Metadata: models.Metadata{TestUUID: uuid, Start: t0.Add(time.Duration(hour) * time.Hour), Workload: "pi",
			Labels: labels("version", version, "size", "64"), Build: &models.Build{ID: build}},
			KPIs: map[string]models.KPIValue{"rate": {Value: rate, Unit: "GFLOPS"}}}
		if _, err := h.Put(context.Background(), []*models.Payload{p}); err != nil {
			t.Fatal(err)
		}
	}
	put("a1", "nightly-1", "v1", 1, 50)
	put("a2", "nightly-2", "v1", 2, 51)
	put("b1", "nightly-3", "v0", 3, 30)   // the current build, another version: history
	put("b2", "nightly-3", "v1", 4, 99)   // the current build and version: not history
	put("c1", "nightly-4", "v1", 500, 10) // a later build: not history
	cur := run("cur", "c9", "v1", "64", 50)
	cur.Build = &models.Build{ID: "nightly-3"}
	rep := analyseWith(t, "mannwhitney", h, []regression.Run{cur}, nil)
	r := result(t, rep, 1, "rate")
	if got := pointLabels(r.History); got != "v1=50 v1=51 v0=30" {
		t.Errorf("history %s, want v1=50 v1=51 v0=30", got)
	}
	if rep.History.SameBuild != 1 || rep.History.Later != 1 || rep.History.Builds != 3 {
		t.Errorf("history stats %+v", rep.History)
	}
}

// TestBusierHostIsNoisy: history at load 1.2-1.5 whose runs got 0.9 s of
// CPU a second; a current build 20% slower is a regression when its runs
// got as much CPU, more, or less at the history's load (the code waits),
// or say nothing, and noisy, naming shares and loads, when they got less
// on a busier host; an improvement on that busier host stands, and so does
// a slowdown larger than the lost CPU explains.
func TestBusierHostIsNoisy(t *testing.T) {
	t.Parallel()
	h := newHistory()
	for i := range 6 {
		h.add(fmt.Sprint("h", i), t0.Add(time.Duration(i)*time.Hour), labels("version", fmt.Sprint("v", i), "size", "64"), map[string]float64{"rate": 50})
		h.payloads[i].Metadata.HostStart = &models.HostState{LoadAvg: []float64{1.2 + 0.06*float64(i), 1, 1}}
		h.payloads[i].Metadata.CPUShare = 0.9
		if _, err := h.Put(context.Background(), h.payloads[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	at := func(load, share, rate float64) []regression.Run {
		var runs []regression.Run
		for k := range 3 {
			r := run(fmt.Sprint("cur", k), fmt.Sprint("c", k), "v9", "64", rate)
			if !math.IsNaN(load) {
				r.HostLoad = &load
			}
			r.CPUShare = share
			runs = append(runs, r)
		}
		return runs
	}
	for _, c := range []struct {
		load, share, rate float64
		want              analyze.Status
	}{
		{1.4, 0.88, 40, analyze.StatusRegression},
		{2.8, 0, 40, analyze.StatusRegression},
		{2.8, 0.88, 40, analyze.StatusRegression},
		{2.8, 0.6, 40, analyze.StatusNoisy},
		{math.NaN(), 0.6, 40, analyze.StatusRegression},
		{1.4, 0.6, 40, analyze.StatusRegression}, // less CPU at the history's load: the code waits
		{2.8, 0.6, 60, analyze.StatusImprovement},
		{0.2, 1, 40, analyze.StatusRegression},
		{2.8, 0.6, 10, analyze.StatusRegression}, // 5x slower: more than 1.5x less CPU explains
	} {
		rep := analyseWith(t, "threshold", h, at(c.load, c.share, c.rate), nil)
		r := result(t, rep, 1, "rate")
		if r.Status != c.want || rep.Failed() != (c.want == analyze.StatusRegression) {
			t.Errorf("rate %v at load %v, share %v: status %s (%s), failed %v; want %s", c.rate, c.load, c.share, r.Status, r.Reason(), rep.Failed(), c.want)
		}
		if c.want == analyze.StatusNoisy && (!strings.HasPrefix(r.Reason(), analyze.HostReason) || !strings.Contains(r.Reason(), "got 0.60 s of CPU a second, the builds judged against 0.90")) {
			t.Errorf("rate %v at load %v: reason %q", c.rate, c.load, r.Reason())
		}
	}
}

// TestBusierHostByPressure: where the history and the current runs count
// the CPU pressure, it decides in place of the load: a current build 20%
// slower with less CPU is noisy when some task waited for a CPU most of
// its time, though its load at start is the history's (a busy phase the
// load average has not caught up with), and a regression when the
// pressure is the history's, though the load is higher (niced work).
func TestBusierHostByPressure(t *testing.T) {
	t.Parallel()
	h := newHistory()
	for i := range 6 {
		h.add(fmt.Sprint("h", i), t0.Add(time.Duration(i)*time.Hour), labels("version", fmt.Sprint("v", i), "size", "64"), map[string]float64{"rate": 50})
		h.payloads[i].Metadata.HostStart = &models.HostState{LoadAvg: []float64{1.3, 1, 1}}
		h.payloads[i].Metadata.CPUShare = 0.9
		h.payloads[i].Metadata.CPUPressure = new(0.1)
		if _, err := h.Put(context.Background(), h.payloads[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		load, pressure float64
		want           analyze.Status
	}{
		{1.3, 0.9, analyze.StatusNoisy},
		{2.8, 0.15, analyze.StatusRegression},
	} {
		var runs []regression.Run
		for k := range 3 {
			r := run(fmt.Sprint("cur", k), fmt.Sprint("c", k), "v9", "64", 40)
			r.HostLoad, r.CPUShare, r.CPUPressure = new(c.load), 0.6, new(c.pressure)
			runs = append(runs, r)
		}
		rep := analyseWith(t, "threshold", h, runs, nil)
		r := result(t, rep, 1, "rate")
		if r.Status != c.want {
			t.Errorf("load %v, pressure %v: status %s (%s); want %s", c.load, c.pressure, r.Status, r.Reason(), c.want)
		}
		if c.want == analyze.StatusNoisy && !strings.Contains(r.Reason(), "some task waited for a CPU 90% of their time, 10% in the history") {
			t.Errorf("reason %q", r.Reason())
		}
	}
}
