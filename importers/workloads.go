package importers

import (
	"embed"

	"github.com/seshat-bench/seshat/workloads/declared"
)

// The workload files that read imported runs, embedded in the binary.
//
//go:embed workloads/*.yaml
var workloadFiles embed.FS

func init() {
	for _, name := range []string{"gobench", "pytest_benchmark", "mlperf", "google_benchmark", "hyperfine", "criterion", "asv", "jmh"} {
		path := "workloads/" + name + ".yaml"
		data, err := workloadFiles.ReadFile(path)
		if err != nil {
			panic(err)
		}
		declared.RegisterBuiltin(name, "importers/"+path, data)
	}
}

// WorkloadFile returns the embedded workload file of a format's runs.
func WorkloadFile(workload string) ([]byte, error) {
	return workloadFiles.ReadFile("workloads/" + workload + ".yaml")
}
