// Package workloads holds the Workload interface and the registry of
// workloads. A workload package (workloads/pi) registers itself in init;
// registering a name twice panics, as it is a programming error.
//
// The core interface is what the store needs to parse (store.Parser);
// further abilities (KPIs, plots, running PIs, regression defaults) are small
// separate interfaces a workload may implement, found with type assertions.
package workloads
