package workloads

import "github.com/seshat-bench/seshat/workloads/runnable"

// The run side of a workload lives in package runnable, which the runner
// imports without the parse side; these names keep it one type.
type (
	Runner         = runnable.Runner
	RunRequest     = runnable.RunRequest
	SettingKeyer   = runnable.SettingKeyer
	Resourcer      = runnable.Resourcer
	SettingsReader = runnable.SettingsReader
	UsageReporter  = runnable.UsageReporter
)

// EnvName is runnable.EnvName: the environment variable a setting is
// exported to a run's child as.
func EnvName(key string) string { return runnable.EnvName(key) }

// ReportFD is runnable.ReportFD: the file descriptor a UsageReporter's
// child reports on.
const ReportFD = runnable.ReportFD
