package regression

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/seshat-bench/seshat/lts"
)

// referenceBuilds bounds the builds of history a verdict names.
const referenceBuilds = 10

// Verdicts are the results of rep as lts.Verdicts of the analysis
// analysisID made at t (`seshat regression --store-results`): one per
// entry x KPI with a current build, the builds of history it was judged
// against (the last referenceBuilds, the latest last).
func Verdicts(rep *Report, analysisID string, t time.Time) []lts.Verdict {
	var out []lts.Verdict
	for _, e := range rep.Entries {
		for _, res := range e.Results {
			if res.KPI == "" || res.Status == StatusBaseline {
				continue
			}
			v := lts.Verdict{
				ID: lts.VerdictID(analysisID, e.Workload, e.Labels, e.ComparisonValue, res.KPI), AnalysisID: analysisID,
				Time: t.UTC(), Workload: e.Workload, Labels: maps.Clone(e.Labels), Comparison: e.ComparisonValue,
				KPI: res.KPI, Unit: res.Unit, Status: string(res.Status), Failing: res.Failing,
				DeltaPercent: lts.Float(res.Result.DeltaPercent), FloorPercent: lts.Float(res.Result.Floor),
				QValue: lts.Float(res.Result.QValue), Current: lts.Float(res.Result.Current), Reference: lts.Float(res.Result.Reference),
				Build: res.Current.Build, Commit: e.Commit, Reason: res.Reason(),
			}
			if v.Build == "" && len(e.Builds) > 0 {
				v.Build = e.Builds[0]
			}
			if res.Ack != nil {
				v.Reason = res.Ack.Reason
			}
			for i := len(res.History) - 1; i >= 0 && len(v.ReferenceBuilds) < referenceBuilds; i-- {
				if b := res.History[i].Build; b != "" && !slices.Contains(v.ReferenceBuilds, b) {
					v.ReferenceBuilds = append(v.ReferenceBuilds, b)
				}
			}
			slices.Reverse(v.ReferenceBuilds)
			if v.ReferenceBuilds == nil {
				v.ReferenceBuilds = []string{}
			}
			out = append(out, v)
		}
	}
	return out
}

// TriageAcks are the acks of the triaged alerts among vs whose triage
// silences them (acknowledged or invalid): each covers the same workload,
// series, KPI and current build, and gives the triage's reason.
func TriageAcks(vs []lts.Verdict) []Ack {
	var out []Ack
	for _, v := range vs {
		if !v.IsAlert() || !v.Triage.Silences() {
			continue
		}
		reason := "acknowledged in triage: " + v.Triage.Reason
		if v.Triage.State == lts.TriageInvalid {
			reason = "invalid (noise) in triage"
			if v.Triage.Reason != "" {
				reason += ": " + v.Triage.Reason
			}
		}
		if v.Triage.Bug != "" {
			reason += " (" + v.Triage.Bug + ")"
		}
		series := maps.Clone(v.Labels)
		if series == nil {
			series = map[string]string{}
		}
		out = append(out, Ack{Workload: v.Workload, Series: series, Build: v.Build, KPI: v.KPI,
			Reason: reason, Triage: true, Source: fmt.Sprintf("triage of alert %s", v.ID)})
	}
	return out
}
