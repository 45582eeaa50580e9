package indicator

import (
	"encoding/json"
	"io"
	"os"
	"syscall"

	"github.com/seshat-bench/seshat/internal/procstatus"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// writeUsageReport writes the run's peak memory (runPeak) to w as one
// runnable.UsageReport; nothing when it cannot be read. A failed write is
// not the PI's failure: seshat run then keeps the kernel's figure.
func writeUsageReport(w io.Writer) {
	peak := runPeak()
	if peak <= 0 {
		return
	}
	data, err := json.Marshal(runnable.UsageReport{MaxRSSBytes: peak})
	if err != nil {
		return
	}
	_, _ = w.Write(append(data, '\n'))
}

// runPeak is the peak resident memory of this process and the children
// it waited for, in bytes, without what the kernel carried over from the
// process that started this one: this process's own memory map's peak
// (VmHWM, which starts at its exec) and its children's ru_maxrss (each
// child's own peak, or this process's memory map's at the child's exec).
// 0 when this process's peak cannot be read (no /proc).
func runPeak() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	own := procstatus.PeakRSS(status)
	if own <= 0 {
		return 0
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		own = max(own, int64(ru.Maxrss)*1024)
	}
	return own
}
