package runner

import (
	"syscall"

	"github.com/seshat-bench/seshat/models"
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
