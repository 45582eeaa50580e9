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
	// Baseline is the KEY=VALUE every side was judged against (A/B,
	// `--baseline`), "" in history mode.
	Baseline string
	// Params are the method's parameters as a person reads them.
	Params            string
	AckFile           string
	KPIFilter         string
	FailOnRegression  bool
	FailOnImprovement bool
	// ReportsIndex is the link from the HTML report back to the
	// reports_index.html of `seshat visualize` (relative to the report),
	// "" when there is none.
	ReportsIndex string
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

// buildNames names the current build of a result and the last build of its
// history, as every output names builds (buildName: the id, the short
// commit beside it); "-" for none.
func buildNames(e *regression.Entry, r *regression.KPIResult) (current, previous string) {
	current, previous = entryBuild(e), "-"
	if current == "" {
		current = "-"
	}
	if n := len(r.History); n > 0 {
		p := r.History[n-1]
		previous = buildName(p.Commit, p.Build, p.Label)
	}
	return current, previous
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
	if r.Result.Reason != "" && showsReason(r.Status) {
		parts = append(parts, r.Result.Reason)
	}
	if r.Ack != nil {
		parts = append(parts, fmt.Sprintf("acknowledged %s: %s", r.Result.Status, r.Ack.Reason))
	} else if why := whyNotFailing(r); why != "" {
		parts = append(parts, why)
	}
	if r.Confirmation != "" {
		parts = append(parts, r.Confirmation)
	}
	for _, w := range r.Warnings {
		parts = append(parts, w.Msg)
	}
	return strings.Join(parts, "; ")
}

// Outcome is what an analysis tells CI, said the same way by every output:
// the stdout table's last line, summary.md, junit.xml, the HTML report and
// regression_summary.json, and the exit status of `seshat regression`.
type Outcome struct {
	// Kind is OutcomeFailed, OutcomeFindings, OutcomePassed or
	// OutcomeNoData.
	Kind string
	// Exit is the exit status the analysis ends with: 2 when it fails, 3
	// when nothing could be judged, else 0.
	Exit int
	// Findings counts the results a reader must look at: regressions and
	// improvements, acknowledged or not; Failing those that fail.
	Findings, Failing int
	// Text says why, without the kind: "1 unacknowledged regression".
	Text string
}

// The kinds of outcome.
const (
	OutcomeFailed   = "failed"
	OutcomeFindings = "passed-with-findings"
	OutcomePassed   = "passed"
	OutcomeNoData   = "no-data"
)

// Headline is the kind and exit status in capitals, for a person scanning
// a log: "FAILED (exit 2)".
func (o Outcome) Headline() string {
	word := map[string]string{OutcomeFailed: "FAILED", OutcomeFindings: "PASSED with findings",
		OutcomePassed: "PASSED", OutcomeNoData: "NO DATA"}[o.Kind]
	return fmt.Sprintf("%s (exit %d)", word, o.Exit)
}

// Sentence is the verdict as one sentence: "failed: 1 unacknowledged
// regression".
func (o Outcome) Sentence() string {
	word := map[string]string{OutcomeFailed: "failed", OutcomeFindings: "passed with findings",
		OutcomePassed: "passed", OutcomeNoData: "nothing analysed"}[o.Kind]
	return word + ": " + o.Text
}

