package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/analyze/regression"
)

// The JUnit XML shape CI systems read (Jenkins, GitLab, GitHub actions).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	ClassName  string          `xml:"classname,attr"`
	Name       string          `xml:"name,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitMessage   `xml:"failure,omitempty"`
	Skipped    *junitMessage   `xml:"skipped,omitempty"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes junit.xml: one testsuite per workload, one testcase
// per entry x KPI. A testcase fails exactly when its result fails the
// analysis (exit 2): an unacknowledged regression, or improvement under
// --fail-on-improvement. A change found but not failing (acknowledged, an
// improvement, a regression with --fail-on-regression=false) passes,
// saying so first in system-out and in its properties; noisy, no-history
// and not-analyzed results are skipped with their reason. The suites'
// properties carry the outcome of the whole analysis, as the other
// reports word it.
func WriteJUnit(w io.Writer, rep *regression.Report, info Info) error {
	o := OutcomeOf(rep)
	doc := junitSuites{Name: "seshat regression"}
	suites := map[string]int{}
	for _, e := range rep.Entries {
		name := "seshat regression: " + e.Workload
		i, ok := suites[name]
		if !ok {
			i = len(doc.Suites)
			suites[name] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: name, Properties: []junitProperty{
				{"method", rep.Method}, {"parameters", info.Params}, {"history", info.History},
				{"outcome", o.Kind}, {"exit_status", strconv.Itoa(o.Exit)}, {"verdict", o.Sentence()}}})
		}
		s := &doc.Suites[i]
		for _, r := range e.Results {
			c := junitCase{ClassName: fmt.Sprintf("%s @ %s", e.Name, comparison(e)), Name: kpiName(r), SystemOut: caseText(e, r),
				Properties: []junitProperty{{"status", string(r.Status)}, {"verdict", string(r.Result.Status)},
					{"failing", strconv.FormatBool(r.Failing)}, {"finding", strconv.FormatBool(r.IsFinding())}}}
			cur, prev := buildNames(e, r)
			c.Properties = append(c.Properties, junitProperty{"build", cur}, junitProperty{"previous_build", prev})
			if r.Ack != nil {
				c.Properties = append(c.Properties, junitProperty{"ack_reason", r.Ack.Reason})
			}
			headline := fmt.Sprintf("%s: %s %s against %s (%s, floor %s)", r.Status, r.Display(r.CurrentValue()), delta(r.Result.DeltaPercent),
				r.Display(r.Result.Reference), statistic(r.Result), floor(r.Result.Floor))
			switch ciOutcome(r) {
			case "fail":
				c.Failure = &junitMessage{Message: headline, Type: string(r.Status), Text: r.Result.Details}
				s.Failures++
			case "skip":
				c.Skipped = &junitMessage{Message: fmt.Sprintf("%s: %s", r.Status, r.Result.Reason)}
				s.Skipped++
			}
			s.Tests++
			s.Cases = append(s.Cases, c)
		}
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseText is the testcase's output: why a finding passes, the numbers,
// the runs and the notes.
func caseText(e *regression.Entry, r *regression.KPIResult) string {
	var b strings.Builder
	if why := whyNotFailing(r); why != "" {
		fmt.Fprintf(&b, "PASSES: %s\n", why)
	}
	fmt.Fprintf(&b, "status: %s", r.Status)
	if r.Status != r.Result.Status {
		fmt.Fprintf(&b, " (%s)", r.Result.Status)
	}
	fmt.Fprintf(&b, "\ncurrent: %s; reference: %s; delta: %s; floor: %s; statistic: %s; q: %s; noise: %s; history builds: %d\n",
		r.Display(r.CurrentValue()), r.Display(r.Result.Reference), delta(r.Result.DeltaPercent), floor(r.Result.Floor),
		statistic(r.Result), number2(r.Result.QValue), noise(r.Result.Noise), len(r.History))
	cur, prev := buildNames(e, r)
	fmt.Fprintf(&b, "build: %s; previous build: %s\n", cur, prev)
	if r.Result.Details != "" {
		fmt.Fprintf(&b, "details: %s\n", r.Result.Details)
	}
	if n := note(r); n != "" {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, run := range e.Runs {
		fmt.Fprintf(&b, "run: %s %s\n", run.Path, run.TestUUID)
	}
	return b.String()
}
