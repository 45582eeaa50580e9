package pi

import (
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// historyIgnoredLabels change along one series' history: a new framework,
// BLAS, kernel or OS release is what the history is there to show.
var historyIgnoredLabels = []string{"framework_version", "blas", "kernel", "os", "cuda_version"}

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

func kpiHistoryReport(ctx *plotting.Context) (*plotting.Page, error) {
	return plotting.KPIHistory(ctx, plotting.KPIHistorySpec{
		Title: ReportKPIHistory,
		Summary: "Each KPI of these runs' series over time, from %s, with the change points that %s finds marked. " +
			"A series is one set of labels (the PI, backend, shape, machine...); framework, BLAS, kernel and OS versions may change along it.",
		Workload: Name, Catalog: catalog, Labels: currentLabels,
		QueryKeys: []string{"pi", "backend"}, Ignored: historyIgnoredLabels,
	})
}
