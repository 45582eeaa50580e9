package models

import (
	"regexp"
	"time"
)

// ExperimentNameRule is what makes an experiment name valid, as messages
// say it: the name is a directory of the results directory.
const ExperimentNameRule = "experiment names become directory names: use letters, digits, _ . -"

var experimentName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// ValidExperimentName tells whether name may name an experiment: one
// directory right below the results directory (no separator, no "." or
// "..", nothing hidden), whoever writes it (`seshat run`, `seshat import`).
func ValidExperimentName(name string) bool {
	return experimentName.MatchString(name) && name != "." && name != ".."
}

// PIResult is the content of pi.json: a superset of the Thoth PI output.
// Rate and FLOPs are pointers because some PIs (import time) have no rate.
type PIResult struct {
	Component  string            `json:"component"`
	Name       string            `json:"name"`
	Parameters map[string]any    `json:"@parameters"`
	Result     PIMeasurement     `json:"@result"`
	Versions   map[string]string `json:"versions,omitempty"`
}

// PIMeasurement is the "@result" object of pi.json.
type PIMeasurement struct {
	// Rate is GFLOPS computed from the median time of one operation.
	Rate *float64 `json:"rate,omitempty"`
	// Elapsed is the median time of one operation in milliseconds.
	Elapsed float64 `json:"elapsed"`
	// FLOPs is the floating-point operation count of one operation.
	FLOPs *float64 `json:"flops,omitempty"`
	// SamplesMs holds every timed repetition, in milliseconds, in order.
	SamplesMs Samples `json:"samples_ms"`
	// CI95Low and CI95High bound the 95% confidence interval of the median, in ms.
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
	// CV is the coefficient of variation of the samples.
	CV float64 `json:"cv"`
}

// HWInfo is the content of hwinfo.json: what the run executed on.
type HWInfo struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	// Arch is the machine architecture uname reports (x86_64, aarch64).
	Arch        string    `json:"arch,omitempty"`
	OS          OSRelease `json:"os"`
	CPU         CPUInfo   `json:"cpu"`
	MemoryBytes uint64    `json:"memory_bytes"`
	// CgroupCPULimit is the cgroup CPU quota in CPUs (quota/period); absent when unlimited.
	CgroupCPULimit *float64 `json:"cgroup_cpu_limit,omitempty"`
	GoVersion      string   `json:"go_version"`
	GPUs           []GPU    `json:"gpus,omitempty"`
	// Versions holds tool and framework versions (seshat, python, numpy, torch, cuda...).
	Versions map[string]string `json:"versions,omitempty"`
}

// OSRelease holds the fields of /etc/os-release that identify a distribution.
type OSRelease struct {
	ID         string `json:"id"`
	VersionID  string `json:"version_id"`
	PrettyName string `json:"pretty_name"`
}

// CPUInfo describes the host processors.
type CPUInfo struct {
	Model   string `json:"model"`
	Vendor  string `json:"vendor,omitempty"`
	Flags   Flags  `json:"flags,omitempty"`
	Sockets int    `json:"sockets"`
	Cores   int    `json:"cores"`
	Threads int    `json:"threads"`
}

// GPU is one accelerator as reported by nvidia-smi.
type GPU struct {
	Index       int    `json:"index"`
	Name        string `json:"name"`
	UUID        string `json:"uuid,omitempty"`
	MemoryBytes uint64 `json:"memory_bytes"`
	Driver      string `json:"driver"`
	CUDA        string `json:"cuda,omitempty"`
}

// Usage is the content of usage.json: wall time and the child's rusage,
// the CPUs it was pinned to, the thread counts of its environment, and the
// host around it: its load and governors at the start and end.
type Usage struct {
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	WallSeconds float64   `json:"wall_seconds"`
	Rusage      Rusage    `json:"rusage"`
	// CPUs is the CPU list the child was pinned to (seshat run --cpus,
	// "0-1,4"); absent when it was not.
	CPUs string `json:"cpus,omitempty"`
	// Threads holds the thread-count variables of the child's environment
	// (ThreadVariables: OMP_NUM_THREADS...) that were set, inherited or
	// from a setting, by name, as written.
	Threads map[string]string `json:"threads,omitempty"`
	// HostStart and HostEnd are the host just before the child started
	// and just after it ended; absent in runs made before they were
	// recorded, and where the host tells neither load nor governor.
	HostStart *HostState `json:"host_start,omitempty"`
	HostEnd   *HostState `json:"host_end,omitempty"`
	// SeshatMaxRSSBytes is the peak resident memory of the seshat process
	// that started the run, read when the run ended; absent in runs made
	// before it was recorded. Linux counts it in the child's maxrss: a
	// child started with vfork semantics (Go's os/exec) takes its
	// parent's memory map's peak into its own at exec, so a run's
	// rusage.maxrss_bytes no larger than this may be seshat's, not the
	// run's (a child of a 200 MiB parent that runs /bin/true reports
	// 200 MiB), unless the child reported the peak of the run's own
	// processes (KernelMaxRSSBytes is then set).
	SeshatMaxRSSBytes int64 `json:"seshat_maxrss_bytes,omitempty"`
	// KernelMaxRSSBytes is the kernel's peak for the child (wait4's
	// ru_maxrss), kept when Rusage.MaxRSSBytes is the peak the child
	// reported for the run's own processes instead (runnable.UsageReport:
	// `seshat pi` reports one); absent otherwise.
	KernelMaxRSSBytes int64 `json:"kernel_maxrss_bytes,omitempty"`
}

