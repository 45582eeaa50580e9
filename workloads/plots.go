package workloads

import "github.com/seshat-bench/seshat/plotting"

// PlotProvider is the ability of a workload to draw its entries: reports and
// plots for `seshat visualize`, in a registry filled once when the workload
// registers (a duplicate name panics there).
type PlotProvider interface {
	Workload
	Plots() *plotting.Registry
}

// PlotProviders returns the workloads of r that draw, sorted by name.
func (r *Registry) PlotProviders() []PlotProvider {
	var out []PlotProvider
	for _, name := range r.Names() {
		w, _ := r.Get(name)
		if p, ok := w.(PlotProvider); ok {
			out = append(out, p)
		}
	}
	return out
}
