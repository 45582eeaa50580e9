package workloads

import "github.com/seshat-bench/seshat/models"

// SampleProvider is the ability of a workload to give the per-iteration
// samples behind a KPI value of a run (the timed repetitions whose median
// the value is), in the KPI's unit, so that a comparison can use every
// sample and not only the run's summary (`seshat compare`). p.Results is
// the workload's typed results (a parse, an LTS file) or the stored JSON
// (*json.RawMessage, a store). Nil when the KPI has no samples, or the
// run did not record them.
type SampleProvider interface {
	KPISamples(p *models.Payload, kpi string) []float64
}
