package dashboards

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// Time fields of the two indices. Payload documents carry their run's start
// in metadata.start; KPI documents carry it as @timestamp.
const (
	PayloadTimeField = "metadata.start"
	KPITimeField     = "@timestamp"
)

// MaxComparisonKeys is the most "split series" aggregations a line chart
// takes.
const MaxComparisonKeys = 3

// DefaultTimeFrom is the start of the dashboards' time range.
const DefaultTimeFrom = "now-90d"

// panelVersion is the version stamped on dashboard panels. Dashboards
// rewrites panels it takes for older than 7.3; OpenSearch Dashboards 2.x
// skips its own 1.x-3.x versions but early releases compared the number
// alone, so the version OpenSearch Dashboards forked from is safe on both.
const panelVersion = "7.10.2"

// Options control Build.
type Options struct {
	Index lts.IndexNames
	// ComparisonKeys are the labels whose values each chart draws as
	// separate lines (regression_analyses.comparison_keys), at most
	// MaxComparisonKeys. A key a workload does not declare is left out of
	// that workload's charts.
	ComparisonKeys []string
	// TimeFrom is where the dashboards' time range starts (Dashboards date
	// math); DefaultTimeFrom when empty.
	TimeFrom string
}

// Build returns the saved objects for the given workloads: the index
// patterns of the payload and KPI indices, then for each workload (sorted
// by name) one visualization per KPI (sorted by name) and its dashboard.
// Warnings say which comparison keys a workload's charts leave out. Errors
// are invalid options.
func Build(ws []lts.Workload, o Options) ([]Object, []string, error) {
	if err := checkOptions(o); err != nil {
		return nil, nil, err
	}
	if o.TimeFrom == "" {
		o.TimeFrom = DefaultTimeFrom
	}
	ws = slices.Clone(ws)
	slices.SortFunc(ws, func(a, b lts.Workload) int { return strings.Compare(a.Name(), b.Name()) })

	payloads, kpis := o.Index.Payloads(), o.Index.KPIs()
	kpiPattern := IndexPatternID(kpis)
	objects := []Object{
		newObject(TypeIndexPattern, IndexPatternID(payloads),
			IndexPatternAttributes{Title: payloads, TimeFieldName: PayloadTimeField}),
		newObject(TypeIndexPattern, kpiPattern,
			IndexPatternAttributes{Title: kpis, TimeFieldName: KPITimeField}),
	}
	var warnings []string
	for _, w := range ws {
		c := w.KPIs()
		keys, missing := declaredKeys(c, o.ComparisonKeys)
		if len(missing) > 0 {
			warnings = append(warnings, fmt.Sprintf("workload %s has no label %s: its charts are not split by it",
				w.Name(), strings.Join(missing, ", ")))
		}
		var panels []Panel
		var refs []Reference
		for i, d := range c.Definitions() {
			id := VisualizationID(kpis, w.Name(), d.Name)
			objects = append(objects, visualization(id, kpiPattern, w.Name(), d, keys))
			ref := "panel_" + strconv.Itoa(i)
			panels = append(panels, Panel{
				Version: panelVersion,
				// Two charts per row of the 48-column grid.
				GridData:         GridData{X: (i % 2) * 24, Y: (i / 2) * 15, W: 24, H: 15, I: strconv.Itoa(i + 1)},
				PanelIndex:       strconv.Itoa(i + 1),
				EmbeddableConfig: map[string]any{},
				PanelRefName:     ref,
			})
			refs = append(refs, Reference{Name: ref, Type: TypeVisualization, ID: id})
		}
		if len(panels) == 0 {
			warnings = append(warnings, fmt.Sprintf("workload %s declares no KPIs: no dashboard", w.Name()))
			continue
		}
		split := "one line"
		if len(keys) > 0 {
			split = "one line per value of " + strings.Join(keys, ", ")
		}
		objects = append(objects, newObject(TypeDashboard, DashboardID(kpis, w.Name()), DashboardAttributes{
			Title: fmt.Sprintf("Seshat %s KPIs (%s)", w.Name(), kpis),
			Description: fmt.Sprintf("The KPIs of the %s workload over time from %s, median per interval, %s.",
				w.Name(), kpis, split),
			PanelsJSON:  encodeString(panels),
			OptionsJSON: encodeString(map[string]bool{"hidePanelTitles": false, "useMargins": true}),
			Version:     1,
			TimeRestore: true,
			TimeFrom:    o.TimeFrom,
			TimeTo:      "now",
			// Results arrive once per CI pipeline: no auto-refresh.
			RefreshInterval: RefreshInterval{Pause: true},
			KibanaSavedObjectMeta: SavedObjectMeta{SearchSourceJSON: encodeString(SearchSource{
				Query: Query{Language: "kuery"}, Filter: []any{},
			})},
		}, refs...))
	}
	return objects, warnings, nil
}

