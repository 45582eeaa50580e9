// Command collect turns the LTS payloads of bench/realhost-series.sh's
// builds into bench/realdata's series file (the shape of
// ../shared/data/perf-series/series.json).
//
//	go run ./bench/realhost/collect -kpi elapsed_ms -source TEXT -out FILE LTS.json...
//
// Each run carries two settings of the script's own: `series` (the
// series' signature) and `work` (the planted amount of work, in percent of
// the base). Runs are grouped by series and build id; a build's value is
// the median of its runs' KPI, its samples the runs' values in run order,
// its time the start of its first run. A build whose `work` differs from the
// previous build's gets a label: status TP, is_regression true when the
// work grew. Failed runs (exit code not 0) and runs without the KPI are
// left out, with a warning. A summary of each series goes to stderr.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/bench/internal/perfseries"
	"github.com/seshat-bench/seshat/models"
)

type (
	seriesFile = perfseries.File
	series     = perfseries.Series
	label      = perfseries.Label
)

type run struct {
	start time.Time
	value float64
	work  float64
}

// build is one build of one series; its time is its first run's start
// (build.json's time is the commit's, the same for every build here).
type build struct {
	id   string
	time time.Time
	runs []run
}

func main() {
	kpiName := flag.String("kpi", "elapsed_ms", "the KPI each series records")
	out := flag.String("out", "bench/realdata/testdata/host-series.json", "the series file to write")
	source := flag.String("source", "", "the file's source text: how it was made")
	repo := flag.String("repository", "this-host", "repository field of every series")
	platform := flag.String("platform", "debian-2core", "platform field of every series")
	notes := map[string]string{}
	flag.Func("note", "SIGNATURE=TEXT: the note of one series (how its change was planted); repeatable", func(v string) error {
		sig, text, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("want SIGNATURE=TEXT")
		}
		notes[sig] = text
		return nil
	})
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "collect: name the LTS payload files")
		os.Exit(2)
	}
	f, err := collect(flag.Args(), *kpiName, *repo, *platform)
	if err != nil {
		fmt.Fprintln(os.Stderr, "collect:", err)
		os.Exit(1)
	}
	f.Source = *source
	for _, s := range f.Series {
		s.Note = notes[s.Signature]
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		fmt.Fprintln(os.Stderr, "collect:", err)
		os.Exit(1)
	}
	b := buf.Bytes()
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "collect:", err)
		os.Exit(1)
	}
	for _, s := range f.Series {
		summarize(os.Stderr, s)
	}
	fmt.Fprintf(os.Stderr, "collect: wrote %s (%d series, %d bytes)\n", *out, len(f.Series), len(b))
}

