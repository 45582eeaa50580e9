package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// Status is how a check judges what it found.
type Status string

// The statuses of a check: only Noisy makes the verdict noisy.
const (
	OK      Status = "ok"
	Noisy   Status = "noisy"
	Info    Status = "info"    // worth knowing, not judged
	Unknown Status = "unknown" // the host does not say
)

// Thresholds of the checks.
const (
	// BusyLoadPerCPU: a 1-minute load average at or above this many
	// runnable tasks per online CPU makes the host busy. An idle host sits
	// near 0; half the CPUs kept busy by other work is more than a
	// measurement should share.
	BusyLoadPerCPU = 0.5
	// BusyPressure is the share of the last 10 seconds during which some
	// task waited for a CPU (/proc/pressure/cpu's avg10) from which the
	// host is busy: the wait a PI started now would likely meet.
	BusyPressure = 0.2
	// BusyProcessCPU is the CPU use, in CPUs (0.1: 10% of one), from which
	// another process counts as busy while the host is watched.
	BusyProcessCPU = 0.1
	// maxBusyListed bounds the busy processes named.
	maxBusyListed = 5
)

// Check is one thing that makes a host noisy, as found.
type Check struct {
	// Name is load, pressure, governor, turbo, smt, busy, cgroup, aslr
	// or gpu.
	Name   string `json:"name"`
	Status Status `json:"status"`
	// State is what was found, for a person.
	State string `json:"state"`
	// Why says, for a noisy or info check, why it matters and what to do.
	Why string `json:"why,omitempty"`
	// short names the finding in the verdict line.
	short string
}

// Report is what Inspect found.
type Report struct {
	// CPUs is the number of online CPUs (0: unknown).
	CPUs   int     `json:"cpus"`
	Checks []Check `json:"checks"`
	// Busy are the other processes that used CPU while the host was
	// watched (BusyProcessCPU or more), busiest first.
	Busy []Process `json:"busy,omitempty"`
}

// Options configure Inspect.
type Options struct {
	// Sample is how long the other processes are watched for their CPU
	// use (0: not watched, the busy check is unknown).
	Sample time.Duration
	// Self is the process left out of the busy ones (0: this one).
	Self int
	// wait sleeps Sample (tests replace it to move a fixture's clock).
	wait func(context.Context, time.Duration) error
}

// Inspect looks at what makes the host noisy, as pyperf's `system show`
// does: load, CPU frequency governor, turbo, SMT, busy processes, cgroup
// CPU quota and ASLR; and, on a host with nvidia-smi, the NVIDIA GPUs
// (other processes on them, utilization, clocks, persistence mode). What the host does not expose is an Unknown check,
// never an error; the error is ctx's, when it ends the watch early.
func Inspect(ctx context.Context, h Host, o Options) (Report, error) {
	var r Report
	if cpus, err := h.OnlineCPUs(); err == nil {
		r.CPUs = len(cpus)
	}
	busy, err := h.checkBusy(ctx, o)
	if err != nil {
		return Report{}, err
	}
	r.Busy = busy.procs
	r.Checks = []Check{
		h.checkLoad(r.CPUs),
		h.checkPressure(),
		h.checkGovernor(),
		h.checkTurbo(),
		h.checkSMT(),
		busy.Check,
		h.checkCgroup(r.CPUs),
		h.checkASLR(),
	}
	self := o.Self
	if self == 0 {
		self = os.Getpid()
	}
	if c, ok := h.checkGPU(ctx, self); ok {
		r.Checks = append(r.Checks, c)
	}
	return r, nil
}

// Noisy tells whether any check found the host noisy.
func (r Report) Noisy() bool {
	for _, c := range r.Checks {
		if c.Status == Noisy {
			return true
		}
	}
	return false
}

// Verdict is the report in one line: "host: quiet", or "host: noisy"
// followed by each noisy finding.
func (r Report) Verdict() string {
	var why []string
	for _, c := range r.Checks {
		if c.Status == Noisy {
			why = append(why, c.short)
		}
	}
	if len(why) == 0 {
		return "host: quiet"
	}
	return "host: noisy (" + strings.Join(why, "; ") + ")"
}

// WriteText writes the report for a person: one line per check, why the
// noisy and info ones matter, and the verdict last.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Status, c.State)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes strings.Builder
	for _, c := range r.Checks {
		if c.Why != "" && (c.Status == Noisy || c.Status == Info) {
			fmt.Fprintf(&notes, "  %s: %s\n", c.Name, c.Why)
		}
	}
	if notes.Len() > 0 {
		fmt.Fprintf(w, "\n%s", notes.String())
	}
	_, err := fmt.Fprintf(w, "\n%s\n", r.Verdict())
	return err
}

