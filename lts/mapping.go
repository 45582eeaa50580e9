package lts

import (
	"io"
	"sort"

	"github.com/seshat-bench/seshat/models"
)

// Default index names (config lts.opensearch.index, kpi_index_suffix).
const (
	DefaultIndex          = "seshat"
	DefaultKPIIndexSuffix = "-kpis"
)

// IndexNames name the OpenSearch indices of payloads and KPI documents.
type IndexNames struct {
	Prefix    string // index_prefix, prepended to both
	Index     string // the payload index; DefaultIndex when empty
	KPISuffix string // appended for the KPI index; DefaultKPIIndexSuffix when empty
}

func (n IndexNames) withDefaults() IndexNames {
	if n.Index == "" {
		n.Index = DefaultIndex
	}
	if n.KPISuffix == "" {
		n.KPISuffix = DefaultKPIIndexSuffix
	}
	return n
}

// Payloads is the payload index name.
func (n IndexNames) Payloads() string { n = n.withDefaults(); return n.Prefix + n.Index }

// KPIs is the KPI document index name.
func (n IndexNames) KPIs() string { n = n.withDefaults(); return n.Prefix + n.Index + n.KPISuffix }

// knownLabels lists every label the workloads declare, sorted.
func knownLabels(ws []Workload) []string {
	seen := map[string]bool{}
	for _, w := range ws {
		for _, l := range w.KPIs().Labels() {
			seen[l.Name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

var keyword = map[string]any{"type": "keyword"}

func template(index string, mappings map[string]any) map[string]any {
	return map[string]any{
		// The exact name, not a wildcard: "seshat*" would also catch the
		// KPI index "seshat-kpis".
		"index_patterns": []string{index},
		"priority":       100,
		"_meta":          map[string]any{"lts_schema_version": models.LTSSchemaVersion, "generated_by": "seshat"},
		"template":       map[string]any{"mappings": mappings},
	}
}

// PayloadIndexTemplate is the OpenSearch composable index template of the
// payload index. Labels are keywords (exact match, aggregations); settings,
// urls and results are kept in _source but not indexed, because their value
// types differ between workloads and settings (512 here, "auto" there) and
// would make documents collide on the mapping. Beside the payload, a
// document may hold sample_stats, the summaries of its samples by KPI
// (Record.Samples, StoreOptions.Samples), kept in _source only.
func PayloadIndexTemplate(n IndexNames, ws []Workload) map[string]any {
	labels := map[string]any{}
	for _, l := range knownLabels(ws) {
		labels[l] = keyword
	}
	notIndexed := map[string]any{"type": "object", "enabled": false}
	return template(n.Payloads(), map[string]any{
		"dynamic_templates": []any{
			map[string]any{"labels_as_keywords": map[string]any{
				"path_match": "metadata.labels.*", "mapping": keyword}},
			map[string]any{"kpi_values": map[string]any{
				"path_match": "kpis.*.value", "mapping": map[string]any{"type": "double"}}},
			map[string]any{"kpi_timestamps": map[string]any{
				"path_match": "kpis.*.@timestamp", "mapping": map[string]any{"type": "date"}}},
			map[string]any{"kpi_directions": map[string]any{
				"path_match": "kpis.*.lower_better", "mapping": map[string]any{"type": "boolean"}}},
			map[string]any{"kpi_strings": map[string]any{
				"path_match": "kpis.*", "match_mapping_type": "string", "mapping": keyword}},
		},
		"properties": map[string]any{
			"metadata": map[string]any{"properties": map[string]any{
				"lts_schema_version": keyword,
				"test_uuid":          keyword,
				"start":              map[string]any{"type": "date"},
				"end":                map[string]any{"type": "date"},
				"exit_code":          map[string]any{"type": "integer"},
				"workload":           keyword,
				"settings":           notIndexed,
				"labels":             map[string]any{"type": "object", "properties": labels},
				"build": map[string]any{"properties": map[string]any{
					"id": keyword, "commit": keyword, "ref": keyword, "time": map[string]any{"type": "date"},
					"ci": map[string]any{"properties": map[string]any{"engine": keyword, "run_id": keyword, "url": keyword}},
				}},
				"urls":         notIndexed,
				"cpu_share":    map[string]any{"type": "double"},
				"cpu_pressure": map[string]any{"type": "double"},
				"host_start": map[string]any{"properties": map[string]any{
					"loadavg": map[string]any{"type": "double"}, "governor": keyword,
				}},
			}},
			"results":      notIndexed,
			"kpis":         map[string]any{"type": "object"},
			"sample_stats": notIndexed,
		},
	})
}

// KPIIndexTemplate is the OpenSearch composable index template of the KPI
// index: one document per KPI per run with the labels flattened beside
// @timestamp (date), value (double) and the other fixed fields. Every label
// is a keyword, those no workload declares yet included.
func KPIIndexTemplate(n IndexNames, ws []Workload) map[string]any {
	props := map[string]any{
		"@timestamp":   map[string]any{"type": "date"},
		"test_uuid":    keyword,
		"kpi":          keyword,
		"value":        map[string]any{"type": "double"},
		"unit":         keyword,
		"lower_better": map[string]any{"type": "boolean"},
	}
	for _, l := range knownLabels(ws) {
		props[l] = keyword
	}
	return template(n.KPIs(), map[string]any{
		"dynamic_templates": []any{
			map[string]any{"labels_as_keywords": map[string]any{
				"match_mapping_type": "string", "mapping": keyword}},
		},
		"properties": props,
	})
}

// IndexTemplates returns both templates by template name (the index name),
// ready for PUT _index_template/<name>.
func IndexTemplates(n IndexNames, ws []Workload) map[string]any {
	return map[string]any{
		n.Payloads(): PayloadIndexTemplate(n, ws),
		n.KPIs():     KPIIndexTemplate(n, ws),
	}
}

// WriteIndexTemplates writes IndexTemplates as indented JSON (keys sorted).
func WriteIndexTemplates(w io.Writer, n IndexNames, ws []Workload) error {
	return writeIndented(w, IndexTemplates(n, ws))
}
