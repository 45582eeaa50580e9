package explorer

import (
	"bytes"
	"testing"
)

// TestComparisonEncodedAsWhole: /api/compare's JSON, its series encoded
// on every core and put into the rest, is byte for byte the whole's
// (compactJSON, what the other endpoints write), whatever the strings
// hold (the text of the place the series go, markup, newlines) and
// whatever the numbers.
func TestComparisonEncodedAsWhole(t *testing.T) {
	t.Parallel()
	p, d := 0.01, -12.5
	kpi := KPIComparison{KPI: "rate", Unit: "GFLOPS", A: &CompareSide{Center: 10, Runs: 5}, B: &CompareSide{Center: 8.75, Lo: &d, Runs: 5},
		Delta: &d, P: &p, Method: "mann-whitney", Verdict: "worse", Warnings: []string{"A: \"series\":[]"}}
	strange := []string{`"series":[]`, "series\":[]", "<script>alert(1)</script>", "ünï & \u2028", ""}
	// Numbers JSON writes in either notation, and at the limits of float64.
	odd := []float64{1e-9, 1e21, 123456.789, 5e-324, 0.000001, -0.0}
	for n := range 5 {
		p, d := odd[n%len(odd)], -odd[(n+1)%len(odd)]
		kpi.P, kpi.Delta, kpi.B.Lo = &p, &d, &d
		c := &Comparison{A: BuildRef{ID: `a"series":[]`, Ref: "\"series\":[]"}, B: BuildRef{ID: "<b>"}, Alpha: 0.05, Confidence: 0.95,
			Series: []SeriesComparison{}, OnlyA: n, Message: strange[n%len(strange)]}
		for i := range n {
			s := strange[i%len(strange)]
			c.Series = append(c.Series, SeriesComparison{Series: SeriesRef{ID: s, Workload: "pi", Labels: map[string]string{"k": s, s: "v"}, MainKPI: "rate"},
				KPIs: []KPIComparison{kpi, {KPI: s, Verdict: "~"}}})
		}
		want, err := compactJSON(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d series: encode wrote\n%s\nwant (compactJSON's)\n%s", n, got, want)
		}
	}
}
