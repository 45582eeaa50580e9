package dashboards

import (
	"encoding/json"
	"fmt"
	"io"
)

// Saved object types.
const (
	TypeIndexPattern  = "index-pattern"
	TypeVisualization = "visualization"
	TypeDashboard     = "dashboard"
)

// migrationVersions are the last migration OpenSearch Dashboards 2.x
// registers for each type (index-pattern 7.6.0, visualization 7.10.0,
// dashboard 7.9.3). An object stamped with them is taken as already in the
// current shape; an object without them would be run through every
// migration since 6.x on import.
var migrationVersions = map[string]string{
	TypeIndexPattern:  "7.6.0",
	TypeVisualization: "7.10.0",
	TypeDashboard:     "7.9.3",
}

// Object is one saved object, one line of the NDJSON file.
type Object struct {
	Type             string            `json:"type"`
	ID               string            `json:"id"`
	Attributes       any               `json:"attributes"`
	References       []Reference       `json:"references"`
	MigrationVersion map[string]string `json:"migrationVersion"`
}

// Reference names another saved object an attribute points to: Name is
// the attribute's placeholder (indexRefName, panelRefName).
type Reference struct {
	Name string `json:"name"`
	Type string `json:"type"`
	ID   string `json:"id"`
}

func newObject(typ, id string, attributes any, refs ...Reference) Object {
	if refs == nil {
		refs = []Reference{} // the import API wants the array, even empty
	}
	return Object{
		Type: typ, ID: id, Attributes: attributes, References: refs,
		MigrationVersion: map[string]string{typ: migrationVersions[typ]},
	}
}

// IndexPatternAttributes are an index pattern's attributes. The field list
// is left out: Dashboards reads it from the index mapping when the pattern
// is first used, so it follows the templates `seshat schema` writes.
type IndexPatternAttributes struct {
	Title         string `json:"title"`
	TimeFieldName string `json:"timeFieldName"`
}

// SavedObjectMeta holds the search source of a visualization or dashboard,
// a JSON document encoded as a string.
type SavedObjectMeta struct {
	SearchSourceJSON string `json:"searchSourceJSON"`
}

// VisualizationAttributes are a visualization's attributes. VisState is
// the JSON encoding of a VisState.
type VisualizationAttributes struct {
	Title                 string          `json:"title"`
	VisState              string          `json:"visState"`
	UIStateJSON           string          `json:"uiStateJSON"`
	Description           string          `json:"description"`
	Version               int             `json:"version"`
	KibanaSavedObjectMeta SavedObjectMeta `json:"kibanaSavedObjectMeta"`
}

// RefreshInterval is a dashboard's auto-refresh setting.
type RefreshInterval struct {
	Pause bool `json:"pause"`
	Value int  `json:"value"`
}

// DashboardAttributes are a dashboard's attributes. PanelsJSON is the JSON
// encoding of []Panel, OptionsJSON of the display options.
type DashboardAttributes struct {
	Title                 string          `json:"title"`
	Hits                  int             `json:"hits"`
	Description           string          `json:"description"`
	PanelsJSON            string          `json:"panelsJSON"`
	OptionsJSON           string          `json:"optionsJSON"`
	Version               int             `json:"version"`
	TimeRestore           bool            `json:"timeRestore"`
	TimeFrom              string          `json:"timeFrom,omitempty"`
	TimeTo                string          `json:"timeTo,omitempty"`
	RefreshInterval       RefreshInterval `json:"refreshInterval"`
	KibanaSavedObjectMeta SavedObjectMeta `json:"kibanaSavedObjectMeta"`
}

// SearchSource is the decoded searchSourceJSON: the query bar, filters and,
// for visualizations, the placeholder of the index pattern reference.
type SearchSource struct {
	Query        Query  `json:"query"`
	Filter       []any  `json:"filter"`
	IndexRefName string `json:"indexRefName,omitempty"`
}

// Query is a query bar content; Language "kuery" is DQL.
type Query struct {
	Query    string `json:"query"`
	Language string `json:"language"`
}

// Panel is one entry of a dashboard's panelsJSON, in the 7.3+ form whose
// saved object is named by PanelRefName in the dashboard's references.
type Panel struct {
	Version          string         `json:"version"`
	GridData         GridData       `json:"gridData"`
	PanelIndex       string         `json:"panelIndex"`
	EmbeddableConfig map[string]any `json:"embeddableConfig"`
	PanelRefName     string         `json:"panelRefName"`
}

// GridData places a panel on the dashboard's 48-column grid.
type GridData struct {
	X int    `json:"x"`
	Y int    `json:"y"`
	W int    `json:"w"`
	H int    `json:"h"`
	I string `json:"i"`
}

// VisState is the decoded visState of a visualization.
type VisState struct {
	Title  string     `json:"title"`
	Type   string     `json:"type"`
	Aggs   []Agg      `json:"aggs"`
	Params LineParams `json:"params"`
}

// Agg is one aggregation of a visualization. Schema places it: "metric"
// (y axis), "segment" (x axis), "group" (split series).
type Agg struct {
	ID      string         `json:"id"`
	Enabled bool           `json:"enabled"`
	Type    string         `json:"type"`
	Schema  string         `json:"schema"`
	Params  map[string]any `json:"params"`
}

// LineParams are the display parameters of a vislib line chart, the
// defaults of the line type with the axis titles set.
type LineParams struct {
	Type           string           `json:"type"`
	Grid           map[string]any   `json:"grid"`
	CategoryAxes   []map[string]any `json:"categoryAxes"`
	ValueAxes      []map[string]any `json:"valueAxes"`
	SeriesParams   []map[string]any `json:"seriesParams"`
	AddTooltip     bool             `json:"addTooltip"`
	AddLegend      bool             `json:"addLegend"`
	LegendPosition string           `json:"legendPosition"`
	Times          []any            `json:"times"`
	AddTimeMarker  bool             `json:"addTimeMarker"`
	Labels         map[string]any   `json:"labels"`
	ThresholdLine  map[string]any   `json:"thresholdLine"`
}

// encodeString is the JSON text of v, for the attributes Dashboards keeps
// as strings. The values encoded here are plain data and cannot fail.
func encodeString(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("dashboards: encoding %T: %v", v, err))
	}
	return string(data)
}

// Write writes the objects as NDJSON, one object per line, as the import
// API reads them.
func Write(w io.Writer, objects []Object) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range objects {
		if err := enc.Encode(o); err != nil {
			return fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
		}
	}
	return nil
}
