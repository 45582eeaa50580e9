package pi_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// storedPayloads are pi payloads as a store gives them back: their results
// JSON, not pi's types.
func storedPayloads(t testing.TB, n int) []*models.Payload {
	t.Helper()
	ps := pitest.Payloads(n, ltstest.Options{Series: 3, Samples: 5, Seed: 7})
	for _, p := range ps {
		data, err := json.Marshal(p.Results)
		if err != nil {
			t.Fatal(err)
		}
		raw := json.RawMessage(data)
		p.Results = &raw
	}
	return ps
}

// TestKPISamplesStored: a stored run gives the samples of its results as
// pi's own results do; a KPI without samples, results without pi.json's
// @result or not JSON give none.
func TestKPISamplesStored(t *testing.T) {
	t.Parallel()
	for _, p := range storedPayloads(t, 3) {
		var decoded pi.PayloadResults
		if err := json.Unmarshal(*p.Results.(*json.RawMessage), &decoded); err != nil {
			t.Fatal(err)
		}
		own := &models.Payload{Metadata: p.Metadata, KPIs: p.KPIs, Results: &decoded}
		for _, kpi := range []string{"elapsed_ms", "rate_gflops"} {
			got, want := pi.Workload{}.KPISamples(p, kpi), pi.Workload{}.KPISamples(own, kpi)
			if len(got) != 5 || !slices.Equal(got, want) {
				t.Errorf("%s: stored %v, decoded %v", kpi, got, want)
			}
		}
		if got := (pi.Workload{}).KPISamples(p, "gflops_per_core"); got != nil {
			t.Errorf("a KPI without samples: %v", got)
		}
	}
	for _, results := range []string{`{}`, `{"hwinfo": {}}`, `{"pi": null}`, `{"pi": {"@result": 3}}`, `[1]`, `{"pi"`, `"pi"`, ``} {
		raw := json.RawMessage(results)
		p := &models.Payload{Results: &raw}
		if got := (pi.Workload{}).KPISamples(p, "elapsed_ms"); got != nil {
			t.Errorf("results %s: samples %v", results, got)
		}
	}
}

// FuzzStoredSamples: stored results of any shape give samples or none,
// never a panic; the samples are those json.Unmarshal finds.
func FuzzStoredSamples(f *testing.F) {
	for _, p := range storedPayloads(f, 2) {
		f.Add([]byte(*p.Results.(*json.RawMessage)))
	}
	f.Add([]byte(`{"hwinfo": {}, "pi": {"@result": {"samples_ms": [1, 2]}}}`))
	f.Add([]byte(`{"pi": {"@result": {"samples_ms": [1, -2]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := json.RawMessage(data)
		got := pi.Workload{}.KPISamples(&models.Payload{Results: &raw}, "elapsed_ms")
		var r struct {
			PI *struct {
				Result models.PIMeasurement `json:"@result"`
			} `json:"pi"`
		}
		if json.Unmarshal(data, &r) == nil && r.PI != nil && got != nil && len(got) != len(r.PI.Result.SamplesMs) {
			t.Errorf("%d samples, json.Unmarshal finds %d", len(got), len(r.PI.Result.SamplesMs))
		}
	})
}

// BenchmarkStoredSamples: the samples of both KPIs of a stored run, as
// seshat serve takes them from each run of a comparison.
func BenchmarkStoredSamples(b *testing.B) {
	ps := storedPayloads(b, 100)
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		i++
		if (pi.Workload{}).KPISamples(p, "elapsed_ms") == nil || (pi.Workload{}).KPISamples(p, "rate_gflops") == nil {
			b.Fatal("no samples")
		}
	}
}
