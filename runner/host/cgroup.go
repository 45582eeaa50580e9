package host

import (
	"math"
	"path"
	"strconv"
	"strings"
)

// CgroupCPULimit is the CPU quota of this process's cgroup in CPUs
// (quota/period), the tightest along its path, or nil when unlimited or
// unknown. Containers see their own cgroup as the root of the mount, so
// both the full path and the mount root are tried.
func (h Host) CgroupCPULimit() *float64 {
	data, err := h.read("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	limit := math.Inf(1)
	consider := func(quota, period float64) {
		if quota > 0 && period > 0 {
			limit = math.Min(limit, quota/period)
		}
	}
	for _, line := range strings.Split(data, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		cpath := path.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			for _, dir := range ancestors(cpath) {
				if q, p, ok := h.cpuMax(path.Join("/sys/fs/cgroup", dir, "cpu.max")); ok {
					consider(q, p)
				}
			}
		case hasController(parts[1], "cpu"): // v1
			for _, mount := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu"} {
				for _, dir := range ancestors(cpath) {
					q, okQ := h.number(path.Join(mount, dir, "cpu.cfs_quota_us"))
					p, okP := h.number(path.Join(mount, dir, "cpu.cfs_period_us"))
					if okQ && okP {
						consider(q, p)
					}
				}
			}
		}
	}
	if math.IsInf(limit, 1) {
		return nil
	}
	return &limit
}

// ancestors lists p and its parents up to "/".
func ancestors(p string) []string {
	out := []string{p}
	for p != "/" {
		p = path.Dir(p)
		out = append(out, p)
	}
	return out
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// cpuMax reads a cgroup v2 cpu.max: "max 100000" or "QUOTA PERIOD".
func (h Host) cpuMax(p string) (quota, period float64, ok bool) {
	data, err := h.read(p)
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(data)
	if len(f) != 2 || f[0] == "max" {
		return 0, 0, false
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	per, err2 := strconv.ParseFloat(f[1], 64)
	return q, per, err1 == nil && err2 == nil
}

func (h Host) number(p string) (float64, bool) {
	data, err := h.read(p)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(data, 64)
	return v, err == nil
}
