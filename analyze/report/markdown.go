package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/markdown"
)

// MaxMarkdownRows bounds the tables of summary.md: a CI step summary is
// read on a page, and GitHub refuses one over 1 MiB.
const MaxMarkdownRows = 50

var statusMark = map[analyze.Status]string{
	analyze.StatusOK:              "✅",
	analyze.StatusRegression:      "🔴",
	analyze.StatusImprovement:     "🟢",
	regression.StatusAcknowledged: "🟠",
	analyze.StatusNoisy:           "🟡",
	analyze.StatusSuspect:         "🟣",
	analyze.StatusNoHistory:       "⚪",
	analyze.StatusNotAnalyzed:     "⚪",
}

var outcomeMark = map[string]string{
	OutcomeFailed:   "❌",
	OutcomeFindings: "⚠️",
	OutcomePassed:   "✅",
	OutcomeNoData:   "⚪",
}

// WriteMarkdown writes summary.md, suitable for a CI step summary
// ($GITHUB_STEP_SUMMARY): the outcome, the counts, the findings (each
// saying whether it fails), the results too noisy to judge and what could
// not be analysed, each table capped at MaxMarkdownRows rows. GitHub
// renders it: every value is escaped (internal/markdown), so that labels,
// units and reasons read as the text they are.
func WriteMarkdown(w io.Writer, rep *regression.Report, info Info) error {
	var b strings.Builder
	s := rep.Summary
	o := OutcomeOf(rep)
	fmt.Fprintf(&b, "## %s Seshat regression analysis\n\n", outcomeMark[o.Kind])
	fmt.Fprintf(&b, "**%s**: %s\n\n", o.Headline(), markdown.Escape(o.Text))
	b.WriteString("| entries | KPIs | results | ok | regressions | improvements | acknowledged | suspect | noisy | no history | not analysed | failing |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n",
		s.Entries, s.KPIs, s.TotalPoints, s.OK, s.Regressions, s.Improvements, s.Acknowledged, s.Suspects, s.Noisy, s.NoHistory, s.NotAnalyzed, s.Failing)
	fmt.Fprintf(&b, "Method %s (%s); history from %s.\n", markdown.Code(rep.Method), markdown.Escape(info.Params), markdown.Code(info.History))

	var findings, suspects, noisy, skipped []row
	for _, e := range rep.Entries {
		for _, r := range e.Results {
			switch {
			case isFinding(r):
				findings = append(findings, row{e, r})
			case r.Status == analyze.StatusSuspect:
				suspects = append(suspects, row{e, r})
			case r.Status == analyze.StatusNoisy:
				noisy = append(noisy, row{e, r})
			case r.Status == analyze.StatusNotAnalyzed:
				skipped = append(skipped, row{e, r})
			}
		}
	}
	if len(findings) > 0 {
		fmt.Fprintf(&b, "\n### Findings (%d, %d failing)\n\n", len(findings), s.Failing)
		b.WriteString("| status | fails? | # | entry | comparison | build | previous build | KPI | current | reference | delta | floor | statistic | note |\n")
		b.WriteString("|---|---|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---|\n")
		for i, f := range findings {
			if i == MaxMarkdownRows {
				fmt.Fprintf(&b, "\n… and %d more in regression_report.html.\n", len(findings)-i)
				break
			}
			e, r := f.e, f.r
			fails := "no"
			if r.Failing {
				fails = "**yes**"
			}
			cur, prev := buildNames(e, r)
			fmt.Fprintf(&b, "| %s %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", statusMark[r.Status], r.Status, fails, e.ID,
				markdown.Escape(e.Name), markdown.Escape(comparison(e)), markdown.Escape(cur), markdown.Escape(prev), markdown.Escape(kpiName(r)), markdown.Escape(r.Display(r.CurrentValue())), markdown.Escape(r.Display(r.Result.Reference)),
				delta(r.Result.DeltaPercent), floor(r.Result.Floor), statistic(r.Result), markdown.Escape(note(r)))
		}
	}
	reasonTable(&b, "Suspects, to confirm", suspects)
	reasonTable(&b, "Too noisy to judge", noisy)
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\n### Not analysed (%d)\n\n", len(skipped))
		b.WriteString("| # | entry | KPI | reason |\n|---:|---|---|---|\n")
		for i, f := range skipped {
			if i == MaxMarkdownRows {
				fmt.Fprintf(&b, "\n… and %d more in regression_report.html.\n", len(skipped)-i)
				break
			}
			e, r := f.e, f.r
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", e.ID, markdown.Escape(e.Name), markdown.Escape(kpiName(r)), markdown.Escape(r.Result.Reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// row is one entry x KPI.
type row struct {
	e *regression.Entry
	r *regression.KPIResult
}

// reasonTable writes a table of results with their reasons (suspects, the
// results too noisy to judge), capped at MaxMarkdownRows rows.
func reasonTable(b *strings.Builder, title string, rows []row) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s (%d)\n\n", title, len(rows))
	b.WriteString("| # | entry | KPI | current | reference | delta | noise | reason |\n|---:|---|---|---:|---:|---:|---:|---|\n")
	for i, f := range rows {
		if i == MaxMarkdownRows {
			fmt.Fprintf(b, "\n… and %d more in regression_report.html.\n", len(rows)-i)
			break
		}
		e, r := f.e, f.r
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", e.ID, markdown.Escape(e.Name), markdown.Escape(kpiName(r)),
			markdown.Escape(r.Display(r.CurrentValue())), markdown.Escape(r.Display(r.Result.Reference)), delta(r.Result.DeltaPercent), noise(r.Result.Noise), markdown.Escape(r.Result.Reason))
	}
}
