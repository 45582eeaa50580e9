// Package procstatus reads what seshat needs from Linux's
// /proc/<pid>/status: a process's peak resident memory (VmHWM), for the
// PIs' own peak (workloads/pi/indicator), the serve benchmark (bench/serve)
// and the explorer's benchmark.
package procstatus
