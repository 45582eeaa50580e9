package pi

import (
	"bytes"
	"encoding/json"

	"github.com/seshat-bench/seshat/models"
)

// KPISamples implements workloads.SampleProvider: pi.json's samples_ms
// behind elapsed_ms, import_seconds (in seconds) and rate_gflops (each
// sample's rate, FLOPs over its time, as the PI computes its rate from the
// median time). The other KPIs are one value a run.
func (Workload) KPISamples(p *models.Payload, kpi string) []float64 {
	// The KPI first: stored results are decoded only for one with samples.
	switch kpi {
	case "elapsed_ms", "rate_gflops":
	case "import_seconds":
		if p.Metadata.Labels["pi"] != "import" {
			return nil
		}
	default:
		return nil
	}
	var m *models.PIMeasurement
	switch r := p.Results.(type) {
	case *PayloadResults:
		if r != nil && r.PI != nil {
			m = &r.PI.Result
		}
	case *json.RawMessage:
		if r != nil {
			m = storedMeasurement(*r)
		}
	case json.RawMessage:
		m = storedMeasurement(r)
	}
	if m == nil || len(m.SamplesMs) == 0 {
		return nil
	}
	conv := func(f func(ms float64) float64) []float64 {
		out := make([]float64, len(m.SamplesMs))
		for i, ms := range m.SamplesMs {
			if !(ms > 0) {
				return nil // a sample no measurement can have: the value alone
			}
			out[i] = f(ms)
		}
		return out
	}
	switch kpi {
	case "elapsed_ms":
		return conv(func(ms float64) float64 { return ms })
	case "import_seconds":
		return conv(func(ms float64) float64 { return ms / 1000 })
	case "rate_gflops":
		if m.FLOPs == nil || !(*m.FLOPs > 0) || m.Rate == nil {
			return nil
		}
		flops := *m.FLOPs
		return conv(func(ms float64) float64 { return flops / (ms * 1e6) }) // FLOP per ms -> GFLOPS
	}
	return nil
}

// storedMeasurement decodes pi.json's @result from a stored payload's
// results; nil when they hold none. The results are read as a stream up to
// the "pi" object (stored first: PayloadResults' order), so the host
// information after it (most of the bytes) is neither checked nor
// decoded: seshat serve comparing two 5,000-run builds on their samples
// decodes 20,000 (BenchmarkStoredSamples, both KPIs of a run: 51-60 ->
// 19-31 µs at a load of 4.5).
func storedMeasurement(data json.RawMessage) *models.PIMeasurement {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		if t != "pi" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var pi *struct {
			Result models.PIMeasurement `json:"@result"`
		}
		if dec.Decode(&pi) != nil || pi == nil {
			return nil
		}
		return &pi.Result
	}
	return nil
}
