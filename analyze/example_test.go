package analyze_test

import (
	"fmt"

	"github.com/seshat-bench/seshat/analyze"
)

// A regression verb builds the method once, then judges each entry x KPI:
// history points are the medians of the records of each comparison value,
// oldest first.
func ExampleMethod() {
	m, err := analyze.New("edivisive", analyze.Params{})
	if err != nil {
		panic(err)
	}
	var history []analyze.Point
	for _, runs := range [][]float64{
		{412, 409, 415}, {410, 411, 408}, {414, 416, 413}, {409, 412, 410},
		{413, 411, 412}, {408, 410, 409}, {412, 414, 411}, {410, 409, 411},
	} {
		history = append(history, analyze.PointOf(runs...))
	}
	current := analyze.PointOf(371, 369, 372) // GFLOPS: higher is better
	r := m.Evaluate(analyze.Input{History: history, Current: current, Direction: analyze.DirectionOf(false)})
	fmt.Printf("%s %+.1f%% p=%.2g\n", r.Status, r.DeltaPercent, r.PValue)

	// The same drop of a latency (lower is better) is an improvement.
	r = m.Evaluate(analyze.Input{History: history, Current: current, Direction: analyze.LowerIsBetter})
	fmt.Println(r.Status)
	// Output:
	// regression -9.8% p=4.6e-08
	// improvement
}

func ExampleDetector() {
	m, _ := analyze.New("edivisive", analyze.Params{WindowLen: 10, MaxPValue: 0.0001})
	series := []float64{1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96,
		0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49}
	cps, _ := m.(analyze.Detector).ChangePoints(series)
	for _, c := range cps {
		fmt.Printf("index %d: %.3f -> %.3f (%+.1f%%)\n", c.Index, c.MeanBefore, c.MeanAfter, c.ForwardChangePercent())
	}
	// Output:
	// index 10: 1.004 -> 0.501 (-50.1%)
}
