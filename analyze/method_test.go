package analyze

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// batchHistory is 30 comparison values at 100 with 2% noise, each the
// median of 5 repeated runs.
func batchHistory() []Point {
	vals := noisy(7, 150, 150, 1)
	h := make([]Point, 30)
	for i := range h {
		h[i] = PointOf(vals[5*i : 5*i+5]...)
	}
	return h
}

// batch is 5 runs around level.
func batch(level float64) Point {
	vals := noisy(11, 5, 5, 1)
	for i := range vals {
		vals[i] *= level / 100
	}
	return PointOf(vals...)
}

func allMethods(t *testing.T) []Method {
	t.Helper()
	var ms []Method
	for _, name := range Names() {
		m, err := New(name, Params{})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestDirectionAware: a drop in a higher-is-better KPI is a regression and
// in a lower-is-better KPI an improvement, and the other way round; an
// unchanged value is ok. For every method.
func TestDirectionAware(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		current float64
		dir     Direction
		want    Status
	}{
		{"drop, higher is better", 85, HigherIsBetter, StatusRegression},
		{"drop, lower is better", 85, LowerIsBetter, StatusImprovement},
		{"rise, higher is better", 115, HigherIsBetter, StatusImprovement},
		{"rise, lower is better", 115, LowerIsBetter, StatusRegression},
		{"same, higher is better", 100, HigherIsBetter, StatusOK},
		{"same, lower is better", 100, LowerIsBetter, StatusOK},
	}
	for _, m := range allMethods(t) {
		for _, tc := range tests {
			t.Run(m.Name()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				in := Input{History: batchHistory(), Current: batch(tc.current), Direction: tc.dir}
				got := m.Evaluate(in)
				if got.Status != tc.want {
					t.Fatalf("status %s, want %s: %+v", got.Status, tc.want, got)
				}
				if got.Method != m.Name() || got.Details == "" {
					t.Errorf("method %q details %q", got.Method, got.Details)
				}
				if tc.want != StatusOK {
					wantSign := math.Copysign(1, tc.current-100)
					if math.Copysign(1, got.DeltaPercent) != wantSign || math.Abs(got.DeltaPercent) < 10 {
						t.Errorf("delta %.2f%%, want about %+.0f%%", got.DeltaPercent, tc.current-100)
					}
				}
				if math.IsNaN(got.Reference) {
					t.Errorf("no reference: %+v", got)
				}
			})
		}
	}
}

func TestEvaluateNotJudged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     Input
		want   Status
		reason string
	}{
		{"no history", Input{Current: PointOf(1), Direction: HigherIsBetter}, StatusNoHistory, "no history"},
		{"only non-finite history", Input{History: []Point{{Value: math.NaN()}}, Current: PointOf(1), Direction: HigherIsBetter}, StatusNoHistory, "no history"},
		{"no direction", Input{History: batchHistory(), Current: PointOf(1)}, StatusNotAnalyzed, "direction"},
		{"current not finite", Input{History: batchHistory(), Current: Point{Value: math.Inf(1)}, Direction: LowerIsBetter}, StatusNotAnalyzed, "not a finite number"},
	}
	for _, m := range allMethods(t) {
		for _, tc := range tests {
			t.Run(m.Name()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				got := m.Evaluate(tc.in)
				if got.Status != tc.want || !strings.Contains(got.Reason, tc.reason) {
					t.Errorf("status %s reason %q, want %s with %q", got.Status, got.Reason, tc.want, tc.reason)
				}
			})
		}
	}
}