// WriteJSON writes the report as one JSON document, with the verdict
// ("quiet" or "noisy") and its line.
func (r Report) WriteJSON(w io.Writer) error {
	verdict := "quiet"
	if r.Noisy() {
		verdict = "noisy"
	}
	doc := struct {
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		Report
	}{verdict, r.Verdict(), r}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // the advice holds shell commands: `echo 1 > ...`
	return enc.Encode(doc)
}

// Busy tells, from the 1-minute load average, whether the host is busy:
// what `seshat run` warns about before it measures anything. The string
// says so in words ("load 1.9 on 2 CPUs"); ok is false when the host does
// not tell its load or its CPUs.
func (h Host) Busy() (busy bool, what string, ok bool) {
	load, err := h.Load()
	if err != nil {
		return false, "", false
	}
	cpus, err := h.OnlineCPUs()
	if err != nil || len(cpus) == 0 {
		return false, "", false
	}
	return load[0] >= BusyLoadPerCPU*float64(len(cpus)), loadShort(load, len(cpus)), true
}

func loadShort(load Load, cpus int) string {
	return fmt.Sprintf("load %.1f on %d %s", load[0], cpus, plural(cpus, "CPU", "CPUs"))
}

func (h Host) checkLoad(cpus int) Check {
	c := Check{Name: "load", Status: Unknown}
	load, err := h.Load()
	if err != nil {
		c.State = unreadable(err)
		return c
	}
	c.State = fmt.Sprintf("%.2f %.2f %.2f (1, 5, 15 min)", load[0], load[1], load[2])
	if cpus == 0 {
		c.State += " on an unknown number of CPUs"
		return c
	}
	c.State += fmt.Sprintf(" on %d %s", cpus, plural(cpus, "CPU", "CPUs"))
	c.short = loadShort(load, cpus)
	c.Status = OK
	if load[0] >= BusyLoadPerCPU*float64(cpus) {
		c.Status = Noisy
		c.Why = fmt.Sprintf("the 1-minute load average is %.2f a CPU (%.1f or more is busy): other work shares the CPUs; wait for it, or measure on a quieter host", load[0]/float64(cpus), BusyLoadPerCPU)
	}
	return c
}

func (h Host) checkPressure() Check {
	c := Check{Name: "pressure", Status: Unknown}
	p, err := h.cpuPressure()
	if errors.Is(err, fs.ErrNotExist) {
		c.State = "not counted (a kernel without pressure stall information)"
		return c
	}
	if err != nil {
		c.State = unreadable(err)
		return c
	}
	c.State = fmt.Sprintf("some task waited for a CPU %.0f%% of the last 10 s, %.0f%% of the last minute", p.avg10, p.avg60)
	c.Status = OK
	if p.avg10 >= 100*BusyPressure {
		c.Status = Noisy
		c.short = fmt.Sprintf("CPU pressure %.0f%%", p.avg10)
		c.Why = fmt.Sprintf("runnable tasks waited for a CPU (%.0f%% or more of the time is busy): a PI started now would wait too, and its runs would vary with the wait", 100*BusyPressure)
	}
	return c
}

func (h Host) checkGovernor() Check {
	c := Check{Name: "governor", Status: Unknown}
	govs, err := h.Governors()
	switch {
	case err != nil && len(govs) == 0:
		c.State = unreadable(err)
		return c
	case len(govs) == 0:
		c.State = "no cpufreq: the firmware or the hypervisor sets the frequency"
		return c
	}
	text := GovernorText(govs)
	c.State, c.short = text, "governor "+text
	if _, all := govs["performance"]; all && len(govs) == 1 {
		c.Status = OK
		return c
	}
	c.Status = Noisy
	c.Why = "the frequency follows the load, so a measurement's first samples run slower and a light PI never reaches full speed; `cpupower frequency-set -g performance` (root) fixes it"
	return c
}

func (h Host) checkTurbo() Check {
	c := Check{Name: "turbo", Status: Unknown, State: "no switch exposed (a VM, or a driver without one)"}
	var on bool
	var source, fix string
	if v, err := h.read("/sys/devices/system/cpu/intel_pstate/no_turbo"); err == nil {
		on, source, fix = v == "0", "intel_pstate/no_turbo = "+v, "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"
	} else if v, err := h.read("/sys/devices/system/cpu/cpufreq/boost"); err == nil {
		on, source, fix = v == "1", "cpufreq/boost = "+v, "echo 0 > /sys/devices/system/cpu/cpufreq/boost"
	} else {
		if !errors.Is(err, fs.ErrNotExist) {
			c.State = unreadable(err)
		}
		return c
	}
	if !on {
		c.Status, c.State = OK, "off ("+source+")"
		return c
	}
	c.Status, c.State, c.short = Noisy, "on ("+source+")", "turbo on"
	c.Why = "the clock rises with thermal headroom and falls as more cores work, so the same PI runs at different speeds; `" + fix + "` (root) turns it off"
	return c
}

