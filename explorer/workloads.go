package explorer

import (
	"slices"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/workloads"
)

// Registered describes a workload of the registry (workloads.Get): its
// regression keys, which say what a series is, and its KPIs, the main one
// first (workloads.MainKPIProvider), then those regression analysis
// judges, then the others, each by name; and whether its results hold
// per-iteration samples (workloads.SampleProvider). It is what `seshat
// serve` passes as Options.Workloads.
func Registered(name string) (Workload, bool) {
	w, ok := workloads.Get(name)
	if !ok {
		return Workload{}, false
	}
	var out Workload
	_, out.Samples = w.(workloads.SampleProvider)
	if r, ok := w.(workloads.RegressionDefaults); ok {
		out.Keys = r.RegressionKeys()
	}
	p, ok := w.(workloads.KPIProvider)
	if !ok {
		return out, true
	}
	main := ""
	if m, ok := w.(workloads.MainKPIProvider); ok {
		main = m.MainKPI()
	}
	defs := p.KPIs().Definitions()
	slices.SortStableFunc(defs, func(a, b kpi.Definition) int {
		rank := func(d kpi.Definition) int {
			switch {
			case d.Name == main:
				return 0
			case !d.IgnoredForRegression:
				return 1
			}
			return 2
		}
		return rank(a) - rank(b)
	})
	for _, d := range defs {
		out.KPIs = append(out.KPIs, d.Name)
	}
	return out, true
}
