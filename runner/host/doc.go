// Package host tells how fit this machine is to measure on, as pyperf's
// `system show` does, and records the host's state around each run.
//
// Everything is read from the kernel's files below Host.Root ("" for /), so
// tests point it at a recorded tree: /proc/loadavg (load averages),
// /sys/devices/system/cpu (online CPUs, cpufreq governors, intel_pstate's
// no_turbo or cpufreq's boost, smt/active), /proc/sys/kernel/randomize_va_space
// (ASLR), the cgroup files of /proc/self/cgroup (v1 and v2 CPU quotas) and
// /proc/<pid>/stat (the CPU time of every process, read twice around a
// sample to find the busy ones). The GPU line asks nvidia-smi, when it is
// on PATH, or reads its recorded answers (nvidia-smi/*.csv) below Root.
//
// Inspect turns them into a Report: one Check per source of noise, each ok,
// noisy, info or unknown, and a one-line Verdict (`seshat host check`).
// Host.State is the small part a run records at its start and end
// (usage.json's host_start and host_end), Host.Busy the load test `seshat
// run` warns with. ParseCPUList and FormatCPUList read and write the
// kernel's CPU lists ("0-3,8"), and AllowedCPUs is this process's affinity:
// what `seshat run --cpus` may pin a run to.
package host
