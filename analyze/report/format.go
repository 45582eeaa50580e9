package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
)

// Info is what the report says about how the analysis was run, beyond the
// Report itself.
type Info struct {
	// Current names where the current runs came from (results directory,
	// LTS file).
	Current string
	// History names the store, without credentials.
	History string
	// Params are the method's parameters as a person reads them.
	Params            string
	AckFile           string
	KPIFilter         string
	FailOnRegression  bool
	FailOnImprovement bool
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// delta formats a change in percent.
func delta(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// statistic formats the p-value, else the method's score.
func statistic(r analyze.Result) string {
	switch {
	case finite(r.PValue):
		return fmt.Sprintf("p=%.2g", r.PValue)
	case finite(r.Score):
		return fmt.Sprintf("score=%.3g", r.Score)
	}
	return "-"
}

// comparison is an entry's comparison value, never empty.
func comparison(e *regression.Entry) string {
	if e.ComparisonValue == "" {
		return "-"
	}
	return e.ComparisonValue
}

// kpiName is a result's KPI, never empty.
func kpiName(r *regression.KPIResult) string {
	if r.KPI == "" {
		return "-"
	}
	return r.KPI
}

// note is the one line beside a result: why it was not analysed, the ack,
// the warnings.
func note(r *regression.KPIResult) string {
	var parts []string
	if r.Result.Reason != "" && (r.Status == analyze.StatusNotAnalyzed || r.Status == analyze.StatusNoHistory || r.Status == analyze.StatusNoisy) {
		parts = append(parts, r.Result.Reason)
	}
	if r.Ack != nil {
		parts = append(parts, fmt.Sprintf("acknowledged %s: %s", r.Result.Status, r.Ack.Reason))
	}
	if r.Confirmation != "" {
		parts = append(parts, r.Confirmation)
	}
	for _, w := range r.Warnings {
		parts = append(parts, w.Msg)
	}
	return strings.Join(parts, "; ")
}

// verdict is one sentence saying whether the analysis fails and why.
func verdict(rep *regression.Report) string {
	s := rep.Summary
	if s.Entries == 0 {
		return "no current entries to analyse"
	}
	var regressions, improvements int
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			switch {
			case !r.Failing:
			case r.Status == analyze.StatusRegression:
				regressions++
			case r.Status == analyze.StatusImprovement:
				improvements++
			}
		}
	}
	var parts []string
	if regressions > 0 {
		parts = append(parts, plural(regressions, "unacknowledged regression"))
	}
	if improvements > 0 {
		parts = append(parts, plural(improvements, "unacknowledged improvement")+" (failing on improvements)")
	}
	if len(parts) > 0 {
		return "failed: " + strings.Join(parts, " and ")
	}
	if s.Regressions > 0 {
		return fmt.Sprintf("passed: %s found, but failing on regressions is off", plural(s.Regressions, "regression"))
	}
	return fmt.Sprintf("passed: no unacknowledged regression in %s over %s", plural(s.TotalPoints, "result"), plural(s.Entries, "entry"))
}

// plural writes n things, in the plural when n is not 1.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(thing, "y"))
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// counts is the summary as one line.
func counts(s regression.Summary) string {
	return fmt.Sprintf("%d results over %d entries x %d KPIs: %d ok, %d regression(s), %d improvement(s), %d acknowledged, %d noisy, %d without history, %d not analysed",
		s.TotalPoints, s.Entries, s.KPIs, s.OK, s.Regressions, s.Improvements, s.Acknowledged, s.Noisy, s.NoHistory, s.NotAnalyzed)
}

// Counts is the one-line summary `seshat regression` prints on stderr.
func Counts(rep *regression.Report) string { return counts(rep.Summary) }

func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// findings are the results a reader must look at: regressions,
// improvements, acknowledged ones, and those failing.
func isFinding(r *regression.KPIResult) bool {
	switch r.Status {
	case analyze.StatusRegression, analyze.StatusImprovement, regression.StatusAcknowledged:
		return true
	}
	return r.Failing
}
