package pi

import (
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/workloads"
)

// RegressionKeys implements workloads.RegressionDefaults.
//
// A pi history follows one PI on one machine shape over the software stacks
// it ran on. The stack is what a release changes, so its labels are the
// comparison keys: framework_version (gonum's carries the Go version),
// blas, cuda_version and os (the base image). Each distinct stack is one
// point of the history, the median of its runs, and a new stack that is
// slower is the regression to report. Everything else that identifies the
// work (pi, backend, framework, device, dtype, the shape labels, cpu_model,
// gpu_model, kpi_settings_version) keeps histories apart: a 512 matmul is
// never compared with a 1024 one, nor a Xeon with an EPYC, nor KPIs
// computed by different definitions.
//
// The kernel release is ignored: CI hosts are patched under the runs, and
// splitting histories at every patch would leave each new kernel without
// history, hiding the regressions the analysis is for.
func (Workload) RegressionKeys() regression.Keys {
	return regression.Keys{
		ComparisonKeys: []string{"framework_version", "blas", "cuda_version", "os"},
		IgnoredKeys:    []string{"kernel"},
		SortingKeys:    []string{"pi", "backend", "device", "dtype", "matrix_size", "batch"},
	}
}

var (
	_ workloads.RegressionDefaults = Workload{}
	_ workloads.MainKPIProvider    = Workload{}
)