// IndexPatternID is the id of the index pattern of an index.
func IndexPatternID(index string) string { return "seshat-index-pattern-" + index }

// VisualizationID is the id of the chart of a workload's KPI read from a
// KPI index. Workload and KPI names are snake_case, so the id is unique
// whatever dashes the index name holds.
func VisualizationID(kpiIndex, workload, kpiName string) string {
	return "seshat-kpi-" + kpiIndex + "-" + workload + "-" + kpiName
}

// DashboardID is the id of a workload's dashboard on a KPI index.
func DashboardID(kpiIndex, workload string) string {
	return "seshat-dashboard-" + kpiIndex + "-" + workload
}

// indexRefName is the placeholder of a search source's index pattern.
const indexRefName = "kibanaSavedObjectMeta.searchSourceJSON.index"

func visualization(id, patternID, workload string, d kpi.Definition, keys []string) Object {
	title := fmt.Sprintf("%s: %s (%s)", workload, d.Name, d.Unit)
	axisTitle := fmt.Sprintf("%s (%s), %s", d.Name, d.Unit, d.Direction)
	metricLabel := "Median " + d.Name
	aggs := []Agg{
		{ID: "1", Enabled: true, Type: "median", Schema: "metric",
			Params: map[string]any{"field": "value", "customLabel": metricLabel}},
		{ID: "2", Enabled: true, Type: "date_histogram", Schema: "segment", Params: map[string]any{
			"field": KPITimeField, "interval": "auto", "useNormalizedOpenSearchInterval": true,
			"scaleMetricValues": false, "drop_partials": false, "min_doc_count": 1,
			"extended_bounds": map[string]any{},
		}},
	}
	for i, k := range keys {
		aggs = append(aggs, Agg{ID: strconv.Itoa(i + 3), Enabled: true, Type: "terms", Schema: "group", Params: map[string]any{
			"field": k, "orderBy": "_key", "order": "asc", "size": 20,
			"otherBucket": false, "otherBucketLabel": "Other",
			"missingBucket": false, "missingBucketLabel": "Missing",
		}})
	}
	state := VisState{Title: title, Type: "line", Aggs: aggs, Params: lineParams(axisTitle, metricLabel)}
	description := d.Help
	if d.IgnoredForRegression {
		description += " Not used by regression analysis."
	}
	return newObject(TypeVisualization, id, VisualizationAttributes{
		Title:       title,
		VisState:    encodeString(state),
		UIStateJSON: "{}",
		Description: description,
		Version:     1,
		KibanaSavedObjectMeta: SavedObjectMeta{SearchSourceJSON: encodeString(SearchSource{
			Query: Query{
				Query:    fmt.Sprintf("%s:%s and kpi:%s", kpi.LabelWorkload, dqlString(workload), dqlString(d.Name)),
				Language: "kuery",
			},
			Filter:       []any{},
			IndexRefName: indexRefName,
		})},
	}, Reference{Name: indexRefName, Type: TypeIndexPattern, ID: patternID})
}

