package plotting

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/font"

	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/internal/golden"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// fakeHistory answers every query with the same series.
type fakeHistory struct{ series []HistorySeries }

func (fakeHistory) String() string   { return "fake" }
func (fakeHistory) Detector() string { return "window" }
func (f fakeHistory) History(context.Context, HistoryQuery) (*HistoryData, error) {
	return &HistoryData{Series: f.series, Wanted: len(f.series)}, nil
}

// The KPI history page draws the points it is given: builds named by id
// with the short commit beside, a legend of the labels that differ between
// series (never the empty ones), wrapped so that nothing is cut at the
// figure's edge.
func TestKPIHistoryDrawsWhatItIsGiven(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very-long-cpu-model-name ", 4)
	var ss []HistorySeries
	for i, backend := range []string{"gonum", "numpy"} {
		s := HistorySeries{KPI: "rate", Level: 10, Labels: map[string]string{
			"backend": backend, "cpu_model": long + backend, "batch": "", "pi": "matmul"}}
		for b := range 4 {
			v := 10.0 + float64(i)
			s.Builds = append(s.Builds, HistoryBuild{ID: fmt.Sprint("nightly-0", b), Commit: fmt.Sprintf("abc%04d0000", b),
				Time: time.Date(2026, 1, 1+b, 0, 0, 0, 0, time.UTC), Runs: []float64{v, v + 1}, Median: v + 0.5})
		}
		s.ChangePoints = []ChangePoint{{Index: 2, Before: 10, After: 11, ChangePercent: 10, PValue: 0.001}}
		if backend == "numpy" {
			s.Verdicts = []Verdict{{Index: 3, Status: "regression", Label: "regression -12.5%, triaged acknowledged"}}
		}
		ss = append(ss, s)
	}
	one := 0
	ctx := &Context{Context: context.Background(), History: fakeHistory{ss}, HistoryAxis: AxisBuild,
		Entries: []*store.Entry{{Complete: true, ExitCode: &one}}}
	cat, err := kpi.NewCatalog("pi", kpi.LabelsModel{SettingsVersion: "1.0.0"}, kpi.Definition{Name: "rate", Help: "rate", Unit: "GFLOPS",
		Direction: kpi.HigherIsBetter, Extract: func(*models.Payload) (float64, error) { return 0, kpi.ErrNotApplicable }})
	if err != nil {
		t.Fatal(err)
	}
	page, err := KPIHistory(ctx, KPIHistorySpec{Title: "KPI history", Summary: "from %s, %s", Workload: "pi", Catalog: cat,
		Labels: func(*store.Entry) map[string]string { return map[string]string{"pi": "matmul"} }})
	if err != nil || page.Empty != "" {
		t.Fatalf("page: %v %q", err, page.Empty)
	}
	f := page.Sections[0].Figures[0]
	series := f.Data.Col("series").Records()
	if !strings.HasPrefix(series[0], "backend=gonum, cpu_model=") || strings.Contains(series[0], "batch=") || strings.Contains(series[0], "pi=") {
		t.Errorf("legend name %q: want only the labels that differ, none empty", series[0])
	}
	if f.LegendRows <= 3 {
		t.Errorf("legend rows %d: a long name must wrap onto more rows than its entries", f.LegendRows)
	}
	legendWidth := historyFigureWidth - 36 - 0.75*Inch
	for _, line := range WrapLegend(series[0], legendWidth) {
		if w := textWidth(line); w > legendWidth {
			t.Errorf("legend line %q is %v wide, more than %v", line, w, legendWidth)
		}
	}
	row := page.Sections[1].Tables[0].Rows[0]
	if row[2].Text != "nightly-02" || row[3].Text != "abc0002" {
		t.Errorf("change point row names the build %q %q, want nightly-02 abc0002", row[2].Text, row[3].Text)
	}
	// The chart the page embeds marks the stored verdict at its build,
	// as the explorer's series page does; a golden keeps the page's data.
	chart, err := json.MarshalIndent(f.Interactive(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "kpi_history_chart.json"), append(chart, '\n'), *update)
	var verdicts []charts.Mark
	for _, m := range f.Interactive().Marks {
		if m.Kind != charts.MarkChange {
			verdicts = append(verdicts, m)
		}
	}
	if len(verdicts) != 1 || verdicts[0].Kind != charts.MarkRegression || verdicts[0].X != 3 ||
		!strings.HasPrefix(verdicts[0].Label, "regression -12.5%, triaged acknowledged (backend=numpy") {
		t.Errorf("verdict marks %+v, want the regression at nightly-03 (x 3) of the numpy series", verdicts)
	}
	if v := f.Data.Col("verdict").Records(); v[7] != "regression" || v[3] != "" {
		t.Errorf("the figure's data (its CSV) has verdicts %q, want the regression at the numpy series' last build", v)
	}
	if err := f.write(t.TempDir(), "history"); err != nil {
		t.Fatal(err)
	}
}

func textWidth(s string) Length {
	f := font.DefaultCache.Lookup(sans, legendFontSize)
	return f.Width(s)
}
