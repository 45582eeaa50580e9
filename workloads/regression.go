package workloads

// RegressionKeys tell regression analysis how to cut a workload's stored
// runs into histories. Every name is a KPI label.
type RegressionKeys struct {
	// ComparisonKeys name what is being compared over time: the labels
	// whose values tell one point of a history from the next (a framework
	// version). Runs sharing their values are one point (their median).
	ComparisonKeys []string
	// IgnoredKeys are labels that neither split histories nor tell points
	// apart: details of a run that should not start a new history.
	IgnoredKeys []string
	// SortingKeys order the entries of a regression report (never the
	// history, which is ordered by time).
	SortingKeys []string
	// IgnoredEntries are label filters ("label=v1:v2,label2=v", the
	// --filters syntax); current or stored runs matching any are skipped.
	IgnoredEntries []string
}

// RegressionDefaults is the ability of a workload to declare its default
// regression keys; seshat.yaml (regression_analyses) and flags override
// them key by key.
type RegressionDefaults interface {
	Workload
	RegressionKeys() RegressionKeys
}