func TestZScore(t *testing.T) {
	t.Parallel()
	z := ZScore{}
	short := Input{History: []Point{PointOf(1), PointOf(2)}, Current: PointOf(9), Direction: HigherIsBetter}
	got := z.Evaluate(short)
	if got.Status != StatusNotAnalyzed || !strings.Contains(got.Reason, "at least 3") || len(got.Warnings) != 1 || got.Warnings[0].Kind != WarnTooFewPoints {
		t.Errorf("2 points: %+v", got)
	}
	// history 1, 2, 3: mean 2, sample std 1; 6 is z = 4 > 3; 4.5 is 2.5.
	h := []Point{PointOf(1), PointOf(2), PointOf(3)}
	if got := z.Evaluate(Input{History: h, Current: PointOf(6), Direction: LowerIsBetter}); got.Status != StatusRegression || got.Score != 4 || got.Reference != 2 {
		t.Errorf("z=4: %+v", got)
	}
	if got := z.Evaluate(Input{History: h, Current: PointOf(4.5), Direction: LowerIsBetter}); got.Status != StatusOK || got.Score != 2.5 {
		t.Errorf("z=2.5: %+v", got)
	}
	if got := (ZScore{Threshold: 2}).Evaluate(Input{History: h, Current: PointOf(4.5), Direction: LowerIsBetter}); got.Status != StatusRegression {
		t.Errorf("z=2.5 with limit 2: %+v", got)
	}
	// No spread: any other value is infinitely far; warned.
	flat := []Point{PointOf(5), PointOf(5), PointOf(5)}
	got = z.Evaluate(Input{History: flat, Current: PointOf(4), Direction: HigherIsBetter})
	if got.Status != StatusRegression || !math.IsInf(got.Score, -1) || len(got.Warnings) != 1 || got.Warnings[0].Kind != WarnAllEqual {
		t.Errorf("flat history: %+v", got)
	}
	data, err := json.Marshal(got)
	if err != nil || !strings.Contains(string(data), `"score":null`) {
		t.Errorf("JSON %s, %v: want an infinite score as null", data, err)
	}
}

func TestThreshold(t *testing.T) {
	t.Parallel()
	h := []Point{PointOf(100), PointOf(90), PointOf(110), PointOf(120)}
	tests := []struct {
		name  string
		m     Threshold
		cur   float64
		want  Status
		delta float64
	}{
		{"mean: within", Threshold{}, 109, StatusOK, 4.0 / 105 * 100}, // history mean 105
		{"mean: beyond", Threshold{}, 117, StatusImprovement, 12.0 / 105 * 100},
		{"previous: beyond", Threshold{Reference: "previous"}, 107, StatusRegression, -13.0 / 120 * 100},
		{"previous, 20%: within", Threshold{Reference: "previous", Percent: 20}, 107, StatusOK, -13.0 / 120 * 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.m.Evaluate(Input{History: h, Current: PointOf(tc.cur), Direction: HigherIsBetter})
			if got.Status != tc.want || math.Abs(got.DeltaPercent-tc.delta) > 1e-9 {
				t.Errorf("status %s delta %g, want %s %g", got.Status, got.DeltaPercent, tc.want, tc.delta)
			}
		})
	}
	zero := Threshold{}.Evaluate(Input{History: []Point{PointOf(-1), PointOf(1)}, Current: PointOf(3), Direction: HigherIsBetter})
	if zero.Status != StatusNotAnalyzed {
		t.Errorf("zero reference: %+v", zero)
	}
}

func TestMannWhitneyEvaluate(t *testing.T) {
	t.Parallel()
	prev := PointOf(100, 101, 99)
	cur := PointOf(80, 81, 79)
	got := MannWhitney{}.Evaluate(Input{History: []Point{prev}, Current: cur, Direction: HigherIsBetter})
	// 3 vs 3: the smallest p is 0.1, never below 0.05.
	// 3 vs 3: the smallest p is 0.1, never below 0.05: too few runs to
	// judge, whatever the change, never a silent ok.
	if got.Status != StatusNoisy || got.PValue != 0.1 || !hasWarning(got, WarnTooFewSamples) || !strings.Contains(got.Reason, "too few runs") {
		t.Errorf("3 vs 3: %+v", got)
	}
	prev = PointOf(100, 101, 99, 100.5, 99.5)
	cur = PointOf(80, 81, 79, 80.5, 79.5)
	got = MannWhitney{}.Evaluate(Input{History: []Point{PointOf(50, 51, 52), prev}, Current: cur, Direction: HigherIsBetter})
	// Compared with the previous batch only; 5 vs 5 separated: p = 2/252.
	if got.Status != StatusRegression || math.Abs(got.PValue-2.0/252) > 1e-15 || hasWarning(got, WarnTooFewSamples) {
		t.Errorf("5 vs 5: %+v", got)
	}
	if got.Reference != 100 || got.DeltaPercent != -20 || got.CIHigh >= 0 || got.CILow > got.CIHigh {
		t.Errorf("5 vs 5: reference %g delta %g CI [%g, %g]", got.Reference, got.DeltaPercent, got.CILow, got.CIHigh)
	}
}

