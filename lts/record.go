package lts

import (
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/models"
)

// Record is one stored run as history reads it: which run, when, of which
// build and workload, its labels, and its KPI values with their
// definitions; neither settings nor results. It is the one shape of history:
// regression analysis, the KPI history plots and `seshat history` all read
// Records from a Store. Its JSON form is `seshat history --format json`'s.
type Record struct {
	// Time is the run's start: the @timestamp of every KPI of the run.
	Time     time.Time `json:"@timestamp"`
	TestUUID string    `json:"test_uuid"`
	Workload string    `json:"workload"`
	// ExitCode is the run's exit status (failed runs are data too, without
	// KPIs).
	ExitCode *int `json:"exit_code"`
	// Build is what was under test (metadata.build); nil when the run does
	// not say: the run is then its own build (BuildID).
	Build *models.Build `json:"build,omitempty"`
	// Labels are the run's KPI labels.
	Labels map[string]string `json:"labels"`
	// Values are the KPI values by name.
	Values map[string]float64 `json:"kpis"`
	// Defs define the KPIs of Values: unit, direction, help.
	Defs map[string]KPIDef `json:"-"`
	// HostLoad is the host's one-minute load average just before the run
	// started (metadata.host_start.loadavg[0]); nil when the run does not
	// say.
	HostLoad *float64 `json:"host_load,omitempty"`
	// CPUShare is the run's CPU time per second of wall time
	// (metadata.cpu_share); 0 when the run does not say.
	CPUShare float64 `json:"cpu_share,omitempty"`
	// CPUPressure is the share of the run's wall time during which some
	// task on the host waited for a CPU (metadata.cpu_pressure); nil when
	// the run does not say.
	CPUPressure *float64 `json:"cpu_pressure,omitempty"`
	// Samples are the summaries of the run's per-iteration samples by KPI
	// (what analyze.HierBootstrap.CompareStats needs of them), yielded
	// when Query.SampleStats asks: kept by the store when the payload was
	// stored (SampleStatsOf with StoreOptions.Samples). A KPI without a
	// usable sample is absent. Nil: the store kept none for this run (it
	// was stored before stores kept them, or by a store opened without
	// StoreOptions.Samples): read its samples from its results.
	Samples map[string]analyze.RunStats `json:"-"`
	// Labels, Build, Defs and ExitCode may be shared by the records of one
	// query (a store decodes each distinct label set, build and set of
	// definitions once): read them, never modify them.
}

// KPIDef is what a stored run says of one of its KPIs besides the value.
type KPIDef struct {
	Unit string `json:"unit"`
	Help string `json:"help"`
	// LowerBetter tells which way is bad.
	LowerBetter bool `json:"lower_better"`
}

// BuildID names the build of the run: its build's id, else (a run without
// a build is its own build) "run:" and its test_uuid.
func (r Record) BuildID() string {
	if r.Build != nil && r.Build.ID != "" {
		return r.Build.ID
	}
	return "run:" + r.TestUUID
}

// KPI returns the KPI of the run as its payload held it; false when the
// run has no value for it.
func (r Record) KPI(name string) (models.KPIValue, bool) {
	v, ok := r.Values[name]
	if !ok {
		return models.KPIValue{}, false
	}
	d := r.Defs[name]
	return models.KPIValue{Value: v, Unit: d.Unit, Help: d.Help, LowerBetter: d.LowerBetter, Timestamp: r.Time, TestUUID: r.TestUUID}, true
}

// RecordOf returns the record of a payload. Its maps are the record's own;
// Labels is the payload's.
func RecordOf(p *models.Payload) Record {
	m := p.Metadata
	r := Record{Time: m.Start.UTC(), TestUUID: m.TestUUID, Workload: m.Workload, ExitCode: m.ExitCode, Build: m.Build,
		Labels: m.Labels, Values: make(map[string]float64, len(p.KPIs)), Defs: make(map[string]KPIDef, len(p.KPIs))}
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	r.HostLoad, r.CPUShare, r.CPUPressure = LoadOf(m.HostStart), m.CPUShare, m.CPUPressure
	for name, v := range p.KPIs {
		r.Values[name] = v.Value
		r.Defs[name] = KPIDef{Unit: v.Unit, Help: v.Help, LowerBetter: v.LowerBetter}
	}
	return r
}

// SampleStatsOf summarises the per-iteration samples behind each KPI of a
// payload that samples gives (analyze.SummarizeRun), as a store keeps
// them (Record.Samples): a KPI without samples, or with one analyze
// refuses (not positive), is left out. Nil when samples is nil: nothing
// is known of the payload's samples.
func SampleStatsOf(p *models.Payload, samples func(p *models.Payload, kpi string) []float64) map[string]analyze.RunStats {
	if samples == nil {
		return nil
	}
	out := map[string]analyze.RunStats{}
	for name := range p.KPIs {
		if s, err := analyze.SummarizeRun(samples(p, name)); err == nil {
			out[name] = s
		}
	}
	return out
}

// LoadOf is the one-minute load average of a host state; nil when it has
// none.
func LoadOf(h *models.HostState) *float64 {
	if h == nil || len(h.LoadAvg) == 0 {
		return nil
	}
	v := h.LoadAvg[0]
	return &v
}

// Only keeps the KPIs of r named in names (all of them when names is nil):
// what Query.KPIs asks. Values and Defs are new maps when some are dropped.
func (r Record) Only(names []string) Record {
	if names == nil {
		return r
	}
	values := make(map[string]float64, len(names))
	defs := make(map[string]KPIDef, len(names))
	for _, n := range names {
		if v, ok := r.Values[n]; ok {
			values[n] = v
			if d, ok := r.Defs[n]; ok {
				defs[n] = d
			}
		}
	}
	r.Values, r.Defs = values, defs
	return r
}
