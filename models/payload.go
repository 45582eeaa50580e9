package models

import (
	"time"
)

// LTSSchemaVersion is the version of the payload format this build writes.
// Readers refuse payloads of another version (strict validation).
const LTSSchemaVersion = "1.0"

// Payload is the LTS (long-term storage) record of one run: who ran what,
// when, with which settings and labels; the workload's typed results; and
// the KPIs computed from them.
type Payload struct {
	Metadata Metadata `json:"metadata"`
	// Results is the workload's typed results (a pointer to a struct of the
	// workload package) when built by a parse, and a generic JSON value when
	// decoded from storage. Nil when the workload could not provide any.
	Results any `json:"results" validate:"required"`
	// KPIs by name; a KPI whose extractor failed is absent.
	KPIs map[string]KPIValue `json:"kpis" validate:"required,dive,keys,kpi_name,endkeys"`
}

// Metadata identifies a run and says how to group it with others.
type Metadata struct {
	LTSSchemaVersion string `json:"lts_schema_version" validate:"required,oneof=1.0"`
	// TestUUID is the run's UUID v4 (its .uuid file): the payload's key.
	TestUUID string    `json:"test_uuid" validate:"required,uuid4"`
	Start    time.Time `json:"start" validate:"required"`
	End      time.Time `json:"end" validate:"required,gtefield=Start"`
	// ExitCode is the PI's exit status; failed runs are data too.
	ExitCode *int   `json:"exit_code" validate:"required"`
	Workload string `json:"workload" validate:"required"`
	// Settings is the run's merged settings.yaml, `@` settings included.
	Settings map[string]any `json:"settings" validate:"required"`
	// Labels are the KPI labels (workload-defined, versioned by the
	// kpi_settings_version label), stored once here rather than in each KPI.
	Labels map[string]string `json:"labels" validate:"required,dive,keys,label_name,endkeys,required"`
	// Build is what was under test, when the run says (build.json); nil
	// when it does not: the run is then its own build.
	Build *Build `json:"build,omitempty" validate:"omitempty"`
	// URLs locate the run's artifacts when they are published (CI), by
	// name: "artifacts" for the run directory, file names for its files.
	URLs map[string]string `json:"urls" validate:"required,dive,keys,required,endkeys,url"`
	// HostStart is the host just before the run started (its load
	// averages and governor, from the runner's usage.json), where the
	// workload reads it; nil otherwise. History-mode regression analysis
	// compares the load of the current runs with that of the builds they
	// are judged against.
	HostStart *HostState `json:"host_start,omitempty" validate:"omitempty"`
	// CPUShare is the CPU time of the run's process per second of its
	// wall time (Usage.CPUShare), where the workload reads it; 0 when
	// unknown. Below its usual value, the run waited for a CPU.
	CPUShare float64 `json:"cpu_share,omitempty" validate:"gte=0"`
	// CPUPressure is the share of the run's wall time during which some
	// task on the host waited for a CPU (Usage.CPUPressure), where the
	// workload reads it and the kernel counts it; nil otherwise.
	CPUPressure *float64 `json:"cpu_pressure,omitempty" validate:"omitempty,gte=0,lte=1"`
}

// KPIValue is one KPI of a run as stored in its payload.
type KPIValue struct {
	Value float64 `json:"value" validate:"finite"`
	Unit  string  `json:"unit" validate:"required"`
	Help  string  `json:"help" validate:"required"`
	// LowerBetter tells regression analysis which way is bad.
	LowerBetter bool      `json:"lower_better"`
	Timestamp   time.Time `json:"@timestamp" validate:"required"`
	TestUUID    string    `json:"test_uuid" validate:"required,uuid4"`
}
