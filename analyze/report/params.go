package report

import (
	"fmt"

	"github.com/seshat-bench/seshat/analyze"
)

// MethodParams shows a method's parameters, its defaults applied, as a
// person reads them (Info.Params); "" for a method it does not know.
func MethodParams(method string, p analyze.Params) string {
	or := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	switch method {
	case "shift":
		return fmt.Sprintf("alpha %g; a change confirmed by 4 builds against up to 30 before it (at least 10), by at least 5 standard errors", or(p.Alpha, 0.01))
	case "perfherder", "window":
		d, _ := analyze.New(method, p)
		ph := d.(analyze.Perfherder).WithDefaults()
		return fmt.Sprintf("back window %d-%d, fore window %d, t > %g, change >= %g%%", ph.MinBack, ph.MaxBack, ph.Fore, ph.T, ph.MinChange)
	case "segment":
		return fmt.Sprintf("alpha %g; segments by e-divisive (window_len %g, max_pvalue %g)", or(p.Alpha, 0.05), or(float64(p.WindowLen), 50), or(p.MaxPValue, 0.001))
	case "edivisive":
		return fmt.Sprintf("window_len %g, max_pvalue %g, min_magnitude %g", or(float64(p.WindowLen), 50), or(p.MaxPValue, 0.001), p.MinMagnitude)
	case "zscore":
		return fmt.Sprintf("|z| threshold %g", or(p.ZThreshold, 3))
	case "threshold":
		ref := p.Reference
		if ref == "" {
			ref = "mean"
		}
		return fmt.Sprintf("threshold %g%%, reference %s", or(p.ChangePercent, 10), ref)
	case "mannwhitney":
		return fmt.Sprintf("alpha %g", or(p.Alpha, 0.05))
	}
	return ""
}
