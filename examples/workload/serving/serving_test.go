package serving_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/examples/workload/serving"
	"github.com/seshat-bench/seshat/internal/fuzzing"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/dashboards"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// FuzzReport feeds any report.json to the whole parse: whatever its
// content, the run is one entry, nothing panics, and a report that fails
// to decode is a warning naming the file.
func FuzzReport(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "report.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"throughput_rps": "fast"}`))
	f.Add([]byte(`{"latency_ms": [`))
	f.Add([]byte{0xff, 0xfe, 0})
	// One run directory per process (a process runs one input at a time):
	// only report.json changes, and the parse cache is off so that every
	// input is parsed.
	results := fuzzing.TempDir(f)
	dir := filepath.Join(results, "run")
	if err := writeRun(dir, "workload: serving\nmodel: m\ndevice: cpu\n", "", 0); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := store.Load(context.Background(), store.Options{ResultsDir: results, Lookup: workloads.Builtin().Lookup, NoCache: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		records := lts.BuildAll(m, lookup, lts.Options{})
		if len(records) != 1 || records[0].Payload == nil {
			t.Fatalf("want one payload, got %+v", records)
		}
		_ = lts.ValidateAll(records) // may refuse, must not panic
	})
}

// TestSeshatUsesIt: once registered, the workload's payloads have a JSON
// Schema and its KPIs get OpenSearch Dashboards charts, with no change to
// Seshat.
func TestSeshatUsesIt(t *testing.T) {
	t.Parallel()
	ws := []lts.Workload{serving.Workload{}}
	if err := lts.WriteSchema(io.Discard, ws); err != nil {
		t.Fatal(err)
	}
	objs, warnings, err := dashboards.Build(ws, dashboards.Options{ComparisonKeys: []string{"server_version"}})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("dashboards: %v %v", err, warnings)
	}
	var charts []string
	for _, o := range objs {
		if o.Type == dashboards.TypeVisualization {
			charts = append(charts, o.ID)
		}
	}
	want := "seshat-kpi-seshat-kpis-serving-latency_p50_ms seshat-kpi-seshat-kpis-serving-latency_p99_ms seshat-kpi-seshat-kpis-serving-throughput_rps"
	if got := strings.Join(charts, " "); got != want {
		t.Errorf("charts %s, want %s", got, want)
	}
}
