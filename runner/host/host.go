package host

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Host is where the kernel's files are read. The zero value reads this
// machine's /proc and /sys; tests point Root at a recorded tree.
type Host struct {
	// Root prefixes /proc and /sys ("" for /).
	Root string
}

// fileLimit bounds every kernel file read here: they are a few bytes, and
// a fixture tree could hold anything.
const fileLimit = 1 << 20

func (h Host) path(p string) string {
	if h.Root == "" {
		return p
	}
	return filepath.Join(h.Root, filepath.FromSlash(p))
}

// read reads one kernel file; its errors name the host path p, not the
// fixture's, and wrap the cause (fs.ErrNotExist when it is absent).
func (h Host) read(p string) (string, error) {
	data, err := parsers.ReadLimited(h.path(p), fileLimit)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", fmt.Errorf("%s: %w", p, pe.Err)
		}
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return strings.TrimSpace(string(data)), nil
}

// Load is /proc/loadavg: the run-queue length averaged over 1, 5 and 15
// minutes.
type Load [3]float64

// Load reads /proc/loadavg.
func (h Host) Load() (Load, error) {
	text, err := h.read("/proc/loadavg")
	if err != nil {
		return Load{}, err
	}
	f := strings.Fields(text)
	if len(f) < 3 {
		return Load{}, fmt.Errorf("/proc/loadavg: %q: want three load averages", parsers.Truncate(text, 40))
	}
	var l Load
	for i := range l {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 {
			return Load{}, fmt.Errorf("/proc/loadavg: field %d: %q is not a load average", i+1, parsers.Truncate(f[i], 40))
		}
		l[i] = v
	}
	return l, nil
}

// OnlineCPUs reads /sys/devices/system/cpu/online: the CPUs the kernel
// schedules on, whatever this process may use.
func (h Host) OnlineCPUs() ([]int, error) {
	text, err := h.read("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	cpus, err := ParseCPUList(text)
	if err != nil {
		return nil, fmt.Errorf("/sys/devices/system/cpu/online: %w", err)
	}
	return cpus, nil
}

// Governors reads the cpufreq scaling governor of every CPU that has one:
// the CPUs of each governor. None (a nil map, no error) when the kernel
// exposes no cpufreq, as in most VMs: the hypervisor or the firmware then
// decides the frequency.
func (h Host) Governors() (map[string][]int, error) {
	files, err := filepath.Glob(h.path("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
	if err != nil {
		return nil, err
	}
	var out map[string][]int
	var errs []error
	for _, f := range files {
		dir := filepath.Base(filepath.Dir(filepath.Dir(f)))
		cpu, err := strconv.Atoi(strings.TrimPrefix(dir, "cpu"))
		if err != nil {
			continue
		}
		gov, err := h.read("/sys/devices/system/cpu/" + dir + "/cpufreq/scaling_governor")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if out == nil {
			out = map[string][]int{}
		}
		out[gov] = append(out[gov], cpu)
	}
	for g := range out {
		sort.Ints(out[g])
	}
	return out, errors.Join(errs...)
}

// GovernorText says which governor the CPUs run: "performance" when they
// all run it, else each governor with its CPUs, most CPUs first:
// "powersave (0-5), performance (6-7)". Empty when there is none.
func GovernorText(govs map[string][]int) string {
	names := make([]string, 0, len(govs))
	for g := range govs {
		names = append(names, g)
	}
	if len(names) == 1 {
		return names[0]
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := len(govs[names[i]]), len(govs[names[j]]); a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, g := range names {
		parts[i] = g + " (" + FormatCPUList(govs[g]) + ")"
	}
	return strings.Join(parts, ", ")
}

// State is what a run records of the host at its start and at its end
// (usage.json): the load averages and the governors. What cannot be read
// is left out, with the reason in the error; the State is still usable.
func (h Host) State() (models.HostState, error) {
	var s models.HostState
	load, lerr := h.Load()
	if lerr == nil {
		s.LoadAvg = load[:]
	}
	govs, gerr := h.Governors()
	s.Governor = GovernorText(govs)
	stall, serr := h.CPUStall()
	if serr == nil {
		s.CPUStallUS = &stall
	} else if errors.Is(serr, fs.ErrNotExist) {
		serr = nil // a kernel without pressure stall information
	}
	return s, errors.Join(lerr, gerr, serr)
}

// CPUStall reads /proc/pressure/cpu's "some" total (Linux pressure stall
// information, Documentation/accounting/psi.rst): the microseconds since
// boot during which at least one runnable task waited for a CPU. The
// error wraps fs.ErrNotExist on a kernel without it.
func (h Host) CPUStall() (int64, error) {
	p, err := h.cpuPressure()
	return p.total, err
}

// cpuPressure reads /proc/pressure/cpu's "some" line; the error wraps
// fs.ErrNotExist on a kernel without it.
func (h Host) cpuPressure() (psi, error) {
	text, err := h.read("/proc/pressure/cpu")
	if err != nil {
		return psi{}, err
	}
	return parsePSI(text)
}

// psi is the "some" line of /proc/pressure/cpu: the share of the last 10
// and 60 seconds, in percent, and the microseconds since boot during which
// at least one runnable task waited for a CPU.
type psi struct {
	avg10, avg60 float64
	total        int64
}

// parsePSI reads the "some" line of a PSI file ("some avg10=0.00
// avg60=0.00 avg300=0.00 total=12345"); its total is required, its
// averages are 0 when absent.
func parsePSI(text string) (psi, error) {
	for line := range strings.SplitSeq(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "some" {
			continue
		}
		var p psi
		total := false
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "total":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					return psi{}, fmt.Errorf("/proc/pressure/cpu: total %q is not a count of microseconds", parsers.Truncate(v, 40))
				}
				p.total, total = n, true
			case "avg10", "avg60":
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || !(x >= 0 && x <= 100) {
					return psi{}, fmt.Errorf("/proc/pressure/cpu: %s %q is not a percentage", k, parsers.Truncate(v, 40))
				}
				if k == "avg10" {
					p.avg10 = x
				} else {
					p.avg60 = x
				}
			}
		}
		if !total {
			return psi{}, fmt.Errorf("/proc/pressure/cpu: the some line has no total")
		}
		return p, nil
	}
	return psi{}, fmt.Errorf("/proc/pressure/cpu: no some line in %q", parsers.Truncate(text, 80))
}
