package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCollect: builds ordered by their first run, values the median of
// the runs, a TP label where the work changes (regression when it grows),
// failed runs left out.
func TestCollect(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var payloads []map[string]any
	add := func(build int, rep int, work float64, value float64, exit int) {
		start := t0.Add(time.Duration(build)*time.Minute + time.Duration(rep)*time.Second)
		payloads = append(payloads, map[string]any{
			"metadata": map[string]any{
				"lts_schema_version": "1.0", "test_uuid": fmt.Sprintf("u-%d-%d", build, rep),
				"start": start, "end": start.Add(time.Second), "exit_code": exit, "workload": "pi",
				"settings": map[string]any{"series": "s", "work": work, "pi": "exec"},
				"labels":   map[string]string{"dtype": "float64"},
				"build":    map[string]any{"id": fmt.Sprintf("host-%02d", build), "time": t0},
			},
			"results": map[string]any{"pi": map[string]any{"name": "PiHostWork", "component": "numpy"}},
			"kpis":    map[string]any{"elapsed_ms": map[string]any{"value": value, "unit": "ms", "lower_better": true}},
		})
	}
	works := []float64{100, 100, 120, 120, 110}
	for b := len(works) - 1; b >= 0; b-- { // out of order on purpose
		add(b+1, 0, works[b], works[b]/10+1, 0)
		add(b+1, 1, works[b], works[b]/10, 0)
		add(b+1, 2, works[b], works[b]/10-1, 0)
		add(b+1, 3, works[b], 1000, 1) // failed: left out
	}
	data, err := json.Marshal(payloads)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "lts.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := collect([]string{file}, "elapsed_ms", "this-host", "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Series) != 1 {
		t.Fatalf("%d series, want 1", len(f.Series))
	}
	s := f.Series[0]
	if want := []string{"host-01", "host-02", "host-03", "host-04", "host-05"}; !slices.Equal(s.Revisions, want) {
		t.Errorf("revisions %v, want %v", s.Revisions, want)
	}
	if want := []float64{10, 10, 12, 12, 11}; !slices.Equal(s.Values, want) {
		t.Errorf("values %v, want %v", s.Values, want)
	}
	if want := []float64{11, 10, 9}; !slices.Equal(s.Samples[0], want) {
		t.Errorf("samples[0] %v, want %v", s.Samples[0], want)
	}
	if want := []label{{Index: 2, Status: "TP", IsRegression: true}, {Index: 4, Status: "TP", IsRegression: false}}; !slices.Equal(s.Labels, want) {
		t.Errorf("labels %v, want %v", s.Labels, want)
	}
	if s.Test != "PiHostWork numpy float64" || s.Suite != "seshat-pi-exec" || s.Unit != "ms" || !s.LowerBetter {
		t.Errorf("test %q suite %q unit %q lower %v", s.Test, s.Suite, s.Unit, s.LowerBetter)
	}
	if s.Times[0] != "2026-01-01T00:01:00Z" {
		t.Errorf("times[0] %s, want the first run's start", s.Times[0])
	}
}