func (h Host) checkSMT() Check {
	c := Check{Name: "smt", Status: Unknown}
	active, err := h.read("/sys/devices/system/cpu/smt/active")
	if err != nil {
		c.State = unreadable(err)
		return c
	}
	control, _ := h.read("/sys/devices/system/cpu/smt/control")
	switch {
	case active == "1":
		c.Status, c.State = Info, "on"
		c.Why = "two hardware threads share each core: work on a PI's sibling thread slows it; pin the PI (seshat run --cpus) to CPUs of distinct cores"
	case control == "notsupported" || control == "notimplemented":
		c.Status, c.State = OK, "not supported"
	default:
		c.Status, c.State = OK, "off"
	}
	return c
}

func (h Host) checkCgroup(cpus int) Check {
	c := Check{Name: "cgroup", Status: OK, State: "no CPU quota"}
	limit := h.CgroupCPULimit()
	if limit == nil {
		return c
	}
	c.State = fmt.Sprintf("CPU quota %.3g CPUs", *limit)
	if cpus > 0 && *limit >= float64(cpus) {
		c.State += fmt.Sprintf(", not below the %d online", cpus)
		return c
	}
	c.Status = Noisy
	c.short = c.State
	if cpus > 0 {
		c.State += fmt.Sprintf(", below the %d online", cpus)
		c.short += fmt.Sprintf(" of %d", cpus)
	}
	c.Why = "once the cgroup has spent its quota the kernel stops it until the period ends, so a PI running more threads than the quota allows is throttled in bursts; keep its threads within the quota"
	return c
}

func (h Host) checkASLR() Check {
	c := Check{Name: "aslr", Status: Unknown}
	v, err := h.read("/proc/sys/kernel/randomize_va_space")
	if err != nil {
		c.State = unreadable(err)
		return c
	}
	why := "every run sees the same memory layout, so a layout-sensitive result is biased the same way each time instead of spread over the repeats; pyperf keeps full randomization (2)"
	switch v {
	case "2":
		c.Status, c.State = OK, "full randomization (randomize_va_space = 2)"
	case "1":
		c.Status, c.State, c.Why = Info, "partial: the heap is not randomized (randomize_va_space = 1)", why
	case "0":
		c.Status, c.State, c.Why = Info, "off (randomize_va_space = 0)", why
	default:
		c.State = fmt.Sprintf("randomize_va_space = %q", v)
	}
	return c
}

type busyCheck struct {
	Check
	procs []Process
}

func (h Host) checkBusy(ctx context.Context, o Options) (busyCheck, error) {
	c := busyCheck{Check: Check{Name: "busy", Status: Unknown, State: "not watched"}}
	if o.Sample <= 0 {
		return c, nil
	}
	self, wait := o.Self, o.wait
	if self == 0 {
		self = os.Getpid()
	}
	if wait == nil {
		wait = sleep
	}
	procs, err := h.busyProcesses(ctx, o.Sample, BusyProcessCPU, self, wait)
	if ctx.Err() != nil {
		return c, ctx.Err()
	}
	if err != nil {
		c.State = unreadable(err)
		return c, nil
	}
	c.procs = procs
	if len(procs) == 0 {
		c.Status = OK
		c.State = fmt.Sprintf("no other process used %.0f%% of a CPU over %s", 100*BusyProcessCPU, o.Sample)
		return c, nil
	}
	var parts, names []string
	for i, p := range procs {
		if i == maxBusyListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(procs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (pid %d) %.0f%% CPU", p.Name, p.PID, 100*p.CPU))
		if i < 3 {
			names = append(names, p.Name)
		}
	}
	c.Status = Noisy
	c.State = strings.Join(parts, ", ") + " (over " + o.Sample.String() + ")"
	c.short = "busy: " + strings.Join(names, ", ")
	if len(procs) > len(names) {
		c.short += fmt.Sprintf(" and %d more", len(procs)-len(names))
	}
	c.Why = "they compete with the PI for CPUs, caches and memory bandwidth"
	return c, nil
}

// unreadable says why a file could not be read, for a check's state.
func unreadable(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		var missing string
		if p, _, ok := strings.Cut(err.Error(), ": "); ok {
			missing = p
		}
		return "not exposed (no " + missing + ")"
	}
	return "unreadable: " + err.Error()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
