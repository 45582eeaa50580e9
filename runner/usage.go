package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"syscall"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// usageOf converts an Outcome to usage.json. Linux reports ru_maxrss in
// KiB; usage.json holds bytes.
func usageOf(o Outcome) models.Usage {
	u := models.Usage{
		Start:       o.Start.UTC(),
		End:         o.End.UTC(),
		WallSeconds: o.End.Sub(o.Start).Seconds(),
	}
	if ru := o.Rusage; ru != nil {
		u.Rusage = rusageOf(ru)
		u.SeshatMaxRSSBytes = o.SelfMaxRSS * 1024
	}
	return u
}

func rusageOf(ru *syscall.Rusage) models.Rusage {
	return models.Rusage{
		UtimeSeconds: tvSeconds(ru.Utime),
		StimeSeconds: tvSeconds(ru.Stime),
		MaxRSSBytes:  int64(ru.Maxrss) * 1024,
		Minflt:       int64(ru.Minflt),
		Majflt:       int64(ru.Majflt),
		Nvcsw:        int64(ru.Nvcsw),
		Nivcsw:       int64(ru.Nivcsw),
		Inblock:      int64(ru.Inblock),
		Oublock:      int64(ru.Oublock),
	}
}

func tvSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// applyReport takes the peak memory the child reported
// (runnable.UsageReport) as the run's rusage.maxrss_bytes, and keeps the
// kernel's figure as kernel_maxrss_bytes. A report that is not one valid
// document leaves the kernel's figure and is returned as an error, for the
// run's log.
func applyReport(u *models.Usage, report []byte) error {
	if report == nil {
		return nil
	}
	var r runnable.UsageReport
	dec := json.NewDecoder(bytes.NewReader(report))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return fmt.Errorf("the child's usage report: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("the child's usage report: more than one document")
	}
	if r.MaxRSSBytes <= 0 {
		return fmt.Errorf("the child's usage report: maxrss_bytes %d is not a size", r.MaxRSSBytes)
	}
	u.KernelMaxRSSBytes = u.Rusage.MaxRSSBytes
	u.Rusage.MaxRSSBytes = r.MaxRSSBytes
	return nil
}
