package kpi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seshat-bench/seshat/models"
)

// Direction says which way a KPI improves. There is no default: a KPI whose
// direction is unknown cannot be analysed for regressions.
type Direction int

const (
	directionUnset Direction = iota
	// HigherIsBetter: throughput, rates.
	HigherIsBetter
	// LowerIsBetter: times, memory.
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "unset"
}

// Extractor computes a KPI value from a payload. It returns ErrNotApplicable
// when the KPI does not exist for this run (no warning), any other error when
// the data it needs is missing or broken (a warning naming the KPI).
type Extractor func(p *models.Payload) (float64, error)

// ErrNotApplicable marks a KPI that this run does not have (e.g. an import
// time for a matmul PI): the KPI is absent without a warning.
var ErrNotApplicable = errors.New("not applicable to this run")

// FromResults adapts an extractor of a workload's typed results: it fails
// with a clear error when the payload holds no results or another type.
func FromResults[R any](f func(R) (float64, error)) Extractor {
	return func(p *models.Payload) (float64, error) {
		if p.Results == nil {
			return 0, errors.New("the payload has no results")
		}
		r, ok := p.Results.(R)
		if !ok {
			var want R
			return 0, fmt.Errorf("results are %T, want %T", p.Results, want)
		}
		return f(r)
	}
}

// Definition is one KPI of a workload.
type Definition struct {
	// Name is snake_case; it is the key in the payload's kpis and, prefixed
	// by the workload name, the OpenMetrics metric name.
	Name string
	Help string
	// Unit is the unit of the stored value (GFLOPS, ms, bytes, seconds).
	// When it is an OpenMetrics base unit the name must end with _<unit>.
	Unit      string
	Direction Direction
	// IgnoredForRegression KPIs are exported but never fail a regression
	// analysis (e.g. the width of a confidence interval).
	IgnoredForRegression bool
	// Format is the fmt verb of the display value; "%.4g" when empty.
	Format string
	// Divisor scales the display value (bytes shown as MiB: 1<<20); 0 means 1.
	Divisor float64
	// DisplayUnit is the unit of the display value; Unit when empty.
	DisplayUnit string
	Extract     Extractor
}

// LowerBetter reports the direction as stored in KPI values.
func (d Definition) LowerBetter() bool { return d.Direction == LowerIsBetter }

// Display formats a stored value for people: divided by Divisor, formatted
// by Format, followed by the display unit.
func (d Definition) Display(v float64) string {
	if d.Divisor != 0 {
		v /= d.Divisor
	}
	format := d.Format
	if format == "" {
		format = "%.4g"
	}
	unit := d.DisplayUnit
	if unit == "" {
		unit = d.Unit
	}
	return strings.TrimSpace(fmt.Sprintf(format, v) + " " + unit)
}

// openMetricsUnits are the base units of the OpenMetrics specification: a
// KPI in one of them gets a # UNIT line, which requires the name suffix.
var openMetricsUnits = map[string]bool{
	"seconds": true, "bytes": true, "joules": true, "grams": true, "meters": true,
	"ratios": true, "volts": true, "amperes": true, "celsius": true,
}

// IsOpenMetricsUnit reports whether unit is an OpenMetrics base unit.
func IsOpenMetricsUnit(unit string) bool { return openMetricsUnits[unit] }

// check returns why d is not a usable definition.
func (d Definition) check() error {
	var problems []string
	if !models.IsSnakeCase(d.Name) {
		problems = append(problems, "name is not snake_case")
	}
	if strings.TrimSpace(d.Help) == "" {
		problems = append(problems, "no help")
	}
	if d.Unit == "" {
		problems = append(problems, "no unit")
	}
	if d.Direction != HigherIsBetter && d.Direction != LowerIsBetter {
		problems = append(problems, "no direction (HigherIsBetter or LowerIsBetter)")
	}
	if d.Extract == nil {
		problems = append(problems, "no extractor")
	}
	if d.Divisor < 0 {
		problems = append(problems, "negative divisor")
	}
	if IsOpenMetricsUnit(d.Unit) && !strings.HasSuffix(d.Name, "_"+d.Unit) {
		problems = append(problems, fmt.Sprintf("unit %s is an OpenMetrics unit: the name must end with _%s", d.Unit, d.Unit))
	}
	if len(problems) > 0 {
		return fmt.Errorf("kpi %q: %s", d.Name, strings.Join(problems, ", "))
	}
	return nil
}
