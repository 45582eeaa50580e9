package dashboards_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/dashboards"
	"github.com/seshat-bench/seshat/workloads"
	_ "github.com/seshat-bench/seshat/workloads/pi"
)

type kpiLabel = kpi.Label

// registered are the workloads with KPIs in this test binary: pi and toy.
func registered(t *testing.T) []lts.Workload {
	t.Helper()
	var ws []lts.Workload
	for _, p := range workloads.Builtin().KPIProviders() {
		ws = append(ws, p)
	}
	if len(ws) < 2 {
		t.Fatalf("want pi and toy registered, have %d workloads", len(ws))
	}
	return ws
}

// object is a line of the NDJSON file, decoded generically so the test
// checks the wire format rather than the Go types that wrote it.
type object struct {
	Type             string                     `json:"type"`
	ID               string                     `json:"id"`
	Attributes       map[string]json.RawMessage `json:"attributes"`
	References       []dashboards.Reference     `json:"references"`
	MigrationVersion map[string]string          `json:"migrationVersion"`
}

func (o object) attr(t *testing.T, name string) string {
	t.Helper()
	raw, ok := o.Attributes[name]
	if !ok {
		t.Fatalf("%s %s: no attribute %s", o.Type, o.ID, name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s %s: attribute %s is not a string: %v", o.Type, o.ID, name, err)
	}
	return s
}

// decodeJSONString decodes an attribute that holds JSON as a string.
func decodeJSONString(t *testing.T, o object, name string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(o.attr(t, name)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s %s: %s does not decode: %v", o.Type, o.ID, name, err)
	}
}

func build(t *testing.T, ws []lts.Workload, o dashboards.Options) ([]object, []string) {
	t.Helper()
	objs, warnings, err := dashboards.Build(ws, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dashboards.Write(&buf, objs); err != nil {
		t.Fatal(err)
	}
	var out []object
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var o object
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("line %d: %v\n%s", line, err, sc.Text())
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, warnings
}

// TestStructure checks what the import API needs of every object, and that
// every KPI of every workload has its chart on its workload's dashboard.
func TestStructure(t *testing.T) {
	t.Parallel()
	ws := registered(t)
	index := lts.IndexNames{Prefix: "ci-", Index: "perf", KPISuffix: "-k"}
	objs, _ := build(t, ws, dashboards.Options{Index: index, ComparisonKeys: []string{"framework_version", "device"}})

	byRef := map[dashboards.Reference]object{}
	for _, o := range objs {
		key := dashboards.Reference{Type: o.Type, ID: o.ID}
		if _, dup := byRef[key]; dup {
			t.Errorf("%s %s appears twice", o.Type, o.ID)
		}
		byRef[key] = o
		if o.MigrationVersion[o.Type] == "" || len(o.MigrationVersion) != 1 {
			t.Errorf("%s %s: migrationVersion %v, want the type's version only", o.Type, o.ID, o.MigrationVersion)
		}
		if o.References == nil {
			t.Errorf("%s %s: references absent, want an array", o.Type, o.ID)
		}
		for _, r := range o.References {
			if _, ok := byRef[dashboards.Reference{Type: r.Type, ID: r.ID}]; !ok {
				t.Errorf("%s %s: reference %s to %s %s, not an earlier object of the file", o.Type, o.ID, r.Name, r.Type, r.ID)
			}
		}
	}

	patterns := map[string]string{}
	for _, o := range objs {
		if o.Type == dashboards.TypeIndexPattern {
			patterns[o.attr(t, "title")] = o.attr(t, "timeFieldName")
		}
	}
	want := map[string]string{"ci-perf": "metadata.start", "ci-perf-k": "@timestamp"}
	if fmt.Sprint(patterns) != fmt.Sprint(want) {
		t.Errorf("index patterns (title: time field) %v, want %v", patterns, want)
	}

	for _, w := range ws {
		var dash object
		for _, o := range objs {
			if o.Type == dashboards.TypeDashboard && o.ID == dashboards.DashboardID("ci-perf-k", w.Name()) {
				dash = o
			}
		}
		if dash.ID == "" {
			t.Fatalf("workload %s: no dashboard", w.Name())
		}
		var panels []dashboards.Panel
		decodeJSONString(t, dash, "panelsJSON", &panels)
		panelVis := map[string]string{} // visualization id -> panel
		refs := map[string]dashboards.Reference{}
		for _, r := range dash.References {
			refs[r.Name] = r
		}
		for _, p := range panels {
			r, ok := refs[p.PanelRefName]
			if !ok || r.Type != dashboards.TypeVisualization {
				t.Errorf("dashboard %s: panel %s refers to %q, not a visualization reference", dash.ID, p.PanelIndex, p.PanelRefName)
			}
			panelVis[r.ID] = p.PanelIndex
		}
		if len(panels) != len(dash.References) {
			t.Errorf("dashboard %s: %d panels, %d references", dash.ID, len(panels), len(dash.References))
		}

		defs := w.KPIs().Definitions()
		for _, d := range defs {
			id := dashboards.VisualizationID("ci-perf-k", w.Name(), d.Name)
			vis, ok := byRef[dashboards.Reference{Type: dashboards.TypeVisualization, ID: id}]
			if !ok {
				t.Errorf("workload %s: kpi %s has no visualization %s", w.Name(), d.Name, id)
				continue
			}
			if _, ok := panelVis[id]; !ok {
				t.Errorf("workload %s: kpi %s is not on the dashboard", w.Name(), d.Name)
			}
			checkVisualization(t, vis, w.Name(), d.Name, w.KPIs().Labels())
		}
	}
}

func checkVisualization(t *testing.T, vis object, workload, kpiName string, labels []kpiLabel) {
	t.Helper()
	var state dashboards.VisState
	decodeJSONString(t, vis, "visState", &state)
	if state.Type != "line" || state.Title != vis.attr(t, "title") {
		t.Errorf("%s: visState type %q title %q", vis.ID, state.Type, state.Title)
	}
	bySchema := map[string][]dashboards.Agg{}
	for _, a := range state.Aggs {
		bySchema[a.Schema] = append(bySchema[a.Schema], a)
	}
	if m := bySchema["metric"]; len(m) != 1 || m[0].Type != "median" || m[0].Params["field"] != "value" {
		t.Errorf("%s: y axis %+v, want the median of value", vis.ID, m)
	}
	if x := bySchema["segment"]; len(x) != 1 || x[0].Type != "date_histogram" || x[0].Params["field"] != "@timestamp" {
		t.Errorf("%s: x axis %+v, want a date histogram of @timestamp", vis.ID, x)
	}
	var split []string
	for _, g := range bySchema["group"] {
		if g.Type != "terms" {
			t.Errorf("%s: split series by %s, want terms", vis.ID, g.Type)
		}
		split = append(split, fmt.Sprint(g.Params["field"]))
	}
	var want []string
	for _, k := range []string{"framework_version", "device"} {
		if slices.ContainsFunc(labels, func(l kpiLabel) bool { return l.Name == k }) {
			want = append(want, k)
		}
	}
	if !slices.Equal(split, want) {
		t.Errorf("%s: split by %v, want the declared comparison keys %v", vis.ID, split, want)
	}

	var meta struct {
		SearchSourceJSON string `json:"searchSourceJSON"`
	}
	if err := json.Unmarshal(vis.Attributes["kibanaSavedObjectMeta"], &meta); err != nil {
		t.Fatalf("%s: kibanaSavedObjectMeta: %v", vis.ID, err)
	}
	var src dashboards.SearchSource
	if err := json.Unmarshal([]byte(meta.SearchSourceJSON), &src); err != nil {
		t.Fatalf("%s: searchSourceJSON: %v", vis.ID, err)
	}
	wantQuery := fmt.Sprintf(`workload:"%s" and kpi:"%s"`, workload, kpiName)
	if src.Query.Query != wantQuery || src.Query.Language != "kuery" {
		t.Errorf("%s: query %+v, want DQL %s", vis.ID, src.Query, wantQuery)
	}
	if len(vis.References) != 1 || vis.References[0].Name != src.IndexRefName ||
		vis.References[0].Type != dashboards.TypeIndexPattern || vis.References[0].ID != dashboards.IndexPatternID("ci-perf-k") {
		t.Errorf("%s: indexRefName %q, references %+v: want the KPI index pattern", vis.ID, src.IndexRefName, vis.References)
	}
}

// TestWarnings: a comparison key a workload does not declare leaves its
// charts unsplit and says so, naming the workload.
func TestWarnings(t *testing.T) {
	t.Parallel()
	_, warnings := build(t, registered(t), dashboards.Options{ComparisonKeys: []string{"framework_version"}})
	want := []string{"workload toy has no label framework_version: its charts are not split by it"}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

// TestDeterministic: the same input gives the same bytes, whatever order
// the workloads come in, so that a re-import overwrites the same ids.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	ws := registered(t)
	write := func(ws []lts.Workload) string {
		objs, _, err := dashboards.Build(ws, dashboards.Options{ComparisonKeys: []string{"framework_version"}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := dashboards.Write(&buf, objs); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	first := write(ws)
	slices.Reverse(ws)
	if second := write(ws); first != second {
		t.Error("output depends on the workloads' order")
	}
}

// TestDefaults: default index names and no split.
func TestDefaults(t *testing.T) {
	t.Parallel()
	objs, warnings := build(t, []lts.Workload{workloadtest.Toy{}}, dashboards.Options{})
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	var ids []string
	for _, o := range objs {
		ids = append(ids, o.Type+" "+o.ID)
	}
	want := []string{
		"index-pattern seshat-index-pattern-seshat",
		"index-pattern seshat-index-pattern-seshat-kpis",
		"visualization seshat-kpi-seshat-kpis-toy-elapsed_ms",
		"visualization seshat-kpi-seshat-kpis-toy-wall_seconds",
		"dashboard seshat-dashboard-seshat-kpis-toy",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("objects\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
	var dash struct {
		TimeRestore bool   `json:"timeRestore"`
		TimeFrom    string `json:"timeFrom"`
		TimeTo      string `json:"timeTo"`
	}
	raw, _ := json.Marshal(objs[4].Attributes)
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	if !dash.TimeRestore || dash.TimeFrom != dashboards.DefaultTimeFrom || dash.TimeTo != "now" {
		t.Errorf("dashboard time %+v", dash)
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    dashboards.Options
		want string
	}{
		{"too many keys", dashboards.Options{ComparisonKeys: []string{"a", "b", "c", "d"}}, "at most 3"},
		{"reserved field", dashboards.Options{ComparisonKeys: []string{"value"}}, `comparison key "value": a field of every KPI document`},
		{"not snake case", dashboards.Options{ComparisonKeys: []string{"Framework"}}, `comparison key "Framework": labels are snake_case`},
		{"twice", dashboards.Options{ComparisonKeys: []string{"device", "device"}}, `comparison key "device" given twice`},
		{"upper-case index", dashboards.Options{Index: lts.IndexNames{Index: "Perf"}}, `index "Perf": OpenSearch index names are lowercase`},
		{"bad prefix", dashboards.Options{Index: lts.IndexNames{Prefix: "_x"}}, `index "_xseshat": OpenSearch index names do not start`},
		{"wildcard", dashboards.Options{Index: lts.IndexNames{KPISuffix: "*"}}, `index "seshat*": OpenSearch index names hold none`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := dashboards.Build([]lts.Workload{workloadtest.Toy{}}, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
