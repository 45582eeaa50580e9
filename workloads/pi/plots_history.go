package pi

import (
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// HistoryNotConfigured is what the KPI history page says without --history.
const HistoryNotConfigured = plotting.HistoryNotConfigured

// currentLabels are the KPI labels a run's payload carries.
func currentLabels(e *store.Entry) map[string]string {
	labels := map[string]string{}
	r, _ := e.Results.(*Results)
	if r == nil {
		r = &Results{}
	}
	fillLabels(labels, e.Settings, r)
	labels[kpi.LabelWorkload] = Name
	labels[kpi.LabelSettingsVersion] = KPISettingsVersion
	return labels
}

// kpiHistoryReport draws the history of each KPI of the runs' series, cut
// into series and points by the regression keys (a new framework, BLAS,
// kernel or OS release is what the history is there to show).
func kpiHistoryReport(ctx *plotting.Context) (*plotting.Page, error) {
	keys := Workload{}.RegressionKeys()
	return plotting.KPIHistory(ctx, plotting.KPIHistorySpec{
		Title: ReportKPIHistory,
		Summary: "Each KPI of these runs' series over time, from %s, with the change points that %s finds marked. " +
			"A series is one set of labels (the PI, backend, shape, machine...); framework, BLAS, kernel and OS versions may change along it.",
		Workload: Name, Catalog: catalog, Labels: currentLabels,
		QueryKeys:      []string{"pi", "backend"},
		ComparisonKeys: keys.ComparisonKeys, IgnoredKeys: keys.IgnoredKeys,
	})
}
