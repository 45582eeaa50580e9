package workloads

import "github.com/seshat-bench/seshat/analyze/regression"

// RegressionDefaults is the ability of a workload to declare its default
// regression keys (regression.Keys: comparison, ignored and sorting keys,
// ignored entries; every name a KPI label); seshat.yaml
// (regression_analyses), the environment and the flags override them key
// by key (regression.Keys.Or).
type RegressionDefaults interface {
	Workload
	RegressionKeys() regression.Keys
}
