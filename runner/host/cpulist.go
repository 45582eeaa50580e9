package host

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers a list may name: the kernel's own limit
// (NR_CPUS) is at most 8192, and a bound keeps "0-999999999" from
// allocating a billion entries.
const maxCPU = 1 << 16

// ParseCPUList reads a CPU list as the kernel writes them
// (/sys/devices/system/cpu/online, cpuset.cpus, taskset -c): CPU numbers and
// inclusive ranges separated by commas, "0", "0-3", "0,2,4-7". It returns
// the CPUs in increasing order, each once.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty CPU list")
	}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		first, err := cpuNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		last := first
		if isRange {
			if last, err = cpuNumber(hi); err != nil {
				return nil, fmt.Errorf("%q: %w", part, err)
			}
			if last < first {
				return nil, fmt.Errorf("%q: range ends before it starts", part)
			}
		}
		for c := first; c <= last; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

func cpuNumber(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n >= maxCPU {
		return 0, fmt.Errorf("CPU %s is beyond %d", s, maxCPU-1)
	}
	return n, nil
}

// FormatCPUList writes CPUs as a CPU list, ranges joined: [0 1 2 5] is
// "0-2,5". The CPUs need not be sorted.
func FormatCPUList(cpus []int) string {
	sorted := slices.Compact(slices.Sorted(slices.Values(cpus)))
	var b strings.Builder
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(sorted[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	return b.String()
}