func lineParams(axisTitle, metricLabel string) LineParams {
	return LineParams{
		Type: "line",
		Grid: map[string]any{"categoryLines": false},
		CategoryAxes: []map[string]any{{
			"id": "CategoryAxis-1", "type": "category", "position": "bottom", "show": true,
			"style": map[string]any{}, "scale": map[string]any{"type": "linear"},
			"labels": map[string]any{"show": true, "filter": true, "truncate": 100},
			"title":  map[string]any{},
		}},
		ValueAxes: []map[string]any{{
			"id": "ValueAxis-1", "name": "LeftAxis-1", "type": "value", "position": "left", "show": true,
			"style": map[string]any{}, "scale": map[string]any{"type": "linear", "mode": "normal"},
			"labels": map[string]any{"show": true, "rotate": 0, "filter": false, "truncate": 100},
			"title":  map[string]any{"text": axisTitle},
		}},
		SeriesParams: []map[string]any{{
			"show": true, "type": "line", "mode": "normal",
			"data":      map[string]any{"label": metricLabel, "id": "1"},
			"valueAxis": "ValueAxis-1", "drawLinesBetweenPoints": true, "lineWidth": 2,
			"interpolate": "linear", "showCircles": true,
		}},
		AddTooltip: true, AddLegend: true, LegendPosition: "right",
		Times: []any{}, Labels: map[string]any{},
		ThresholdLine: map[string]any{"show": false, "value": 10, "width": 1, "style": "full", "color": "#E7664C"},
	}
}

// dqlString quotes a value for DQL, which escapes \ and " in quoted strings.
func dqlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// declaredKeys splits keys into those the catalog declares as labels and
// the others.
func declaredKeys(c *kpi.Catalog, keys []string) (declared, missing []string) {
	labels := map[string]bool{}
	for _, l := range c.Labels() {
		labels[l.Name] = true
	}
	for _, k := range keys {
		if labels[k] {
			declared = append(declared, k)
		} else {
			missing = append(missing, k)
		}
	}
	return declared, missing
}

func checkOptions(o Options) error {
	var problems []error
	if len(o.ComparisonKeys) > MaxComparisonKeys {
		problems = append(problems, fmt.Errorf("comparison keys %s: a line chart splits by at most %d",
			strings.Join(o.ComparisonKeys, ", "), MaxComparisonKeys))
	}
	seen := map[string]bool{}
	for _, k := range o.ComparisonKeys {
		switch {
		case slices.Contains(models.ReservedLabelNames, k):
			problems = append(problems, fmt.Errorf("comparison key %q: a field of every KPI document, not a label", k))
		case !models.IsSnakeCase(k):
			problems = append(problems, fmt.Errorf("comparison key %q: labels are snake_case", k))
		case seen[k]:
			problems = append(problems, fmt.Errorf("comparison key %q given twice", k))
		}
		seen[k] = true
	}
	for _, name := range []string{o.Index.Payloads(), o.Index.KPIs()} {
		if err := checkIndexName(name); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

// checkIndexName applies OpenSearch's index naming rules: an index pattern
// titled with a name OpenSearch refuses would match nothing.
func checkIndexName(name string) error {
	switch {
	case name != strings.ToLower(name):
		return fmt.Errorf("index %q: OpenSearch index names are lowercase", name)
	case strings.HasPrefix(name, "-") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, "+"):
		return fmt.Errorf("index %q: OpenSearch index names do not start with -, _ or +", name)
	case name == "." || name == "..":
		return fmt.Errorf("index %q: not a valid OpenSearch index name", name)
	case strings.ContainsAny(name, ` \/*?"<>|,#:`):
		return fmt.Errorf("index %q: OpenSearch index names hold none of \\ / * ? \" < > | , # : or spaces", name)
	case len(name) > 255:
		return fmt.Errorf("index %q: longer than OpenSearch's 255 bytes", name)
	}
	return nil
}
