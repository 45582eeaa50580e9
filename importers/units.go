package importers

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/parsers"
)

// timeUnitSeconds is a benchmark tool's time unit in seconds: Google
// Benchmark's ns, us, ms and s, and JMH's TimeUnit names (ns, us, ms, s,
// min, hr, day).
func timeUnitSeconds(unit string) (float64, bool) {
	switch strings.TrimSpace(unit) {
	case "ns":
		return 1e-9, true
	case "us", "µs":
		return 1e-6, true
	case "ms":
		return 1e-3, true
	case "s":
		return 1, true
	case "min":
		return 60, true
	case "hr", "h":
		return 3600, true
	case "day", "d":
		return 86400, true
	}
	return 0, false
}

// measurement tells whether every x can be a measurement: finite and not
// negative.
func measurement(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return false
		}
	}
	return true
}

// endAfter is start plus seconds, when seconds is a duration a run can
// have (else start).
func endAfter(start time.Time, seconds float64) time.Time {
	if seconds > 0 && seconds < maxRunSeconds {
		return start.Add(time.Duration(seconds * float64(time.Second)))
	}
	return start
}

// addParams sets a benchmark's parameters as settings: param_<name> each
// (a number when it reads as one), and params, all of them as
// name=value,... in name order, which it returns as a list.
func addParams(settings map[string]any, params map[string]string) []string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		settings["param_"+settingKey.ReplaceAllString(k, "_")] = parsers.ScalarValue(params[k])
		out = append(out, k+"="+params[k])
	}
	if len(out) > 0 {
		settings["params"] = strings.Join(out, ",")
	}
	return out
}
