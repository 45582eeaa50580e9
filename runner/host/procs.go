package host

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: USER_HZ, fixed
// at 100 ticks a second by the kernel's ABI on every architecture Linux
// builds user space for (what sysconf(_SC_CLK_TCK) returns).
const userHZ = 100

// Process is a process that used CPU while the host was watched.
type Process struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// CPU is its CPU time over the watch, in CPUs: 1 is one CPU kept busy
	// all along, 2 two of them.
	CPU float64 `json:"cpu"`
}

// cpuTimes reads the CPU time used so far, in ticks, by every process in
// /proc but self, with its name. A process that ends while /proc is read is
// skipped.
func (h Host) cpuTimes(self int) (map[int]procTime, error) {
	entries, err := os.ReadDir(h.path("/proc"))
	if err != nil {
		return nil, err
	}
	out := map[int]procTime{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		text, err := h.read("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if pt, ok := parseStat(text); ok {
			out[pid] = pt
		}
	}
	return out, nil
}

type procTime struct {
	name  string
	ticks uint64
}

// parseStat reads the name (field 2, in parentheses, which it may itself
// hold) and utime + stime (fields 14 and 15) of /proc/<pid>/stat.
func parseStat(text string) (procTime, bool) {
	open, end := strings.IndexByte(text, '('), strings.LastIndexByte(text, ')')
	if open < 0 || end < open {
		return procTime{}, false
	}
	f := strings.Fields(text[end+1:])
	if len(f) < 13 { // state is field 3, f[0]; stime field 15, f[12]
		return procTime{}, false
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return procTime{}, false
	}
	return procTime{name: text[open+1 : end], ticks: utime + stime}, true
}

// busyProcesses watches every process but self for the duration of sample
// (wait sleeps it, or, in tests, moves the fixture's clock) and returns
// those that used at least minCPU CPUs meanwhile, busiest first.
func (h Host) busyProcesses(ctx context.Context, sample time.Duration, minCPU float64, self int, wait func(context.Context, time.Duration) error) ([]Process, error) {
	before, err := h.cpuTimes(self)
	if err != nil {
		return nil, err
	}
	if err := wait(ctx, sample); err != nil {
		return nil, err
	}
	after, err := h.cpuTimes(self)
	if err != nil {
		return nil, err
	}
	var busy []Process
	for pid, a := range after {
		b := before[pid] // zero for a process started meanwhile: all its time is in the watch
		if a.ticks < b.ticks {
			continue // a new process under a reused pid
		}
		cpu := float64(a.ticks-b.ticks) / userHZ / sample.Seconds()
		if cpu >= minCPU {
			busy = append(busy, Process{PID: pid, Name: a.name, CPU: cpu})
		}
	}
	sort.Slice(busy, func(i, j int) bool {
		if busy[i].CPU != busy[j].CPU {
			return busy[i].CPU > busy[j].CPU
		}
		return busy[i].PID < busy[j].PID
	})
	return busy, nil
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
