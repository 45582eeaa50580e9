// Command realdata measures how `seshat regression` and `seshat
// changepoints` do on real performance series with human-triaged alerts:
// Mozilla's Perfherder series in ../shared/data/perf-series/ and the series
// bench/realhost recorded from real PI runs on a real host (planted
// slowdowns labelled TP).
//
// Every series is replayed as a CI job would meet it: a store (lts.Memory,
// which answers queries as every store does), each revision one build of
// one run stored after it is judged, each build judged by
// regression.Analyze with the default method and gate (what `seshat
// regression` runs, no flags) against the builds stored before it. A build
// is an alert when its status is regression or improvement; a suspect is
// counted apart (reported, not failing). The whole series also goes
// through `seshat changepoints` (report.FindChangePoints with its default
// detector, from a JSON series file) and through two reference detectors:
// Perfherder's (analyze.Perfherder, treeherder's defaults) and Apache
// Otava's defaults (analyze.EDivisive: window 50, p 0.001).
//
// Each file's line says how many of its confirmed changes are steps of
// at least the gate's minimum effect (step): the others a replay gated at
// that effect rarely counts. Columns, per method, over every series:
//
//   - recall: confirmed changes (TP and FN labels) with an alert within 5
//     builds;
//
//   - far/1k: alerts farther than 5 builds from every labelled point (any
//     label), per 1,000 judged builds;
//
//   - FP rep: dismissed alerts (FP labels) the method raised again within
//     5 builds;
//
//   - per change: alerts within 5 builds of a found confirmed change, per
//     found change (1 is one alert per change);
//
//   - F1: TCPDBench's F1 with margin 5 against the confirmed changes,
//     averaged over the series; "no change" is the score of predicting
//     none.
//
// With -frontier, it prints instead what any online detector could reach
// on the same series (frontier.go): for a few statistics of a change in the
// last builds, the best recall at 2 far alerts per 1,000 builds, and the
// recall of an oracle alerting once at every visible step; -curve adds
// each statistic's whole curve, -v the far alerts of each statistic's
// first setting that finds 60% of the confirmed changes.
//
//	go run ./bench/realdata [-v] [-frontier [-curve]] [FILE.json ...]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/analyze/report"
	"github.com/seshat-bench/seshat/analyze/seriesfile"
	"github.com/seshat-bench/seshat/bench/internal/perfseries"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// defaultFiles are read when no file is named: the shared Perfherder set
// and this repository's recorded host series.
var defaultFiles = []string{"../shared/data/perf-series/series.json", "bench/realdata/testdata/host-series.json"}

var (
	verbose      = flag.Bool("v", false, "print every series' alerts beside its labels")
	frontierMode = flag.Bool("frontier", false, "instead of the methods, print the frontier of online detectors (recall against far alerts) and the oracle")
	curve        = flag.Bool("curve", false, "with -frontier, print each statistic's whole curve")
	trace        = flag.String("trace", "", "print the CI replay's verdict on every build of the series whose name contains this text")
)

func main() {
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		for _, f := range defaultFiles {
			if _, err := os.Stat(f); err == nil {
				files = append(files, f)
			}
		}
	}
	if err := run(os.Stdout, files); err != nil {
		fmt.Fprintln(os.Stderr, "realdata:", err)
		os.Exit(1)
	}
}

type method struct {
	name   string
	alerts func(s *series) (alerts []int, other counts, judged int, err error)
}

func methods() []method {
	return []method{
		{"seshat regression (CI replay)", replay},
		{"seshat changepoints (default)", changepoints},
		{"perfherder (treeherder defaults)", detect(analyze.Perfherder{})},
		{"otava (e-divisive defaults)", detect(analyze.EDivisive{})},
		{"no change", func(s *series) ([]int, counts, int, error) { return nil, counts{}, len(s.Values), nil }},
	}
}

func run(w io.Writer, files []string) error {
	start := time.Now()
	for _, file := range files {
		all, err := perfseries.Read(file)
		if err != nil {
			return err
		}
		points, confirmed, large := 0, 0, 0
		for _, s := range all {
			points += len(s.Values)
			for _, l := range s.Labels {
				if l.Confirmed() {
					confirmed++
				}
				if isLarge(s.Values, l) {
					large++
				}
			}
		}
		fmt.Fprintf(w, "%s: %d series, %d builds, %d confirmed changes (%d of them steps of at least %g%%, the gate's minimum effect)\n",
			file, len(all), points, confirmed, large, float64(analyze.DefaultMinEffect))
		if *frontierMode {
			frontier(w, file, all, *curve)
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "method\trecall\trecall >=%g%%\tfar/1k\tFP rep\tper change\tF1\talerts\tsuspects\tnoisy\tjudged\t\n", float64(analyze.DefaultMinEffect))
		for _, m := range methods() {
			var total score
			for _, s := range all {
				alerts, other, judged, err := m.alerts(s)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", m.name, s.Name(), err)
				}
				sc := scoreSeries(s.Labels, s.Values, alerts, judged)
				sc.counts = other
				total.add(sc)
				if *verbose && m.name != "no change" {
					fmt.Fprintf(os.Stderr, "%-34s %-40.40s labels %s alerts %v\n", m.name, s.Name(), labelText(s.Labels), alerts)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%s\t%.3f\t%d\t%d\t%d\t%d\t\n", m.name,
				ratio(total.found, total.confirmed), ratio(total.foundLg, total.large), 1000*float64(total.far)/float64(max(total.judged, 1)),
				fmt.Sprintf("%d/%d", total.repeated, total.dismissed), perChange(total),
				total.f1/float64(len(all)), total.alerts, total.suspects, total.noisy, total.judged)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintf(os.Stderr, "realdata: %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func ratio(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", float64(n)/float64(of), n, of)
}

func perChange(s score) string {
	if s.found == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(s.near)/float64(s.found))
}

func labelText(ls []label) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s@%d", l.Status, l.Index)
	}
	return b.String()
}

