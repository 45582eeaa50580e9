// Command detection measures how well `seshat regression` finds planted
// performance drops and how often it raises false alarms, against Apache
// Otava's change points used the way MatrixBenchmarking uses them.
//
// Each trial is one analysis, as `seshat regression --results-dir DIR`
// makes it with its defaults: three matrix points (entries) of a matmul
// PI, two KPIs each (rate, higher is better; time per operation, lower is
// better), 20 history builds of 5 runs each in the store, and a current
// build of 5 runs. A drop, when planted, slows the current build of one
// entry (both its KPIs); the other entries are unchanged. History kinds:
//
//   - v2v: version to version, each build a new framework_version (the
//     comparison key);
//   - nightly: one stack re-run every night on new code: every build has
//     the same framework_version, told apart by its build id only.
//
// Noise models, on every run: gauss (2% gaussian); slow (gauss, and 10% of
// runs 30% slower: a host's slow phases); drift-up (gauss, and the machine
// pool 0.4% faster every build: hides drops); drift-down (0.4% slower every
// build: fakes drops).
//
// Columns: found is the share of planted (entry, KPI) tests reported as a
// regression; false alarm per test the share of unchanged tests reported
// as a regression or an improvement; per analysis the share of analyses
// with at least one such false alarm (what a CI job with unchanged code
// would see). "otava (matbench)" is e-divisive (Hunter/Otava defaults:
// window 50, p 0.001) on one point per comparison value (the median of its
// runs) followed by the current build, a regression when a change point
// sits at the current build and goes the bad way; "otava (builds)" the
// same on one point per build.
//
//	go run ./bench/detection [-trials 500] [-seed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

const (
	builds = 20
	runs   = 5
)

var sizes = []string{"128", "256", "512"}

// plantedSize is the entry whose current build is slowed.
const plantedSize = "512"

type noiseModel struct {
	name string
	// factor is the multiplier of a run's rate (time is its inverse).
	factor func(r *rand.Rand, build int) float64
}

func gauss(r *rand.Rand) float64 { return 1 + 0.02*r.NormFloat64() }

var models_ = []noiseModel{
	{"gauss", func(r *rand.Rand, _ int) float64 { return gauss(r) }},
	{"slow", func(r *rand.Rand, _ int) float64 {
		f := gauss(r)
		if r.Float64() < 0.1 {
			f /= 1.3
		}
		return f
	}},
	{"drift-up", func(r *rand.Rand, b int) float64 { return gauss(r) * math.Pow(1.004, float64(b)) }},
	{"drift-down", func(r *rand.Rand, b int) float64 { return gauss(r) * math.Pow(0.996, float64(b)) }},
}

type tally struct {
	planted, found       int
	null, falseAlarm     int
	analyses, anyAlarmed int
}

func (t *tally) add(o outcome) {
	t.planted += o.planted
	t.found += o.found
	t.null += o.null
	t.falseAlarm += o.falseAlarm
	t.analyses++
	if o.falseAlarm > 0 {
		t.anyAlarmed++
	}
}

type outcome struct{ planted, found, null, falseAlarm int }

func main() {
	trials := flag.Int("trials", 500, "analyses per scenario")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.IntVar(&explain, "explain", 0, "print the details of the first N false alarms of seshat's default invocation")
	flag.Parse()
	start := time.Now()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "history\tnoise\tdrop\tseshat found\tFA/test\tFA/analysis\totava (matbench) found\tFA/test\totava (builds) found\tFA/test\t")
	for _, hist := range []string{"v2v", "nightly"} {
		for _, nm := range models_ {
			for _, drop := range []float64{0, 0.05, 0.10, 0.20} {
				r := rand.New(rand.NewPCG(*seed, uint64(len(hist))*1000+uint64(drop*100)+uint64(len(nm.name))*7))
				var ours, mb, pb tally
				for range *trials {
					o, m, p, err := trial(r, hist, nm, drop)
					if err != nil {
						fmt.Fprintln(os.Stderr, "detection:", err)
						os.Exit(1)
					}
					ours.add(o)
					mb.add(m)
					pb.add(p)
				}
				fmt.Fprintf(w, "%s\t%s\t%.0f%%\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", hist, nm.name, drop*100,
					rate(ours.found, ours.planted), rate(ours.falseAlarm, ours.null), rate(ours.anyAlarmed, ours.analyses),
					rate(mb.found, mb.planted), rate(mb.falseAlarm, mb.null),
					rate(pb.found, pb.planted), rate(pb.falseAlarm, pb.null))
			}
		}
	}
	w.Flush()
	fmt.Fprintf(os.Stderr, "detection: %d trials per scenario in %s\n", *trials, time.Since(start).Round(time.Millisecond))
}

