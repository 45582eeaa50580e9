package workloads

// Runner is the ability to execute runs, used by `seshat run`. A workload
// implementing it validates matrix points before anything starts and names
// the child process of each run; the runner does everything else (artifact
// directory, process group, timeout, logs, rusage, hwinfo, exit_code).
type Runner interface {
	// CheckPoint validates the settings of one matrix point. Errors name
	// the offending setting; they make the whole benchmark file invalid.
	CheckPoint(settings map[string]any) error
	// Command returns the argv of the child process that runs one point.
	Command(req RunRequest) ([]string, error)
	// RunVersions returns the tool and framework versions a finished run
	// reported (read from its artifacts), for hwinfo.json. Nil when none.
	RunVersions(dir string) map[string]string
}

// RunRequest describes one run to a Runner.
type RunRequest struct {
	// Dir is the run's artifact directory; settings.yaml is already in it.
	Dir string
	// Settings is the flat settings map of the point.
	Settings map[string]any
	// Self is the path of the seshat executable, for Go PIs run through a
	// hidden subcommand.
	Self string
	// Python is the interpreter given with --python ("" when not given).
	Python string
}

// SettingKeyer is implemented by validation errors that concern one
// setting, so the runner can point at its line in the benchmark file.
type SettingKeyer interface {
	SettingKey() string
}

// Resourcer is implemented by runners whose points need devices that a
// scheduler must allocate (the slurm and kubernetes executors ask it).
type Resourcer interface {
	// GPUs is the number of GPUs one run of the point needs (0: CPU only).
	GPUs(settings map[string]any) int
}