// OutcomeOf judges a report: it fails on a failing result (exit 2), says
// it has nothing to judge when no current entry has a KPI value, when the
// report is Incomplete, or when no result had history (exit 3; the latter
// passes when the analysis allowed it), and otherwise passes, with or
// without findings.
func OutcomeOf(rep *regression.Report) Outcome {
	s := rep.Summary
	o := Outcome{Failing: s.Failing}
	var failReg, failImp, reg, imp, ackReg, ackImp int
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if r.IsFinding() {
				o.Findings++
			}
			switch {
			case r.Failing && r.Status == analyze.StatusRegression:
				failReg++
			case r.Failing && r.Status == analyze.StatusImprovement:
				failImp++
			case r.Status == analyze.StatusRegression:
				reg++
			case r.Status == analyze.StatusImprovement:
				imp++
			case r.Status == regression.StatusAcknowledged && r.Result.Status == analyze.StatusImprovement:
				ackImp++
			case r.Status == regression.StatusAcknowledged:
				ackReg++
			}
		}
	}
	var found []string
	if reg > 0 {
		found = append(found, plural(reg, "regression")+" not failing (--fail-on-regression=false)")
	}
	if imp > 0 {
		found = append(found, plural(imp, "improvement"))
	}
	if ackReg > 0 {
		found = append(found, plural(ackReg, "acknowledged regression"))
	}
	if ackImp > 0 {
		found = append(found, plural(ackImp, "acknowledged improvement"))
	}
	noisy := ""
	if s.Suspects > 0 {
		noisy = fmt.Sprintf("; %s to confirm (one build at a new level)", plural(s.Suspects, "suspect"))
	}
	if s.Noisy > 0 {
		noisy += fmt.Sprintf("; %s too noisy to judge", plural(s.Noisy, "result"))
	}
	switch {
	case s.Entries == 0:
		o.Kind, o.Exit, o.Text = OutcomeNoData, 3, "no current entry to analyse"
	case rep.NoData():
		o.Kind, o.Exit = OutcomeNoData, 3
		o.Text = fmt.Sprintf("no current entry has a KPI value (%s not analysed: failed or incomplete runs?)", plural(s.Entries, "entry"))
	case rep.Incomplete != "":
		o.Kind, o.Exit, o.Text = OutcomeNoData, 3, rep.Incomplete
		if o.Failing > 0 {
			o.Text += fmt.Sprintf(" (%s failing besides)", plural(o.Failing, "result"))
		}
	case rep.NoHistory() && !rep.AllowNoHistory:
		o.Kind, o.Exit = OutcomeNoData, 3
		o.Text = fmt.Sprintf("no result has history (%d no-history): is --history the store the runs are uploaded to? (--allow-no-history passes a first run)", s.NoHistory)
	case rep.NoHistory():
		o.Kind = OutcomePassed
		o.Text = fmt.Sprintf("no result has history (%d no-history), allowed by --allow-no-history", s.NoHistory)
	case o.Failing > 0:
		o.Kind, o.Exit = OutcomeFailed, 2
		var parts []string
		if failReg > 0 {
			parts = append(parts, plural(failReg, "unacknowledged regression"))
		}
		if failImp > 0 {
			parts = append(parts, plural(failImp, "unacknowledged improvement")+" (failing on improvements)")
		}
		o.Text = strings.Join(parts, " and ")
		if len(found) > 0 {
			o.Text += "; also " + strings.Join(found, ", ")
		}
		o.Text += noisy
	case o.Findings > 0:
		o.Kind, o.Text = OutcomeFindings, strings.Join(found, ", ")+", none failing"+noisy
	default:
		o.Kind = OutcomePassed
		o.Text = fmt.Sprintf("no regression in %s over %s", plural(s.TotalPoints, "result"), plural(s.Entries, "entry")) + noisy
	}
	return o
}

// verdict is the outcome as one sentence.
func verdict(rep *regression.Report) string { return OutcomeOf(rep).Sentence() }

// ciOutcome is how CI counts one result, as junit.xml does: it fails,
// passes, or is skipped (could not be judged).
//
// showsReason tells whether a result of this status carries a reason to
// show beside it: why it has no verdict, or what would confirm it.
func showsReason(s analyze.Status) bool {
	switch s {
	case analyze.StatusNotAnalyzed, analyze.StatusNoHistory, analyze.StatusNoisy, analyze.StatusSuspect:
		return true
	}
	return false
}

// ciOutcome: see above.
func ciOutcome(r *regression.KPIResult) string {
	switch {
	case r.Failing:
		return "fail"
	case r.IsFinding():
		return "pass"
	}
	switch r.Status {
	case analyze.StatusNoisy, analyze.StatusNoHistory, analyze.StatusNotAnalyzed:
		return "skip"
	}
	return "pass"
}

// whyNotFailing says why a finding passes.
func whyNotFailing(r *regression.KPIResult) string {
	switch {
	case r.Failing || !r.IsFinding():
		return ""
	case r.Status == regression.StatusAcknowledged && r.Ack != nil:
		return fmt.Sprintf("acknowledged %s (%s): %s", r.Result.Status, r.Ack.Source, r.Ack.Reason)
	case r.Status == analyze.StatusRegression:
		return "regression found, not failing: --fail-on-regression=false"
	case r.Status == analyze.StatusImprovement:
		return "improvement found, not failing: improvements fail only with --fail-on-improvement"
	}
	return ""
}

// floor formats the gate's floor.
func floor(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("±%.1f%%", v)
}

// qvalue formats the FDR-adjusted p-value.
func qvalue(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("q=%.2g", v)
}

// noise formats the relative standard error.
func noise(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", v*100)
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
	return fmt.Sprintf("%d results over %d entries x %d KPIs: %d ok, %d regression(s), %d improvement(s), %d acknowledged, %d suspect, %d noisy, %d without history, %d not analysed; %d failing",
		s.TotalPoints, s.Entries, s.KPIs, s.OK, s.Regressions, s.Improvements, s.Acknowledged, s.Suspects, s.Noisy, s.NoHistory, s.NotAnalyzed, s.Failing)
}

// Counts is the one-line summary `seshat regression` prints on stderr.
func Counts(rep *regression.Report) string { return counts(rep.Summary) }

func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// isFinding: see regression.KPIResult.IsFinding.
func isFinding(r *regression.KPIResult) bool { return r.IsFinding() }

// number2 formats a number to two significant digits, "-" when unknown.
func number2(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("%.2g", v)
}