func rate(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

var explain int

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// run makes the values of one run: rate and time per operation.
func run(r *rand.Rand, nm noiseModel, size string, b int, slowdown float64) (rateV, timeV float64) {
	base := map[string]float64{"128": 8, "256": 11, "512": 12}[size]
	rateV = base * nm.factor(r, b) * (1 - slowdown)
	return rateV, 1000 / rateV
}

func trial(r *rand.Rand, hist string, nm noiseModel, drop float64) (ours, matbench, perBuild outcome, err error) {
	var history []*models.Payload
	n := 0
	version := func(b int) string {
		if hist == "nightly" {
			return "2.0"
		}
		return fmt.Sprintf("1.%d", b)
	}
	payload := func(size string, b, k int, rateV, timeV float64) *models.Payload {
		n++
		at := t0.Add(time.Duration(b)*24*time.Hour + time.Duration(k)*time.Minute)
		uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		return &models.Payload{
			Metadata: models.Metadata{TestUUID: uuid, Start: at, Workload: "pi",
				Labels: map[string]string{"workload": "pi", "pi": "matmul", "matrix_size": size, "framework_version": version(b)},
				Build:  &models.Build{ID: fmt.Sprintf("build-%d", b), Commit: fmt.Sprintf("%07x", b*7919)}},
			KPIs: map[string]models.KPIValue{
				"rate_gflops":    {Value: rateV, Unit: "GFLOPS", Timestamp: at, TestUUID: uuid},
				"time_per_op_ms": {Value: timeV, Unit: "ms", LowerBetter: true, Timestamp: at, TestUUID: uuid},
			},
		}
	}
	var current []regression.Run
	for _, size := range sizes {
		for b := 0; b <= builds; b++ {
			for k := range runs {
				slow := 0.0
				if b == builds && size == plantedSize {
					slow = drop
				}
				rv, tv := run(r, nm, size, b, slow)
				p := payload(size, b, k, rv, tv)
				if b == builds {
					current = append(current, regression.Run{Path: p.Metadata.TestUUID, Record: lts.RecordOf(p)})
				} else {
					history = append(history, p)
				}
			}
		}
	}
	store := lts.NewMemory("memory", history...)
	m, _ := analyze.New(analyze.DefaultMethod, analyze.Params{})
	rep, err := regression.Analyze(context.Background(), current, store, regression.Options{
		Method:           m,
		Keys:             func(string) regression.Keys { return regression.Keys{ComparisonKeys: []string{"framework_version"}} },
		FailOnRegression: true,
	})
	if err != nil {
		return ours, matbench, perBuild, err
	}
	for _, e := range rep.Entries {
		planted := drop > 0 && e.Labels["matrix_size"] == plantedSize
		for _, res := range e.Results {
			found := res.Status == analyze.StatusRegression || res.Status == analyze.StatusImprovement
			count(&ours, planted, found, res.Status == analyze.StatusRegression)
			if found && !planted && explain > 0 {
				explain--
				fmt.Fprintf(os.Stderr, "false alarm: %s %s %s %s: %s %+.2f%% q=%.3g floor %.2f%%: %s\n  history:", hist, nm.name, e.Name, res.KPI,
					res.Status, res.Result.DeltaPercent, res.Result.QValue, res.Result.Floor, res.Result.Details)
				for _, p := range res.History {
					fmt.Fprintf(os.Stderr, " %.3g", p.Value)
				}
				fmt.Fprintf(os.Stderr, "\n  current: %.3g %v\n", res.Current.Value, res.Current.Samples)
			}
			mbFound, mbRegression := otava(res, res.History, true, version(builds))
			count(&matbench, planted, mbFound, mbRegression)
			pbFound, pbRegression := otava(res, res.History, false, "")
			count(&perBuild, planted, pbFound, pbRegression)
		}
	}
	return ours, matbench, perBuild, nil
}

func count(o *outcome, planted, found, regressed bool) {
	if planted {
		o.planted++
		if regressed {
			o.found++
		}
		return
	}
	o.null++
	if found {
		o.falseAlarm++
	}
}

// otava runs e-divisive with Otava's defaults on the history followed by
// the current point: on one point per comparison value, the current one's
// left out (matbench), or on one point per build.
func otava(res *regression.KPIResult, history []analyze.Point, byValue bool, currentValue string) (found, regressed bool) {
	var series []float64
	if byValue {
		order := []string{}
		values := map[string][]float64{}
		for _, p := range history {
			if p.Label == currentValue {
				continue
			}
			if _, ok := values[p.Label]; !ok {
				order = append(order, p.Label)
			}
			values[p.Label] = append(values[p.Label], p.Samples...)
		}
		for _, v := range order {
			series = append(series, analyze.Median(values[v]))
		}
	} else {
		for _, p := range history {
			series = append(series, p.Value)
		}
	}
	if len(series) == 0 {
		return false, false
	}
	cur := res.Current.Value
	r := analyze.EDivisive{}.Evaluate(analyze.Input{History: pointsOf(series), Current: analyze.Point{Value: cur}, Direction: res.Direction})
	found = r.Status == analyze.StatusRegression || r.Status == analyze.StatusImprovement
	return found, r.Status == analyze.StatusRegression
}

func pointsOf(xs []float64) []analyze.Point {
	out := make([]analyze.Point, len(xs))
	for i, x := range xs {
		out[i] = analyze.Point{Value: x}
	}
	return out
}

var _ = strings.Join
