package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// detectors are every Detector at its defaults.
var detectors = []Detector{EDivisive{}, Segment{}, ZScore{}, Threshold{}, Threshold{Reference: "previous"}}

func detectorName(d Detector) string {
	if t, ok := d.(Threshold); ok && t.previous() {
		return "threshold/previous"
	}
	return d.Name()
}

// withValue is x with x[i] set to v.
func withValue(x []float64, i int, v float64) []float64 {
	x = slices.Clone(x)
	x[i] = v
	return x
}

func TestNoSinglePointSegment(t *testing.T) {
	t.Parallel()
	flat := noisy(4, 30, 30, 1)
	tests := []struct {
		name   string
		series []float64
		want   []int    // change points the detectors report
		only   []string // the detectors that see them; all when empty
	}{
		// Column b of "a,b / 1,2 / 1.1, / 1.2,3", forward-filled.
		{name: "one new value at the end of three", series: []float64{2, 2, 3}},
		{name: "one new value at the end", series: withValue(flat, 29, 150)},
		{name: "one new value at the start", series: withValue(flat, 0, 150)},
		{name: "a spike mid-series", series: withValue(flat, 15, 300)},
		{name: "a spike on a constant series", series: withValue(slices.Repeat([]float64{100}, 20), 10, 200)},
		{name: "a failed run at 0 mid-series", series: withValue(flat, 15, 0)},
		{name: "a spike before a step", series: withValue(noisy(4, 30, 15, 1.3), 7, 140), want: []int{15}},
		{name: "a spike after a step", series: withValue(noisy(4, 30, 15, 1.3), 22, 100), want: []int{15}},
		// Two points are a level. segment leaves them out as spikes (the
		// Hampel identifier); zscore needs 3 points before a change.
		{name: "two new values at the end", series: append(flat[:28:28], 150, 150), want: []int{28},
			only: []string{"edivisive", "zscore", "threshold", "threshold/previous"}},
		{name: "two values before the series' level", series: append([]float64{150, 150}, flat...), want: []int{2},
			only: []string{"edivisive", "threshold", "threshold/previous"}},
		{name: "a level of 0 then 5", series: []float64{0, 0, 0, 0, 5, 5, 5, 5}, want: []int{4}},
	}
	for _, tc := range tests {
		for _, d := range detectors {
			if tc.only != nil && !slices.Contains(tc.only, detectorName(d)) {
				continue
			}
			t.Run(tc.name+"/"+detectorName(d), func(t *testing.T) {
				t.Parallel()
				cps, _ := d.ChangePoints(tc.series)
				var got []int
				for _, c := range cps {
					got = append(got, c.Index)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("change points %+v, want at %v", cps, tc.want)
				}
			})
		}
	}
}

// checkReported fails unless every change point has at least two points on
// each side and the statistics of its segments in the final segmentation
// (segment's are those of the values it keeps, not checked here).
func checkReported(t *testing.T, what string, x []float64, cps []ChangePoint) {
	t.Helper()
	idx := make([]int, len(cps))
	for i, c := range cps {
		idx[i] = c.Index
	}
	for i, c := range cps {
		if c.NBefore < 2 || c.NAfter < 2 {
			t.Errorf("%s: change point next to a single point: %+v", what, c)
		}
		if strings.HasPrefix(what, "segment") {
			continue
		}
		if want := changePointAt(x, c.Index, prevIndex(idx, i), nextIndex(idx, i, len(x))); c != want {
			t.Errorf("%s: stale statistics %+v, want %+v", what, c, want)
		}
	}
}

