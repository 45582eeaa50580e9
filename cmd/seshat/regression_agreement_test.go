package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noisyHistory is eight stacks whose rates wander by ±15% from build to
// build: no change of the size that matters could be seen in them.
func noisyHistory() []stack {
	levels := []float64{410, 470, 350, 430, 360, 480, 395, 440}
	var out []stack
	for i, l := range levels {
		out = append(out, stack{version: fmt.Sprintf("v1.%d.0", i), size: "64", at: day0.Add(time.Duration(i) * 24 * time.Hour),
			kpis: map[string][]float64{"rate_gflops": {l, l + 1, l - 1}, "elapsed_ms": stableLatencies[i]}})
	}
	return out
}

// agreement is what each output of one analysis says: whether it fails
// and how many findings it reports.
type agreement struct {
	exit                            int
	failed                          bool
	outcome                         string
	findings, failing, skipped      int
	junitTests, junitFail, junitSkp int
	junitFindings                   int
	mdMark, mdHeadline              string
	mdFindings                      int
	stdoutLast                      string
	stdoutFindings                  int
	stdoutFail, stdoutSkip          int
}

var (
	mdFindingsRe = regexp.MustCompile(`### Findings \((\d+), (\d+) failing\)`)
	mdHeadRe     = regexp.MustCompile(`(?m)^## (\S+) Seshat regression analysis\n\n\*\*([^*]+)\*\*`)
)