func collect(files []string, kpiName, repo, platform string) (*seriesFile, error) {
	type key struct{ series, build string }
	builds := map[key]*build{}
	meta := map[string]*series{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var payloads []models.Payload
		if err := json.Unmarshal(data, &payloads); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, p := range payloads {
			m := p.Metadata
			name, _ := m.Settings["series"].(string)
			if name == "" {
				continue // not a run of the script
			}
			work, ok := m.Settings["work"].(float64)
			if !ok {
				return nil, fmt.Errorf("%s: run %s of %s has no numeric work setting", file, m.TestUUID, name)
			}
			if m.Build == nil || m.Build.ID == "" {
				return nil, fmt.Errorf("%s: run %s of %s has no build", file, m.TestUUID, name)
			}
			if m.ExitCode == nil || *m.ExitCode != 0 {
				fmt.Fprintf(os.Stderr, "collect: warning: %s build %s: run %s failed, left out\n", name, m.Build.ID, m.TestUUID)
				continue
			}
			k, ok := p.KPIs[kpiName]
			if !ok {
				fmt.Fprintf(os.Stderr, "collect: warning: %s build %s: run %s has no KPI %s, left out\n", name, m.Build.ID, m.TestUUID, kpiName)
				continue
			}
			s := meta[name]
			if s == nil {
				s = &series{Signature: name, Repository: repo, Platform: platform, KPI: kpiName,
					Suite: "seshat-pi-" + fmt.Sprint(m.Settings["pi"]), Test: testName(p),
					Unit: k.Unit, LowerBetter: k.LowerBetter, Labels: []label{}}
				meta[name] = s
			}
			b := builds[key{name, m.Build.ID}]
			if b == nil {
				b = &build{id: m.Build.ID, time: m.Start}
				builds[key{name, m.Build.ID}] = b
			}
			if m.Start.Before(b.time) {
				b.time = m.Start
			}
			b.runs = append(b.runs, run{start: m.Start, value: k.Value, work: work})
		}
	}
	if len(meta) == 0 {
		return nil, fmt.Errorf("no run carries a series setting")
	}
	f := &seriesFile{}
	for _, name := range slices.Sorted(maps.Keys(meta)) {
		s := meta[name]
		var bs []*build
		for k, b := range builds {
			if k.series == name {
				bs = append(bs, b)
			}
		}
		slices.SortFunc(bs, func(a, b *build) int {
			return cmp.Or(a.time.Compare(b.time), strings.Compare(a.id, b.id))
		})
		for i, b := range bs {
			slices.SortFunc(b.runs, func(x, y run) int { return x.start.Compare(y.start) })
			vals := make([]float64, len(b.runs))
			for j, r := range b.runs {
				vals[j] = round(r.value)
				if r.work != b.runs[0].work {
					return nil, fmt.Errorf("%s build %s: runs with work %g and %g", name, b.id, b.runs[0].work, r.work)
				}
			}
			work := b.runs[0].work
			s.Revisions = append(s.Revisions, b.id)
			s.Times = append(s.Times, b.time.UTC().Format(time.RFC3339))
			s.Values = append(s.Values, round(median(vals)))
			s.Samples = append(s.Samples, vals)
			s.Work = append(s.Work, work)
			if i > 0 && work != s.Work[i-1] {
				s.Labels = append(s.Labels, label{Index: i, Status: "TP", IsRegression: work > s.Work[i-1]})
			}
		}
		f.Series = append(f.Series, s)
	}
	return f, nil
}

// testName is the PI's name and component from its pi.json, with the
// dtype when it has one: "PiMatmul numpy float32".
func testName(p models.Payload) string {
	res, _ := p.Results.(map[string]any)
	pi, _ := res["pi"].(map[string]any)
	parts := []string{fmt.Sprint(pi["name"]), fmt.Sprint(pi["component"])}
	if d := p.Metadata.Labels["dtype"]; d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, " ")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// round keeps 6 significant digits: the file stays small, and no
// measurement here is better than that.
func round(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	d := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*d) / d
}

// summarize prints, per segment between labels, the builds, the median of
// the build values, and their spread: the median absolute build-to-build
// change and the relative MAD, both in percent of the segment's median;
// then the step at each label.
func summarize(w *os.File, s *series) {
	fmt.Fprintf(w, "%s (%s, %s, %d builds, %s)\n", s.Signature, s.KPI, s.Unit, len(s.Values), map[bool]string{true: "lower is better", false: "higher is better"}[s.LowerBetter])
	cuts := []int{0}
	for _, l := range s.Labels {
		cuts = append(cuts, l.Index)
	}
	cuts = append(cuts, len(s.Values))
	var meds []float64
	for i := 0; i+1 < len(cuts); i++ {
		seg := s.Values[cuts[i]:cuts[i+1]]
		m := median(seg)
		meds = append(meds, m)
		dev := make([]float64, len(seg))
		for j, v := range seg {
			dev[j] = math.Abs(v - m)
		}
		var steps []float64
		for j := 1; j < len(seg); j++ {
			steps = append(steps, math.Abs(seg[j]-seg[j-1]))
		}
		step := 0.0
		if len(steps) > 0 {
			step = median(steps)
		}
		fmt.Fprintf(w, "  builds %2d-%2d work %3g%%: median %.4g, rel. MAD %.1f%%, median build-to-build change %.1f%%, range %.4g-%.4g\n",
			cuts[i]+1, cuts[i+1], s.Work[cuts[i]], m, 100*median(dev)/m, 100*step/m, slices.Min(seg), slices.Max(seg))
	}
	for i, l := range s.Labels {
		fmt.Fprintf(w, "  label at build %d (%s): work %g%% -> %g%%, median %+.1f%%\n",
			l.Index+1, s.Revisions[l.Index], s.Work[l.Index-1], s.Work[l.Index], 100*(meds[i+1]/meds[i]-1))
	}
}
