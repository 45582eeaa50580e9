package runnable

import "strings"

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

// SettingsReader is an optional ability of a Runner: it names the settings
// a point reads, so that `seshat run` refuses any other setting (a
// misspelt one must not run silently with the default). A Runner without
// it takes every setting. Settings meant as labels only are declared in
// the benchmark file (extra_settings), not here.
type SettingsReader interface {
	// ReadsSettings returns the names of the settings the point reads.
	ReadsSettings(settings map[string]any) []string
	// SettingNames returns every setting name the workload can read, for
	// "did you mean" suggestions.
	SettingNames() []string
}

// WorkDirEnv is the environment variable that gives a run's child the
// directory `seshat run` was started in (the child itself runs in its run
// directory): a relative command path in a benchmark file
// (`ab/{side}/bench`) is relative to it. No setting's EnvName is it.
const WorkDirEnv = "_SESHAT_WORKDIR"

// EnvName is the environment variable a setting is exported to a run's
// child as: SESHAT_ + the upper-cased name, other characters as "_"
// (matrix_size -> SESHAT_MATRIX_SIZE, @repeat -> SESHAT__REPEAT).
func EnvName(key string) string {
	var b strings.Builder
	b.WriteString("SESHAT_")
	for _, r := range strings.ToUpper(key) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// UsageReporter is an optional ability of a Runner: its child process
// reports on file descriptor ReportFD the peak memory of the run's own
// processes (a UsageReport), which the runner records as the run's
// rusage.maxrss_bytes instead of the kernel's figure for the child.
//
// The kernel's figure (wait4's ru_maxrss) is at least the peak of the
// process that started the child: a child started with vfork semantics
// (Go's os/exec) takes its parent's memory map's peak into its own at
// exec. A `seshat run` or `seshat regression` that has grown to 50 MiB
// makes every small PI it starts report 50 MiB, and more in later rounds
// as it grows. The child knows better: its own memory map's peak
// (VmHWM in /proc/self/status, which counts nothing from before its exec)
// and its children's (RUSAGE_CHILDREN).
type UsageReporter interface {
	// ReportsUsage reports whether the point's child writes a UsageReport.
	ReportsUsage(settings map[string]any) bool
}

// ReportFD is the file descriptor a UsageReporter's child writes its
// UsageReport on (the first of exec.Cmd's ExtraFiles).
const ReportFD = 3

// UsageReport is what a run's child reports about the run's processes,
// one JSON document.
type UsageReport struct {
	// MaxRSSBytes is the peak resident memory of the run's own
	// processes: the child's own memory map and the largest of the
	// children it waited for, in bytes.
	MaxRSSBytes int64 `json:"maxrss_bytes"`
}
