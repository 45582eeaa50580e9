package workloads

import (
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// KPIProvider is the ability of a workload to turn its parsed entries into
// LTS payloads with KPIs. Package lts uses it (as lts.Workload, the same
// method set) for `parse --output-lts`, `kpis` and `schema`.
type KPIProvider interface {
	Workload
	// KPIs declares the workload's KPI definitions and labels model (with
	// its kpi_settings_version); built with kpi.MustCatalog so that a bad
	// declaration panics when the workload registers.
	KPIs() *kpi.Catalog
	// FillPayload sets what only the workload knows from an entry's typed
	// results (e.Results, nil when the entry failed to parse): the run's
	// test_uuid, start and end, its labels, extra urls, and p.Results, the
	// typed results to store. Missing data stays absent with a warning:
	// payloads are built leniently and validated strictly only when written.
	FillPayload(e *store.Entry, p *models.Payload) (warnings []string)
	// PayloadResults returns a zero value of the type FillPayload stores in
	// p.Results, for the payload's JSON Schema.
	PayloadResults() any
}

// KPIProviders returns the workloads of r that produce payloads, sorted by
// name.
func (r *Registry) KPIProviders() []KPIProvider {
	var out []KPIProvider
	for _, name := range r.Names() {
		w, _ := r.Get(name)
		if p, ok := w.(KPIProvider); ok {
			out = append(out, p)
		}
	}
	return out
}

// MainKPIProvider is the ability of a workload to name its main KPI: the
// one a person looks at first (the sparkline of `seshat serve`'s series
// list). Without it, the first KPI by name that regression analysis
// judges is the main one.
type MainKPIProvider interface {
	KPIProvider
	MainKPI() string
}