func TestEDivisiveEvaluate(t *testing.T) {
	t.Parallel()
	// A step happened 10 points ago; the current run continues the new
	// level: no regression now, compared with the new segment.
	vals := noisy(5, 40, 30, 0.9)
	h := make([]Point, 40)
	for i, v := range vals {
		h[i] = PointOf(v)
	}
	got := EDivisive{}.Evaluate(Input{History: h, Current: PointOf(90), Direction: HigherIsBetter})
	if got.Status != StatusOK || math.Abs(got.Reference-90) > 2 || !strings.Contains(got.Details, "1 change point(s) in the history") {
		t.Errorf("continuing segment: %+v", got)
	}
	few := EDivisive{}.Evaluate(Input{History: h[:2], Current: PointOf(90), Direction: HigherIsBetter})
	if len(few.Warnings) == 0 || few.Warnings[0].Kind != WarnTooFewPoints {
		t.Errorf("2 history points: %+v", few)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		p      Params
		want   error
	}{
		{"default", DefaultMethod, Params{}, nil},
		{"unknown", "bayes", Params{}, ErrUnknownMethod},
		{"window too small", "edivisive", Params{WindowLen: 1}, ErrInvalidParam},
		{"p out of range", "edivisive", Params{MaxPValue: 1.5}, ErrInvalidParam},
		{"negative magnitude", "edivisive", Params{MinMagnitude: -1}, ErrInvalidParam},
		{"negative z", "zscore", Params{ZThreshold: -3}, ErrInvalidParam},
		{"bad reference", "threshold", Params{Reference: "median"}, ErrInvalidParam},
		{"alpha out of range", "mannwhitney", Params{Alpha: 1}, ErrInvalidParam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := New(tc.method, tc.p)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if err == nil && m.Name() != tc.method {
				t.Errorf("name %q", m.Name())
			}
		})
	}
}

func TestSequentialDetectors(t *testing.T) {
	t.Parallel()
	x := noisy(2, 60, 40, 1.2)
	for _, d := range []Detector{ZScore{}, Threshold{}} {
		// A point beyond the limit starts a segment: the step at 40 does
		// (zscore on short segments also flags noise now and then).
		cps, _ := d.ChangePoints(x)
		if !slices.ContainsFunc(cps, func(c ChangePoint) bool { return c.Index == 40 && c.ForwardChangePercent() > 15 }) {
			t.Errorf("%s: change points %+v, want one at 40", d.Name(), cps)
		}
	}
	if cps, warns := (ZScore{}).ChangePoints([]float64{1, 2, 3}); len(cps) != 0 || len(warns) != 1 {
		t.Errorf("zscore on 3 points: %v %v", cps, warns)
	}
}

func TestResultJSON(t *testing.T) {
	t.Parallel()
	r := ZScore{}.Evaluate(Input{Current: PointOf(1), Direction: HigherIsBetter})
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"method":"zscore","status":"no-history","reason":"no history for this KPI","current":1,"reference":null,"delta_percent":null,"pvalue":null,"score":null,"ci_low":null,"ci_high":null,"noise":null,"detectable_percent":null,"history_builds":0,"floor_percent":null,"qvalue":null,"details":""}`
	if string(data) != want {
		t.Errorf("JSON\n%s\nwant\n%s", data, want)
	}
}

func hasWarning(r Result, kind WarningKind) bool {
	for _, w := range r.Warnings {
		if w.Kind == kind {
			return true
		}
	}
	return false
}
