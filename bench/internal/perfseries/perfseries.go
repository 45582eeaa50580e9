// Package perfseries is the file format of labelled performance series
// that bench/realdata replays: the shape of
// ../shared/data/perf-series/series.json (Mozilla Perfherder series with
// triaged alerts), which bench/realhost/collect also writes for the series
// it records from real runs on this host.
package perfseries

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// File is a file of series.
type File struct {
	Source string    `json:"source"`
	Series []*Series `json:"series"`
}

// Series is one series: its values one per build, in order, labels on some
// of them.
type Series struct {
	Signature   string    `json:"signature"`
	Repository  string    `json:"repository"`
	Suite       string    `json:"suite"`
	Test        string    `json:"test"`
	Platform    string    `json:"platform"`
	Unit        string    `json:"unit"`
	LowerBetter bool      `json:"lower_is_better"`
	KPI         string    `json:"kpi,omitempty"`
	Note        string    `json:"note,omitempty"`
	Revisions   []string  `json:"revisions"`
	Times       []string  `json:"times"`
	Values      []float64 `json:"values"`
	// Samples are the runs behind each value, when recorded (real runs of
	// this host); nil for Perfherder's per-revision means.
	Samples [][]float64 `json:"samples,omitempty"`
	// Work is the planted work of each build (bench/realhost).
	Work   []float64 `json:"work,omitempty"`
	Labels []Label   `json:"labels"`
}

// Label is a triaged alert: TP (a confirmed change), FN (a change the
// detector missed, added by hand), FP (dismissed as noise), SP (not
// triaged).
type Label struct {
	Index        int    `json:"index"`
	Status       string `json:"status"`
	IsRegression bool   `json:"is_regression"`
}

// Confirmed tells whether the label is a confirmed change: TP or FN.
func (l Label) Confirmed() bool { return l.Status == "TP" || l.Status == "FN" }

// Name names the series in messages: its signature, suite and test.
func (s *Series) Name() string {
	if s.Test != "" {
		return s.Signature + " " + s.Suite + "/" + s.Test
	}
	return s.Signature + " " + s.Suite
}

// Read reads and checks a file of series: as many revisions and sample
// lists as values, finite values, labels within the series.
func Read(path string) ([]*Series, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, s := range f.Series {
		if s == nil {
			return nil, fmt.Errorf("%s: series %d: null", path, i)
		}
		where := fmt.Sprintf("%s: series %d (%s)", path, i, s.Signature)
		if len(s.Revisions) != len(s.Values) {
			return nil, fmt.Errorf("%s: %d revisions for %d values", where, len(s.Revisions), len(s.Values))
		}
		if s.Samples != nil && len(s.Samples) != len(s.Values) {
			return nil, fmt.Errorf("%s: %d sample lists for %d values", where, len(s.Samples), len(s.Values))
		}
		for _, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: a value is not finite", where)
			}
		}
		for _, l := range s.Labels {
			if l.Index < 0 || l.Index >= len(s.Values) {
				return nil, fmt.Errorf("%s: label index %d out of range", where, l.Index)
			}
		}
	}
	return f.Series, nil
}
