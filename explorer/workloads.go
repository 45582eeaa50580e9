package explorer

import (
	"slices"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/workloads"
)

// Registered describes the workloads of r, as `seshat serve` passes them as
// Options.Workloads.
func Registered(r *workloads.Registry) func(name string) (Workload, bool) {
	return func(name string) (Workload, bool) {
		w, ok := r.Get(name)
		if !ok {
			return Workload{}, false
		}
		return describe(w), true
	}
}

// describe says what the explorer needs of a workload: its regression
// keys, which say what a series is, and its KPIs, the main one first
// (workloads.MainKPIProvider), then those regression analysis judges, then
// the others, each by name; and whether its results hold per-iteration
// samples (workloads.SampleProvider).
func describe(w workloads.Workload) Workload {
	var out Workload
	_, out.Samples = w.(workloads.SampleProvider)
	if r, ok := w.(workloads.RegressionDefaults); ok {
		out.Keys = r.RegressionKeys()
	}
	p, ok := w.(workloads.KPIProvider)
	if !ok {
		return out
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
	return out
}
