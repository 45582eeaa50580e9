// Package workloads holds the Workload interface and the Registry of
// workloads. A workload package (workloads/pi) registers itself among the
// built-in workloads in init; registering a name twice panics, as it is a
// programming error. A command starts from Builtin and adds the workload
// files it is given or finds with Registry.With, which returns a new
// registry: nothing global changes while a command runs.
//
// The core interface is what the store needs to parse (store.Parser);
// further abilities (KPIs, plots, running PIs, regression defaults) are small
// separate interfaces a workload may implement, found with type assertions.
package workloads
