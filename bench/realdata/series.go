package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"
)

// seriesFile is the shape of ../shared/data/perf-series/series.json, which
// bench/realhost's recorded series share: one entry per series, its values
// one per build in order, labels on some of them.
type seriesFile struct {
	Source string   `json:"source"`
	Series []series `json:"series"`
}

type series struct {
	Signature   string    `json:"signature"`
	Repository  string    `json:"repository"`
	Suite       string    `json:"suite"`
	Test        string    `json:"test"`
	Platform    string    `json:"platform"`
	Unit        string    `json:"unit"`
	LowerBetter bool      `json:"lower_is_better"`
	Revisions   []string  `json:"revisions"`
	Times       []string  `json:"times"`
	Values      []float64 `json:"values"`
	// Samples are the runs behind each value, when recorded (real runs of
	// this machine); nil for Perfherder's per-revision means.
	Samples [][]float64 `json:"samples,omitempty"`
	Labels  []label     `json:"labels"`

	file string
}

// label is a triaged alert: TP (confirmed change), FN (a change the
// detector missed, added by hand), FP (dismissed as noise), SP (not
// triaged).
type label struct {
	Index        int    `json:"index"`
	Status       string `json:"status"`
	IsRegression bool   `json:"is_regression"`
}

func (l label) confirmed() bool { return l.Status == "TP" || l.Status == "FN" }

func (s *series) name() string {
	if s.Test != "" {
		return s.Signature + " " + s.Suite + "/" + s.Test
	}
	return s.Signature + " " + s.Suite
}

// time of build i: its push time when the series' times increase, else
// one hour per build from the first (back-filled pushes share times).
func (s *series) time(i int) time.Time {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return t0.Add(time.Duration(i) * time.Hour)
}

func readSeries(path string) ([]*series, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f seriesFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]*series, 0, len(f.Series))
	for i := range f.Series {
		s := &f.Series[i]
		s.file = path
		if len(s.Revisions) != len(s.Values) {
			return nil, fmt.Errorf("%s: series %d (%s): %d revisions for %d values", path, i, s.Signature, len(s.Revisions), len(s.Values))
		}
		if s.Samples != nil && len(s.Samples) != len(s.Values) {
			return nil, fmt.Errorf("%s: series %d (%s): %d sample lists for %d values", path, i, s.Signature, len(s.Samples), len(s.Values))
		}
		for _, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: series %d (%s): a value is not finite", path, i, s.Signature)
			}
		}
		for _, l := range s.Labels {
			if l.Index < 0 || l.Index >= len(s.Values) {
				return nil, fmt.Errorf("%s: series %d (%s): label index %d out of range", path, i, s.Signature, l.Index)
			}
		}
		out = append(out, s)
	}
	return out, nil
}
