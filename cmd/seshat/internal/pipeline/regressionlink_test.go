package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRegressionLinkFindsTheReport: reports_index.html links the
// regression report written under or beside its output directory, in the
// default regression-report directory or in one named otherwise (the
// tour's seshat-tour/regression beside seshat-tour/reports).
func TestRegressionLinkFindsTheReport(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("<!DOCTYPE html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		reports []string // regression reports, relative to the test's directory
		want    string   // the link from reports/reports_index.html; "" for none
	}{
		{"none", nil, ""},
		{"beside, named by the tour", []string{"regression/" + RegressionHTML}, "../regression/" + RegressionHTML},
		{"under", []string{"reports/analysis/" + RegressionHTML}, "analysis/" + RegressionHTML},
		{"the default directory first", []string{"a/" + RegressionHTML, "regression-report/" + RegressionHTML}, "../regression-report/" + RegressionHTML},
		{"under before beside", []string{"a/" + RegressionHTML, "reports/z/" + RegressionHTML}, "z/" + RegressionHTML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "reports")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.reports {
				write(t, filepath.Join(dir, r))
			}
			link := regressionLink(Env{}, out, "")
			switch {
			case tc.want == "" && link != nil:
				t.Errorf("linked %q, want no link", link.Href)
			case tc.want != "" && (link == nil || link.Href != tc.want):
				t.Errorf("linked %+v, want %q", link, tc.want)
			}
		})
	}
}

// TestReportsIndexHrefFindsTheIndex: the regression report links back to
// the reports_index.html of seshat visualize: the one --reports-index
// names (even before visualize writes it), else one in the parent of the
// report directory, else one beside it (the tour's seshat-tour/reports
// beside seshat-tour/regression); none when there is none.
func TestReportsIndexHrefFindsTheIndex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		report  string   // the report directory, relative to the test's directory
		indexes []string // reports_index.html files written
		named   string   // --reports-index
		want    string
	}{
		{"none", "regression", nil, "", ""},
		{"beside, as in the tour", "regression", []string{"reports/reports_index.html"}, "", "../reports/reports_index.html"},
		{"in the parent", "reports/regression", []string{"reports/reports_index.html"}, "", "../reports_index.html"},
		{"the parent before beside", "regression", []string{"reports_index.html", "a/reports_index.html"}, "", "../reports_index.html"},
		{"beside, the first by name", "regression", []string{"b/reports_index.html", "a/reports_index.html"}, "", "../a/reports_index.html"},
		{"named, not written yet", "regression", []string{"a/reports_index.html"}, "out", "../out/reports_index.html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			report := filepath.Join(dir, tc.report)
			if err := os.MkdirAll(report, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, index := range tc.indexes {
				path := filepath.Join(dir, index)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("<!DOCTYPE html>"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			named := ""
			if tc.named != "" {
				named = filepath.Join(dir, tc.named)
			}
			if got := reportsIndexHref(report, named); got != tc.want {
				t.Errorf("linked %q, want %q", got, tc.want)
			}
		})
	}
}
