package pi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads/pi/measure"
)

// KPISettingsVersion versions the pi labels and KPI definitions together:
// bump it when a label or a KPI changes meaning, so that regression analysis
// never compares records computed differently.
const KPISettingsVersion = "1.0.0"

// PayloadResults is what a pi LTS payload keeps of a run: the measurement,
// the machine and the resource usage, all three required by strict
// validation, and the benchmark entry that produced the run. Logs and local
// paths stay out: they describe one copy of the results, not the run.
type PayloadResults struct {
	PI     *models.PIResult `json:"pi" validate:"required"`
	HWInfo *models.HWInfo   `json:"hwinfo" validate:"required"`
	Usage  *models.Usage    `json:"usage" validate:"required"`
	Config json.RawMessage  `json:"config,omitempty"`
}

// MiB is the display divisor of memory KPIs.
const MiB = 1 << 20

var catalog = kpi.MustCatalog(Name, labelsModel,
	kpi.Definition{
		Name: "rate_gflops", Unit: "GFLOPS", Direction: kpi.HigherIsBetter, Format: "%.2f",
		Help: "Floating-point throughput of one operation, from its median time, in GFLOPS.",
		Extract: measurement(func(m models.PIMeasurement) (float64, error) {
			if m.Rate == nil {
				return 0, kpi.ErrNotApplicable // the import PI has no rate
			}
			return positive("rate", *m.Rate)
		}),
	},
	kpi.Definition{
		Name: "elapsed_ms", Unit: "ms", Direction: kpi.LowerIsBetter, Format: "%.4g",
		Help:    "Median time of one operation, in milliseconds.",
		Extract: measurement(func(m models.PIMeasurement) (float64, error) { return positive("elapsed", m.Elapsed) }),
	},
	kpi.Definition{
		Name: "elapsed_ci95_rel", Unit: "ratio", Direction: kpi.LowerIsBetter, Format: "%.2f",
		Divisor: 0.01, DisplayUnit: "%", IgnoredForRegression: true,
		Help: "Width of the 95% confidence interval of the median time, relative to the median: the measurement's precision.",
		Extract: measurement(func(m models.PIMeasurement) (float64, error) {
			lo, hi := m.CI95Low, m.CI95High
			if lo == 0 && hi == 0 {
				// An exec PI's command need not compute the interval (docs/run.md):
				// it is taken from its samples as the built-in PIs take it, or the
				// KPI does not apply, without a warning for every such run.
				var ok bool
				if lo, hi, ok = sampleCI(m.SamplesMs); !ok {
					return 0, kpi.ErrNotApplicable
				}
			}
			if hi < lo {
				return 0, fmt.Errorf("ci95_high %v is below ci95_low %v", hi, lo)
			}
			elapsed, err := positive("elapsed", m.Elapsed)
			if err != nil {
				return 0, err
			}
			return (hi - lo) / elapsed, nil
		}),
	},
	kpi.Definition{
		Name: "max_rss_bytes", Unit: "bytes", Direction: kpi.LowerIsBetter,
		Format: "%.1f", Divisor: MiB, DisplayUnit: "MiB",
		Help: "Peak resident memory of the PI process, in bytes.",
		Extract: usage(func(u *models.Usage) (float64, error) {
			return positive("rusage.maxrss_bytes", float64(u.Rusage.MaxRSSBytes))
		}),
	},
	kpi.Definition{
		Name: "cpu_seconds", Unit: "seconds", Direction: kpi.LowerIsBetter, Format: "%.3f",
		Help: "CPU time of the PI process, user plus system, in seconds.",
		Extract: usage(func(u *models.Usage) (float64, error) {
			cpu := u.Rusage.UtimeSeconds + u.Rusage.StimeSeconds
			if cpu < 0 {
				return 0, fmt.Errorf("utime + stime is negative (%v)", cpu)
			}
			return cpu, nil
		}),
	},
	kpi.Definition{
		Name: "import_seconds", Unit: "seconds", Direction: kpi.LowerIsBetter, Format: "%.3f",
		Help: "Median time to import the framework in a fresh interpreter, in seconds (import PI only).",
		Extract: func(p *models.Payload) (float64, error) {
			if p.Metadata.Labels["pi"] != "import" {
				return 0, kpi.ErrNotApplicable
			}
			return measurement(func(m models.PIMeasurement) (float64, error) {
				ms, err := positive("elapsed", m.Elapsed)
				return ms / 1000, err
			})(p)
		},
	},
)

// measurement adapts an extractor of pi.json's @result.
func measurement(f func(models.PIMeasurement) (float64, error)) kpi.Extractor {
	return kpi.FromResults(func(r *PayloadResults) (float64, error) {
		if r.PI == nil {
			return 0, errors.New("no pi.json")
		}
		return f(r.PI.Result)
	})
}

// usage adapts an extractor of usage.json.
func usage(f func(*models.Usage) (float64, error)) kpi.Extractor {
	return kpi.FromResults(func(r *PayloadResults) (float64, error) {
		if r.Usage == nil {
			return 0, errors.New("no usage.json")
		}
		return f(r.Usage)
	})
}

// positive refuses the values no measurement can have; the parser kept them
// with a warning, but a KPI of 0 GFLOPS would poison the history.
func positive(field string, v float64) (float64, error) {
	if !(v > 0) {
		return 0, fmt.Errorf("%s %v is not positive", field, v)
	}
	return v, nil
}

// KPIs implements workloads.KPIProvider.
func (Workload) KPIs() *kpi.Catalog { return catalog }

// PayloadResults implements workloads.KPIProvider.
func (Workload) PayloadResults() any { return &PayloadResults{} }

// FillPayload implements workloads.KPIProvider: the run's UUID, its start
// and end and the host at its start from usage.json, its labels and URLs, and the results to keep.
func (Workload) FillPayload(e *store.Entry, p *models.Payload) []string {
	r, _ := e.Results.(*Results)
	if r == nil {
		// The parse failed (its warnings say why): only labels from settings.
		fillLabels(p.Metadata.Labels, e.Settings, &Results{})
		return nil
	}
	p.Metadata.TestUUID = r.UUID
	if r.Usage != nil {
		p.Metadata.Start, p.Metadata.End = r.Usage.Start, r.Usage.End
		p.Metadata.HostStart, p.Metadata.CPUShare = r.Usage.HostStart, r.Usage.CPUShare()
		if v, ok := r.Usage.CPUPressure(); ok {
			p.Metadata.CPUPressure = &v
		}
	}
	maps.Copy(p.Metadata.URLs, r.URLs)
	fillLabels(p.Metadata.Labels, e.Settings, r)
	p.Results = &PayloadResults{PI: r.PI, HWInfo: r.HWInfo, Usage: r.Usage, Config: r.Config}
	return nil
}

// MainKPI implements workloads.MainKPIProvider: a PI measures throughput.
func (Workload) MainKPI() string { return "rate_gflops" }

// sampleCI is the distribution-free 95% interval of the median of samples
// as the built-in PIs record it (measure.Summarize); ok is false when there
// are too few samples for an interval of that coverage (fewer than 6), or
// samples that are not durations.
func sampleCI(samples []float64) (lo, hi float64, ok bool) {
	st, err := measure.Summarize(samples)
	if err != nil || st.Coverage < measure.Confidence {
		return 0, 0, false
	}
	return st.CILow, st.CIHigh, true
}