// TestReportedChangePointsHoldLevels runs every detector over Otava's
// vectors (levels, outliers and single-point segments) and random steps
// with outliers.
func TestReportedChangePointsHoldLevels(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/otava/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Series []float64 `json:"series"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var series [][]float64
	for _, c := range doc.Cases {
		series = append(series, c.Series)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 100 {
		x := make([]float64, 10+r.IntN(150))
		level := 100.0
		for i := range x {
			if r.Float64() < 0.05 {
				level *= 1 + 0.4*(r.Float64()-0.5)
			}
			x[i] = level * (1 + 0.02*r.NormFloat64())
			if r.Float64() < 0.05 {
				x[i] *= 1.5
			}
		}
		series = append(series, x)
	}
	for _, d := range detectors {
		for i, x := range series {
			cps, _ := d.ChangePoints(x)
			checkReported(t, fmt.Sprintf("%s on series %d", detectorName(d), i), x, cps)
		}
	}
}

func TestZScoreReportsOnlySignificant(t *testing.T) {
	t.Parallel()
	// The p-value of |z| = 3 and 4 under the normal distribution.
	for _, c := range []struct{ z, alpha float64 }{{0, 0.0027}, {3, 0.0027}, {4, 6.334e-5}} {
		if got := (ZScore{Threshold: c.z}).alpha(); math.Abs(got-c.alpha)/c.alpha > 1e-3 {
			t.Errorf("z %g: alpha %g, want %g", c.z, got, c.alpha)
		}
	}
	// Pure noise on short segments: the flag fires now and then, but no
	// such point is a significant change between two segments.
	for seed := uint64(1); seed <= 30; seed++ {
		x := noisy(seed, 120, 120, 1)
		for _, z := range []ZScore{{}, {Threshold: 2}, {Threshold: 4}} {
			cps, _ := z.ChangePoints(x)
			checkReported(t, "zscore", x, cps)
			for _, c := range cps {
				if !(c.PValue < z.alpha()) {
					t.Errorf("seed %d, z %g: change point %+v with p >= %g", seed, z.limit(), c, z.alpha())
				}
			}
		}
	}
	// A real step still is one.
	cps, _ := ZScore{}.ChangePoints(noisy(2, 60, 40, 1.2))
	if len(cps) != 1 || cps[0].Index != 40 {
		t.Errorf("20%% step at 40: change points %+v", cps)
	}
}

func TestThresholdReportsOnlySignificant(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 30; seed++ {
		// 5% noise against a 10% limit: single points cross it often.
		x := noisy(seed, 120, 60, 1.15)
		for i := range x {
			x[i] = 100 + 2.5*(x[i]-100)
		}
		for _, d := range []Threshold{{}, {Reference: "previous"}, {Percent: 5}} {
			cps, _ := d.ChangePoints(x)
			checkReported(t, "threshold", x, cps)
			for _, c := range cps {
				if !(c.PValue < thresholdAlpha) {
					t.Errorf("seed %d, %+v: change point %+v with p >= %g", seed, d, c, thresholdAlpha)
				}
			}
		}
	}
}

func TestDetectorsOnTooFewOrBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		series []float64
		kind   WarningKind
	}{
		{"empty", nil, WarnTooFewPoints},
		{"one point", []float64{1}, WarnTooFewPoints},
		{"two points", []float64{1, 2}, WarnTooFewPoints},
		{"three points", []float64{1, 1, 2}, WarnTooFewPoints},
		{"constant", slices.Repeat([]float64{0.1}, 40), WarnAllEqual},
		{"NaN", []float64{1, math.NaN(), 3, 4, 5}, WarnNonFinite},
		{"Inf", []float64{1, 2, math.Inf(-1), 4, 5}, WarnNonFinite},
	}
	for _, tc := range tests {
		for _, d := range detectors {
			t.Run(tc.name+"/"+detectorName(d), func(t *testing.T) {
				t.Parallel()
				cps, warns := d.ChangePoints(tc.series)
				if len(cps) != 0 || len(warns) != 1 || warns[0].Kind != tc.kind {
					t.Errorf("change points %+v, warnings %v; want none and %s", cps, warns, tc.kind)
				}
			})
		}
	}
}
