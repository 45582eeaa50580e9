package pi

import "github.com/seshat-bench/seshat/workloads"

// Name is the workload's name, the value of the `workload` setting.
const Name = "pi"

// Workload is the pi workload. Its abilities live in files of their own:
// parsing (parse.go), running PIs (run.go), KPIs, plots.
type Workload struct{}

func init() { workloads.Register(Workload{}) }

// Name implements store.Parser.
func (Workload) Name() string { return Name }