// readAgreement reads every output of a run of `seshat regression`.
func readAgreement(t *testing.T, r result, reports string) agreement {
	t.Helper()
	a := agreement{exit: r.code}
	var doc struct {
		Failed       bool   `json:"failed"`
		Outcome      string `json:"outcome"`
		ExitStatus   int    `json:"exit_status"`
		FindingCount int    `json:"finding_count"`
		Findings     []any  `json:"findings"`
		Failing      int    `json:"failing"`
		Noisy        int    `json:"noisy"`
		NoHistory    int    `json:"no_history"`
		NotAnalyzed  int    `json:"not_analyzed"`
	}
	data, err := os.ReadFile(filepath.Join(reports, "regression_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ExitStatus != r.code {
		t.Errorf("regression_summary.json says exit %d, the command exited %d", doc.ExitStatus, r.code)
	}
	if doc.FindingCount != len(doc.Findings) {
		t.Errorf("regression_summary.json: finding_count %d, %d findings listed", doc.FindingCount, len(doc.Findings))
	}
	a.failed, a.outcome, a.findings, a.failing = doc.Failed, doc.Outcome, doc.FindingCount, doc.Failing
	a.skipped = doc.Noisy + doc.NoHistory + doc.NotAnalyzed

	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err = os.ReadFile(filepath.Join(reports, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatal(err)
	}
	a.junitTests, a.junitFail, a.junitSkp = suites.Tests, suites.Failures, suites.Skipped
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			for _, p := range c.Properties {
				if p.Name == "finding" && p.Value == "true" {
					a.junitFindings++
				}
			}
		}
	}

	data, err = os.ReadFile(filepath.Join(reports, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	if m := mdHeadRe.FindStringSubmatch(md); m != nil {
		a.mdMark, a.mdHeadline = m[1], m[2]
	} else {
		t.Errorf("summary.md has no heading and headline:\n%s", md)
	}
	if m := mdFindingsRe.FindStringSubmatch(md); m != nil {
		fmt.Sscan(m[1], &a.mdFindings)
		var failing int
		fmt.Sscan(m[2], &failing)
		if failing != a.failing {
			t.Errorf("summary.md: %d failing findings, regression_summary.json %d", failing, a.failing)
		}
	}

	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	a.stdoutLast = lines[len(lines)-1]
	for _, l := range lines {
		// The table's rows start with the entry's number (the shared
		// labels above it, the KPI headings and the notes do not).
		f := strings.Fields(l)
		if len(f) < 3 || strings.Trim(f[0], "0123456789") != "" {
			continue
		}
		// The status and CI columns follow the entry's name.
		for i := 1; i+1 < len(f); i++ {
			switch f[i] {
			case "regression", "improvement", "acknowledged", "ok", "noisy", "no-history", "not-analyzed":
				if f[i] == "regression" || f[i] == "improvement" || f[i] == "acknowledged" {
					a.stdoutFindings++
				}
				switch f[i+1] {
				case "fail":
					a.stdoutFail++
				case "skip":
					a.stdoutSkip++
				}
				i = len(f)
			}
		}
	}
	return a
}

// TestRegressionOutputsAgree: whatever the analysis finds, the exit
// status, regression_summary.json, junit.xml, summary.md and the stdout
// table say the same: whether it fails, and how many findings it reports.
// A report that fails nothing says so everywhere; one that reports
// findings without failing says that too.
func TestRegressionOutputsAgree(t *testing.T) {
	t.Parallel()
	ack := "- comparison: {framework_version: v1.8.0}\n  kpi: rate_gflops\n  reason: new BLAS, PERF-9\n"
	tests := []struct {
		name     string
		hist     []stack
		cur      stack
		args     []string
		acks     string
		exit     int
		outcome  string
		findings int
		headline string
		mark     string
	}{
		{"failing regression", history(), current("64", droppedRates, steadyLatencies), nil, "",
			2, "failed", 1, "FAILED (exit 2)", "❌"},
		{"regression not failing", history(), current("64", droppedRates, steadyLatencies), []string{"--fail-on-regression=false"}, "",
			0, "passed-with-findings", 1, "PASSED with findings (exit 0)", "⚠️"},
		{"acknowledged only", history(), current("64", droppedRates, steadyLatencies), nil, ack,
			0, "passed-with-findings", 1, "PASSED with findings (exit 0)", "⚠️"},
		{"improvements only", history(), current("64", raisedRates, loweredLatency), nil, "",
			0, "passed-with-findings", 2, "PASSED with findings (exit 0)", "⚠️"},
		{"improvements failing", history(), current("64", raisedRates, loweredLatency), []string{"--fail-on-improvement"}, "",
			2, "failed", 2, "FAILED (exit 2)", "❌"},
		{"noisy only", noisyHistory(), current("64", []float64{412, 413, 411}, steadyLatencies), []string{"--kpi-filter", "rate"}, "",
			0, "passed", 0, "PASSED (exit 0)", "✅"},
		{"no history", nil, current("64", droppedRates, steadyLatencies), nil, "",
			3, "no-data", 0, "NO DATA (exit 3)", "⚪"},
		{"no history allowed", nil, current("64", droppedRates, steadyLatencies), []string{"--allow-no-history"}, "",
			0, "passed", 0, "PASSED (exit 0)", "✅"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			url, file := plant(t, dir, tt.hist, tt.cur)
			reports := filepath.Join(dir, "report")
			args := append([]string{"regression", "--lts", file, "--history", url, "--report-dir", reports}, tt.args...)
			if tt.acks != "" {
				acks := filepath.Join(dir, "acks.yaml")
				if err := os.WriteFile(acks, []byte(tt.acks), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--ack", acks)
			}
			r := runSeshat(t, nil, args...)
			a := readAgreement(t, r, reports)
			if a.exit != tt.exit || a.outcome != tt.outcome || a.findings != tt.findings {
				t.Fatalf("exit %d, outcome %s, %d findings; want %d, %s, %d\n%s%s", a.exit, a.outcome, a.findings, tt.exit, tt.outcome, tt.findings, r.stdout, r.stderr)
			}
			fails := a.exit == 2
			for what, says := range map[string]bool{
				"regression_summary.json failed": a.failed,
				"junit.xml failures":             a.junitFail > 0,
				"summary.md mark ❌":              a.mdMark == "❌",
				"stdout FAILED":                  strings.HasPrefix(a.stdoutLast, "FAILED"),
				"stdout CI fail":                 a.stdoutFail > 0,
			} {
				if says != fails {
					t.Errorf("%s says failing=%v, the exit status %d", what, says, a.exit)
				}
			}
			if a.junitFail != a.failing || a.stdoutFail != a.failing {
				t.Errorf("failing results: junit %d, stdout %d, regression_summary.json %d", a.junitFail, a.stdoutFail, a.failing)
			}
			if a.junitFindings != a.findings || a.stdoutFindings != a.findings || a.mdFindings != a.findings {
				t.Errorf("findings: junit %d, stdout %d, summary.md %d, regression_summary.json %d", a.junitFindings, a.stdoutFindings, a.mdFindings, a.findings)
			}
			if a.junitSkp != a.skipped || a.stdoutSkip != a.skipped {
				t.Errorf("skipped: junit %d, stdout %d; regression_summary.json noisy+no_history+not_analyzed %d", a.junitSkp, a.stdoutSkip, a.skipped)
			}
			if a.mdMark != tt.mark || a.mdHeadline != tt.headline || !strings.HasPrefix(a.stdoutLast, tt.headline+": ") {
				t.Errorf("summary.md %s %q, stdout %q; want %s %q", a.mdMark, a.mdHeadline, a.stdoutLast, tt.mark, tt.headline)
			}
			if tt.name == "noisy only" && a.skipped != 1 {
				t.Errorf("noisy only: %d results skipped, want the one noisy rate", a.skipped)
			}
		})
	}
}
