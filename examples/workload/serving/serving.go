// Package serving is the worked example of docs/writing-a-workload.md: a
// workload for the load test of an inference server. Each run directory
// holds the load generator's report.json beside settings.yaml and
// exit_code; the workload reads it, labels the run and computes three KPIs
// (throughput, median and tail latency) that every Seshat verb then uses.
//
// Importing the package registers the workload. The seshat binary does not
// import it; a fork adds `_ ".../examples/workload/serving"` to
// cmd/seshat/root.go.
package serving

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// Name is the value of the `workload` setting of this workload's runs.
const Name = "serving"

// Report is report.json, as the load generator writes it:
//
//	{"uuid": "...", "start": "...", "end": "...",
//	 "server": {"name": "vllm", "version": "0.6.3"}, "requests": 2000,
//	 "throughput_rps": 812.5, "latency_ms": {"p50": 4.1, "p99": 11.8}}
//
// The pointers tell a missing value from a zero; the validate tags are
// what strict LTS validation requires of a payload's results.
type Report struct {
	UUID          string    `json:"uuid"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	Server        Server    `json:"server"`
	Requests      int       `json:"requests" validate:"min=1"`
	ThroughputRPS *float64  `json:"throughput_rps" validate:"required"`
	LatencyMs     Latency   `json:"latency_ms"`
}

// Server is the software under test: the stack whose versions are compared.
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Latency holds percentiles of the request latency, in milliseconds.
type Latency struct {
	P50 *float64 `json:"p50" validate:"required"`
	P99 *float64 `json:"p99" validate:"required"`
}

// Results is what parsing one run produces and the parse cache keeps.
type Results struct {
	Report *Report `json:"report,omitempty"`
}

// Workload is the serving workload.
type Workload struct{}

func init() { workloads.Register(Workload{}) }

// Name implements store.Parser.
func (Workload) Name() string { return Name }

// ParserVersion implements store.Parser. Bump it whenever ParseOnce reads
// the same files differently: every cached entry is then parsed again.
func (Workload) ParserVersion() string { return "1" }

// ArtifactDirnames implements store.Parser: report.json sits in the run
// directory itself, no subdirectory to find.
func (Workload) ArtifactDirnames() map[string]string { return nil }

// ImportantFiles implements store.Parser: the files ParseOnce reads, whose
// sizes and times key the cache.
func (Workload) ImportantFiles() []string { return []string{"report.json"} }

// NewResult implements store.Parser.
func (Workload) NewResult() any { return &Results{} }

// ParseOnce implements store.Parser. A missing or broken report.json is a
// warning naming the file, never an error: the entry still appears, with
// what could be read.
func (Workload) ParseOnce(ctx *store.ParseContext) (any, error) {
	r := &Results{}
	data, err := ctx.ReadFile("report.json")
	if err != nil {
		ctx.Warnf("%v", err)
		return r, nil
	}
	var rep Report
	if err := parsers.JSON("report.json", data, &rep); err != nil {
		ctx.Warnf("%v", err)
		return r, nil
	}
	r.Report = &rep
	return r, nil
}

// ParseAlways implements store.Parser: nothing here depends on where the
// results are parsed.
func (Workload) ParseAlways(*store.AlwaysContext, any) error { return nil }

// catalog declares the labels and KPIs. MustCatalog panics on a bad
// declaration (a KPI without direction, a name that is not snake_case),
// so a mistake shows when the package is first imported.
var catalog = kpi.MustCatalog(Name,
	kpi.LabelsModel{
		// Bump when a label or a KPI changes meaning: regression analysis
		// never compares records of different versions.
		SettingsVersion: "1.0.0",
		Labels: []kpi.Label{
			{Name: "model", Help: "the model served", Required: true},
			{Name: "device", Help: "cpu or gpu", Required: true},
			{Name: "server", Help: "the inference server", Required: true},
			{Name: "server_version", Help: "its version: the comparison key", Required: true},
			{Name: "concurrency", Help: "concurrent clients, when set"},
		},
	},
	kpi.Definition{
		Name: "throughput_rps", Unit: "requests/s", Direction: kpi.HigherIsBetter, Format: "%.1f",
		Help: "Requests served per second.",
		Extract: kpi.FromResults(func(r *Report) (float64, error) {
			if r.ThroughputRPS == nil {
				return 0, errors.New("report.json has no throughput_rps")
			}
			return *r.ThroughputRPS, nil
		}),
	},
	kpi.Definition{
		Name: "latency_p50_ms", Unit: "ms", Direction: kpi.LowerIsBetter, Format: "%.2f",
		Help: "Median request latency, in milliseconds.",
		Extract: kpi.FromResults(func(r *Report) (float64, error) {
			if r.LatencyMs.P50 == nil {
				return 0, errors.New("report.json has no latency_ms.p50")
			}
			return *r.LatencyMs.P50, nil
		}),
	},
	kpi.Definition{
		Name: "latency_p99_ms", Unit: "ms", Direction: kpi.LowerIsBetter, Format: "%.2f",
		Help: "99th percentile of the request latency, in milliseconds.",
		Extract: kpi.FromResults(func(r *Report) (float64, error) {
			if r.LatencyMs.P99 == nil {
				return 0, errors.New("report.json has no latency_ms.p99")
			}
			return *r.LatencyMs.P99, nil
		}),
	},
)

// KPIs implements workloads.KPIProvider.
func (Workload) KPIs() *kpi.Catalog { return catalog }

// PayloadResults implements workloads.KPIProvider: the type of a payload's
// results, for the JSON Schema `seshat schema` writes.
func (Workload) PayloadResults() any { return &Report{} }

// FillPayload implements workloads.KPIProvider: what only this workload
// knows of a run. Labels it cannot tell stay absent; strict validation
// names the required ones.
func (Workload) FillPayload(e *store.Entry, p *models.Payload) []string {
	var warnings []string
	setting := func(label, key string) {
		if v, ok := e.Settings[key]; ok && v != nil {
			p.Metadata.Labels[label] = fmt.Sprint(v)
		}
	}
	setting("model", "model")
	setting("device", "device")
	setting("concurrency", "concurrency")

	r, _ := e.Results.(*Results)
	if r == nil || r.Report == nil {
		return append(warnings, "no report.json: no results")
	}
	rep := r.Report
	p.Metadata.TestUUID = strings.ToLower(rep.UUID)
	p.Metadata.Start, p.Metadata.End = rep.Start, rep.End
	if rep.Server.Name != "" {
		p.Metadata.Labels["server"] = rep.Server.Name
	}
	if rep.Server.Version != "" {
		p.Metadata.Labels["server_version"] = rep.Server.Version
	}
	p.Results = rep
	return warnings
}