// labelAt is the label at build i, or "--".
func labelAt(ls []label, i int) string {
	for _, l := range ls {
		if l.Index == i {
			return l.Status
		}
	}
	return "--"
}

// detect runs a detector on the whole series.
func detect(d analyze.Detector) func(s *series) ([]int, counts, int, error) {
	return func(s *series) ([]int, counts, int, error) {
		cps, _ := d.ChangePoints(s.Values)
		var out []int
		for _, c := range cps {
			out = append(out, c.Index)
		}
		return out, counts{}, len(s.Values), nil
	}
}

// changepoints finds the change points of the series as `seshat
// changepoints FILE` does: the series read as a JSON series file, the
// default detector, report.FindChangePoints.
func changepoints(s *series) ([]int, counts, int, error) {
	doc, _ := json.Marshal(map[string]any{"series": map[string][]float64{"value": s.Values}})
	file, err := seriesfile.Read("series.json", doc)
	if err != nil {
		return nil, counts{}, 0, err
	}
	det, err := report.ChangePointDetector("", analyze.Params{})
	if err != nil {
		return nil, counts{}, 0, err
	}
	found, err := report.FindChangePoints(context.Background(), det, file.Series)
	if err != nil {
		return nil, counts{}, 0, err
	}
	var idx []int
	for _, f := range found {
		for _, c := range f.ChangePoints {
			idx = append(idx, c.Index)
		}
	}
	return idx, counts{}, len(s.Values), nil
}

// replay stores the series build by build and judges each build against
// the ones before it, as `seshat regression` with no flags in a CI job.
func replay(s *series) ([]int, counts, int, error) {
	ctx := context.Background()
	store := lts.NewMemory("replay")
	m, err := analyze.New(analyze.DefaultMethod, analyze.Params{})
	if err != nil {
		return nil, counts{}, 0, err
	}
	opts := regression.Options{Method: m, FailOnRegression: true}
	var alerts []int
	var other counts
	judged := 0
	n := 0
	for i, v := range s.Values {
		samples := []float64{v}
		if s.Samples != nil && len(s.Samples[i]) > 0 {
			samples = s.Samples[i]
		}
		var current []regression.Run
		var payloads []*models.Payload
		for k, x := range samples {
			n++
			p := payload(s, i, k, n, x)
			payloads = append(payloads, p)
			current = append(current, regression.Run{Path: p.Metadata.TestUUID, Record: lts.RecordOf(p)})
		}
		if i > 0 {
			rep, err := regression.Analyze(ctx, current, store, opts)
			if err != nil {
				return nil, counts{}, 0, err
			}
			judged++
			for _, e := range rep.Entries {
				for _, r := range e.Results {
					if *trace != "" && strings.Contains(s.Name(), *trace) {
						fmt.Fprintf(os.Stderr, "%s %3d %s %-11s %+7.2f%% floor %.1f%% %s%s\n", s.Signature, i, labelAt(s.Labels, i), r.Status, r.Result.DeltaPercent, r.Result.Floor, r.Result.Reason, r.Result.Details)
					}
					switch r.Status {
					case analyze.StatusRegression, analyze.StatusImprovement, regression.StatusAcknowledged:
						alerts = append(alerts, i)
					case analyze.StatusSuspect:
						other.suspects++
					case analyze.StatusNoisy:
						other.noisy++
					}
				}
			}
		}
		if _, err := store.Put(ctx, payloads); err != nil {
			return nil, counts{}, 0, err
		}
	}
	return slices.Compact(alerts), other, judged, nil
}

func payload(s *series, build, run, n int, v float64) *models.Payload {
	at := buildTime(build).Add(time.Duration(run) * time.Minute)
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	exit := 0
	unit := s.Unit
	if unit == "" {
		unit = "1"
	}
	return &models.Payload{
		Metadata: models.Metadata{TestUUID: uuid, Start: at, End: at, ExitCode: &exit, Workload: "perfherder",
			Labels: map[string]string{"workload": "perfherder", "signature": s.Signature},
			Build:  &models.Build{ID: s.Revisions[build], Commit: s.Revisions[build]}},
		KPIs: map[string]models.KPIValue{
			"value": {Value: v, Unit: unit, Help: "the series' value", LowerBetter: s.LowerBetter, Timestamp: at, TestUUID: uuid},
		},
	}
}
