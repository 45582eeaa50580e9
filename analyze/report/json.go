package report

import (
	"encoding/json"
	"io"
	"math"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
)

// summaryDoc is regression_summary.json: the counts of matbench's summary,
// the outcome as every other output states it, the findings and the
// results too noisy to judge, for scripts (a bot commenting on a pull
// request).
type summaryDoc struct {
	Method string `json:"method"`
	// Failed is true exactly when the analysis exits 2.
	Failed bool `json:"failed"`
	// Outcome is failed, passed-with-findings, passed or no-data;
	// ExitStatus the exit status that goes with it (2, 0, 0, 3).
	Outcome    string `json:"outcome"`
	ExitStatus int    `json:"exit_status"`
	Verdict    string `json:"verdict"`
	regression.Summary
	// Confirm is what --confirm re-ran and made of the suspects.
	Confirm *regression.Confirm `json:"confirm,omitempty"`
	// FindingCount is len(Findings): regressions and improvements,
	// acknowledged or not.
	FindingCount int       `json:"finding_count"`
	Findings     []finding `json:"findings"`
	// Suspects are single builds at a new level that nothing confirms yet.
	Suspects     []finding `json:"suspect_results"`
	NoisyResults []finding `json:"noisy_results"`
}

type finding struct {
	Entry        int               `json:"entry"`
	Name         string            `json:"name"`
	Labels       map[string]string `json:"labels"`
	Comparison   string            `json:"comparison"`
	KPI          string            `json:"kpi"`
	Status       string            `json:"status"`
	Verdict      string            `json:"verdict"`
	Failing      bool              `json:"failing"`
	Current      *float64          `json:"current"`
	Reference    *float64          `json:"reference"`
	Unit         string            `json:"unit"`
	DeltaPercent *float64          `json:"delta_percent"`
	FloorPercent *float64          `json:"floor_percent"`
	PValue       *float64          `json:"pvalue"`
	QValue       *float64          `json:"qvalue"`
	Score        *float64          `json:"score"`
	Noise        *float64          `json:"noise"`
	Detectable   *float64          `json:"detectable_percent"`
	Points       int               `json:"history_points"`
	TestUUIDs    []string          `json:"test_uuids"`
	AckReason    string            `json:"ack_reason,omitempty"`
	// NotFailing says why a finding passes; Reason why a result could not
	// be judged.
	NotFailing string `json:"not_failing,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// ConfirmRounds is how many rounds of re-runs --confirm gave it.
	ConfirmRounds int    `json:"confirm_rounds,omitempty"`
	Details       string `json:"details"`
}

func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func findingOf(e *regression.Entry, r *regression.KPIResult) finding {
	f := finding{Entry: e.ID, Name: e.Name, Labels: e.Labels, Comparison: e.ComparisonValue, KPI: r.KPI,
		Status: string(r.Status), Verdict: string(r.Result.Status), Failing: r.Failing,
		Current: number(r.CurrentValue()), Reference: number(r.Result.Reference), Unit: r.Unit,
		DeltaPercent: number(r.Result.DeltaPercent), FloorPercent: number(r.Result.Floor),
		PValue: number(r.Result.PValue), QValue: number(r.Result.QValue), Score: number(r.Result.Score),
		Noise: number(r.Result.Noise), Detectable: number(r.Result.Detectable),
		Points: len(r.History), Details: r.Result.Details, TestUUIDs: []string{}, NotFailing: whyNotFailing(r), ConfirmRounds: r.ConfirmRounds}
	if r.Status == analyze.StatusNoisy || r.Status == analyze.StatusSuspect {
		f.Reason = r.Result.Reason
	}
	for _, run := range e.Runs {
		if run.TestUUID != "" {
			f.TestUUIDs = append(f.TestUUIDs, run.TestUUID)
		}
	}
	if r.Ack != nil {
		f.AckReason = r.Ack.Reason
	}
	return f
}

// WriteSummaryJSON writes regression_summary.json.
func WriteSummaryJSON(w io.Writer, rep *regression.Report) error {
	o := OutcomeOf(rep)
	doc := summaryDoc{Method: rep.Method, Failed: o.Kind == OutcomeFailed, Outcome: o.Kind, ExitStatus: o.Exit, Verdict: o.Sentence(),
		Summary: rep.Summary, Confirm: rep.Confirm, Findings: []finding{}, Suspects: []finding{}, NoisyResults: []finding{}}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			switch {
			case r.IsFinding():
				doc.Findings = append(doc.Findings, findingOf(e, r))
			case r.Status == analyze.StatusSuspect:
				doc.Suspects = append(doc.Suspects, findingOf(e, r))
			case r.Status == analyze.StatusNoisy:
				doc.NoisyResults = append(doc.NoisyResults, findingOf(e, r))
			}
		}
	}
	doc.FindingCount = len(doc.Findings)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
