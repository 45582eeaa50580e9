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
