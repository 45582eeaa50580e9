package report

import (
	"encoding/json"
	"io"
	"math"

	"github.com/seshat-bench/seshat/analyze/regression"
)

// summaryDoc is regression_summary.json: the counts of matbench's summary,
// the verdict, and the findings for scripts (a bot commenting on a pull
// request).
type summaryDoc struct {
	Method  string `json:"method"`
	Failed  bool   `json:"failed"`
	Verdict string `json:"verdict"`
	regression.Summary
	// Confirm is what --confirm re-ran and made of the suspects.
	Confirm  *regression.Confirm `json:"confirm,omitempty"`
	Findings []finding           `json:"findings"`
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
	PValue       *float64          `json:"pvalue"`
	Score        *float64          `json:"score"`
	Points       int               `json:"history_points"`
	TestUUIDs    []string          `json:"test_uuids"`
	AckReason    string            `json:"ack_reason,omitempty"`
	Details      string            `json:"details"`
}

func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteSummaryJSON writes regression_summary.json.
func WriteSummaryJSON(w io.Writer, rep *regression.Report) error {
	doc := summaryDoc{Method: rep.Method, Failed: rep.Failed(), Verdict: verdict(rep), Summary: rep.Summary, Confirm: rep.Confirm, Findings: []finding{}}
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			if !isFinding(r) {
				continue
			}
			f := finding{Entry: e.ID, Name: e.Name, Labels: e.Labels, Comparison: e.ComparisonValue, KPI: r.KPI,
				Status: string(r.Status), Verdict: string(r.Result.Status), Failing: r.Failing,
				Current: number(r.Current.Value), Reference: number(r.Result.Reference), Unit: r.Unit,
				DeltaPercent: number(r.Result.DeltaPercent), PValue: number(r.Result.PValue), Score: number(r.Result.Score),
				Points: len(r.History), Details: r.Result.Details, TestUUIDs: []string{}}
			for _, run := range e.Runs {
				if run.TestUUID != "" {
					f.TestUUIDs = append(f.TestUUIDs, run.TestUUID)
				}
			}
			if r.Ack != nil {
				f.AckReason = r.Ack.Reason
			}
			doc.Findings = append(doc.Findings, f)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