// CPUShare is the process's CPU time (user and system) per second of its
// wall time: about 1 for one thread that always had a CPU, less when it
// waited for one (or for anything else); 0 without a wall time.
func (u *Usage) CPUShare() float64 {
	if u == nil || u.WallSeconds <= 0 {
		return 0
	}
	return (u.Rusage.UtimeSeconds + u.Rusage.StimeSeconds) / u.WallSeconds
}

// CPUPressure is the share of the run's wall time during which some task
// on the host waited for a CPU (the growth of HostState.CPUStallUS from
// start to end, per second of wall time): about 0 on a host with a CPU
// free for every runnable task, 1 when some task waited all along. Unlike
// the load average, a decaying average of the past minute, it covers the
// run's own seconds. false when start or end lacks the count.
func (u *Usage) CPUPressure() (float64, bool) {
	if u == nil || u.WallSeconds <= 0 || u.HostStart == nil || u.HostEnd == nil ||
		u.HostStart.CPUStallUS == nil || u.HostEnd.CPUStallUS == nil {
		return 0, false
	}
	d := float64(*u.HostEnd.CPUStallUS - *u.HostStart.CPUStallUS)
	if d < 0 {
		return 0, false
	}
	return min(1, d/1e6/u.WallSeconds), true
}

// Empty tells whether the state records nothing: what a host that tells
// neither load, governor nor pressure gives, which is left out of
// usage.json.
func (h HostState) Empty() bool {
	return h.LoadAvg == nil && h.Governor == "" && h.CPUStallUS == nil && h.GPUs == nil
}

// HostState is the host at one instant around a run.
type HostState struct {
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute load averages; absent
	// when unreadable.
	LoadAvg []float64 `json:"loadavg,omitempty"`
	// Governor is the CPU frequency governor ("performance"), or each one
	// with its CPUs when they differ ("powersave (0-5), performance
	// (6-7)"); absent when the kernel exposes no cpufreq (most VMs).
	Governor string `json:"governor,omitempty"`
	// CPUStallUS is /proc/pressure/cpu's "some" total (Linux pressure
	// stall information): the microseconds since boot during which at
	// least one runnable task waited for a CPU. Absent where the kernel
	// keeps none. Its growth over a run is the run's CPU pressure
	// (Usage.CPUPressure).
	CPUStallUS *int64 `json:"cpu_stall_us,omitempty"`
	// GPUs are the NVIDIA GPUs as nvidia-smi tells them, for a run on the
	// GPU (device: gpu); absent otherwise, and where there is no
	// nvidia-smi.
	GPUs []GPUState `json:"gpus,omitempty"`
}

// GPUState is one GPU at one instant around a run: what moves its timings
// from one run to the next (its clock, which heat and power caps lower,
// and other work on it). A figure nvidia-smi does not give is absent.
type GPUState struct {
	Index int `json:"index"`
	// UtilizationPercent is the share of the last sample period during
	// which a kernel ran.
	UtilizationPercent *float64 `json:"utilization_percent,omitempty"`
	SMClockMHz         *float64 `json:"sm_clock_mhz,omitempty"`
	TemperatureC       *float64 `json:"temperature_c,omitempty"`
	PowerW             *float64 `json:"power_w,omitempty"`
}

// Rusage is the resource usage of the PI child process (getrusage RUSAGE_CHILDREN).
type Rusage struct {
	UtimeSeconds float64 `json:"utime_seconds"`
	StimeSeconds float64 `json:"stime_seconds"`
	MaxRSSBytes  int64   `json:"maxrss_bytes"`
	Minflt       int64   `json:"minflt"`
	Majflt       int64   `json:"majflt"`
	Nvcsw        int64   `json:"nvcsw"`
	Nivcsw       int64   `json:"nivcsw"`
	Inblock      int64   `json:"inblock"`
	Oublock      int64   `json:"oublock"`
}

// SchedulerInfo is the content of scheduler.json, written in the run
// directories of the slurm and kubernetes executors (never by the local
// one): which scheduler job ran the point, on which node, and, when the
// scheduler ended or lost it before the run could write exit_code, its
// final state and reason. The parser does not read it: none of it may
// split a regression series.
type SchedulerInfo struct {
	// Executor is slurm or kubernetes.
	Executor string `json:"executor"`
	// Invocation ties every job one `seshat run` submitted together.
	Invocation string `json:"invocation,omitempty"`
	// JobID is the scheduler's id: ARRAYJOB_TASK for Slurm, the Job's name
	// for Kubernetes.
	JobID     string `json:"job_id"`
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Node      string `json:"node,omitempty"`
	// State and Reason are set when the scheduler ended the run (TIMEOUT,
	// NODE_FAIL, OUT_OF_MEMORY, CANCELLED; Evicted, DeadlineExceeded) or
	// lost it; the executor then wrote exit_code itself.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Log is the scheduler's own output of the task (its batch script's
	// stdout and stderr), relative to the results directory.
	Log string `json:"log,omitempty"`
}
