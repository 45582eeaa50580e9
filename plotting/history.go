package plotting

import (
	"context"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// HistorySource gives the KPI history pages their points: the stored runs
// of a workload cut into series and per-build points, and the change
// points of each series, by the analysis (analyze/history.Source: the one
// grouping that `seshat regression` and `seshat serve` use too). The pages
// draw what it gives.
type HistorySource interface {
	// String names the history for people (the store's URL or file).
	String() string
	// Detector names the change-point method that found the change points.
	Detector() string
	// History answers a query; an error names the store.
	History(ctx context.Context, q HistoryQuery) (*HistoryData, error)
}

// HistoryQuery asks for the series of the runs at hand.
type HistoryQuery struct {
	Workload string
	// Labels narrow the runs read: each label one of its values.
	Labels models.Filter
	// Current are the labels of the runs at hand: only their series are
	// wanted.
	Current []map[string]string
	// ComparisonKeys and IgnoredKeys are the workload's regression keys:
	// they cut the runs into series as regression analysis does.
	ComparisonKeys, IgnoredKeys []string
}

// HistoryData is the answer to a HistoryQuery.
type HistoryData struct {
	// Series are the wanted series of each KPI, by KPI, then labels.
	Series []HistorySeries
	// Values counts the KPI values read; Wanted the series of the current
	// runs.
	Values, Wanted int
}

// HistorySeries is one KPI of one series, point by point.
type HistorySeries struct {
	KPI string
	// Labels identify the series.
	Labels map[string]string
	// Builds are its points, oldest first: a build at one comparison
	// value, the median of its runs.
	Builds []HistoryBuild
	// ChangePoints index Builds.
	ChangePoints []ChangePoint
	// Verdicts are the stored verdicts of regression analyses
	// (`seshat regression --store-results`) at the series' points, the
	// newest of each point; they index Builds.
	Verdicts []Verdict
	// Level is the median of the build medians after the last change
	// point: what the series is at now.
	Level float64
	// Warnings are the detector's, for the page's notes.
	Warnings []string
}

// HistoryBuild is a point of a series: a build at one comparison value.
type HistoryBuild struct {
	// ID is the build's id ("run:<test_uuid>" for a run without one).
	ID                 string
	Commit, Ref, CIURL string
	Comparison         string
	Time               time.Time // the start of its first run
	Runs               []float64 // the values of its runs
	Median             float64
}

// ChangePoint is a change of a series' level before Builds[Index].
type ChangePoint struct {
	Index                 int
	Before, After         float64 // the mean levels either side
	ChangePercent, PValue float64
}

// Verdict is a stored verdict of a regression analysis at Builds[Index],
// as the pages mark it: its status (regression, improvement, suspect,
// acknowledged) and what a hover says of it ("regression +12.5%,
// triaged acknowledged").
type Verdict struct {
	Index         int
	Status, Label string
}
