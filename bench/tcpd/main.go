// Command tcpd measures seshat's change-point detectors on TCPDBench, the
// public benchmark of change-point detection on real series with human
// annotations: G. J. J. van den Burg and C. K. I. Williams, "An Evaluation
// of Change Point Detection Algorithms", arXiv:2003.06222 (2020). Its
// datasets, the Turing Change Point Dataset, are in the repository
// alan-turing-institute/TCPD (datasets/<name>/<name>.json, and the
// annotations in annotations.json); the benchmark's code, with the same
// annotations in analysis/annotations/annotations.json and the published
// scores in analysis/output/scores/, is alan-turing-institute/TCPDBench.
// Neither is part of this repository (their licences vary): bench/tcpd.sh
// says how to get them.
//
// What it measures: whether each detector of analyze.Names() (with its
// default parameters, analyze.New(name, analyze.Params{}), as `seshat
// changepoints --method NAME` builds it) does better than predicting no
// change at all: is the default "never worse than no change on any public
// labelled benchmark"? Every univariate dataset found under -data that has
// annotations goes whole through every method's ChangePoints; the change points (ChangePoint.Index, where a new segment
// starts, the same 0-based convention as the annotations) are cleaned as
// TCPDBench's summarize.py cleans them (duplicates and the endpoints 0 and
// n-1 dropped) and scored with TCPDBench's F1 (cpdscore.FMeasure: margin 5, every
// annotator's set and the predictions given index 0, precision against the
// union of the annotators' sets, recall averaged over annotators, F =
// P·R/(P/2 + R/2)). "no change" predicts nothing: its F1 is TCPDBench's
// "zero" baseline.
//
// Multivariate datasets (run_log, occupancy, ...) are skipped: the
// detectors take one series. A missing value (null in the JSON) is filled
// with the last value before it (the first value after it at the start of
// a series), so the indices stay those the annotators saw; the count of
// filled values is printed. Datasets TCPD only ships as a download script
// (no JSON present) are listed as missing.
//
// The table gives, per method, the mean F1 over the datasets, how many
// datasets it scores below, equal to and above "no change", and then which
// datasets are below. With -scores (TCPDBench's
// analysis/output/scores/default_f1_scores.json, or any JSON object from
// dataset to method to F1), the "no change" column is checked against its
// "zero" entries, a check of this implementation of the metric.
//
//	go run ./bench/tcpd -data TCPD/datasets -annotations TCPD/annotations.json [-v] [-scores FILE]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/bench/internal/cpdscore"
)

var (
	dataDir     = flag.String("data", "", "directory holding the TCPD dataset JSON files (walked, any layout)")
	annotFile   = flag.String("annotations", "", "TCPD/TCPDBench annotations.json")
	scoresFile  = flag.String("scores", "", "optional: TCPDBench's default_f1_scores.json, to check the \"no change\" column against its \"zero\" method")
	verboseFlag = flag.Bool("v", false, "print every dataset's F1 per method and the change points found")
)

const noChange = "no change"

func main() {
	flag.Parse()
	if *dataDir == "" || *annotFile == "" {
		fmt.Fprintln(os.Stderr, "usage: tcpd -data DIR -annotations FILE [-scores FILE] [-v]")
		os.Exit(2)
	}
	if err := run(os.Stdout, *dataDir, *annotFile, *scoresFile, *verboseFlag); err != nil {
		fmt.Fprintln(os.Stderr, "tcpd:", err)
		os.Exit(1)
	}
}

// dataset is one TCPD series with its annotations.
type dataset struct {
	name        string
	path        string
	values      []float64
	filled      int // missing values filled
	annotations map[string][]int
}

// tcpdFile is the part of a TCPD dataset file (schema.json in TCPD) read
// here.
type tcpdFile struct {
	Name   string `json:"name"`
	NObs   int    `json:"n_obs"`
	NDim   int    `json:"n_dim"`
	Series []struct {
		Label string     `json:"label"`
		Raw   []*float64 `json:"raw"`
	} `json:"series"`
}

// method is one column of the benchmark: a name and its change points.
type method struct {
	name   string
	detect func([]float64) []int
}

func methods() (ms []method, skipped []string, err error) {
	ms = append(ms, method{noChange, func([]float64) []int { return nil }})
	for _, name := range analyze.Names() {
		m, err := analyze.New(name, analyze.Params{})
		if err != nil {
			return nil, nil, err
		}
		d, ok := m.(analyze.Detector)
		if !ok {
			skipped = append(skipped, name)
			continue
		}
		label := name
		if name == analyze.DefaultDetector {
			label += " (default)"
		}
		ms = append(ms, method{label, func(s []float64) []int {
			cps, _ := d.ChangePoints(s)
			idx := make([]int, len(cps))
			for i, c := range cps {
				idx[i] = c.Index
			}
			return idx
		}})
	}
	return ms, skipped, nil
}

func run(w io.Writer, dir, annotPath, scoresPath string, verbose bool) error {
	start := time.Now()
	var annotations map[string]map[string][]int
	if err := readJSON(annotPath, &annotations); err != nil {
		return err
	}
	found, multivariate, err := findDatasets(dir, annotations)
	if err != nil {
		return err
	}
	var sets []*dataset
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(annotations)) {
		switch {
		case found[name] != nil:
			sets = append(sets, found[name])
		case !slices.Contains(multivariate, name):
			missing = append(missing, name)
		}
	}
	if len(sets) == 0 {
		return fmt.Errorf("no annotated univariate dataset found under %s", dir)
	}
	ms, notDetectors, err := methods()
	if err != nil {
		return err
	}

	// f1[m][d] is method m's F1 on dataset d.
	f1 := make([][]float64, len(ms))
	for i, m := range ms {
		f1[i] = make([]float64, len(sets))
		for j, d := range sets {
			pred := cpdscore.Clean(m.detect(d.values), len(d.values))
			f1[i][j], _, _ = cpdscore.FMeasure(d.annotations, pred, cpdscore.Margin)
			if verbose && m.name != noChange {
				fmt.Fprintf(os.Stderr, "%-20s %-20s F1 %.3f  change points %v\n", m.name, d.name, f1[i][j], pred)
			}
		}
	}

	filled, points := 0, 0
	var filledIn []string
	for _, d := range sets {
		points += len(d.values)
		if d.filled > 0 {
			filled += d.filled
			filledIn = append(filledIn, fmt.Sprintf("%s: %d", d.name, d.filled))
		}
	}
	fmt.Fprintf(w, "TCPDBench F1 (cpdscore.Margin %d, every annotator): %d univariate datasets, %d points", cpdscore.Margin, len(sets), points)
	if filled > 0 {
		fmt.Fprintf(w, ", %d missing values forward-filled (%s)", filled, strings.Join(filledIn, ", "))
	}
	fmt.Fprintln(w)
	if len(multivariate) > 0 {
		fmt.Fprintf(w, "skipped, multivariate: %s\n", strings.Join(multivariate, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "annotated but not found under %s (TCPD ships them as download scripts): %s\n", dir, strings.Join(missing, ", "))
	}
	if len(notDetectors) > 0 {
		fmt.Fprintf(w, "not change-point detectors (no ChangePoints): %s\n", strings.Join(notDetectors, ", "))
	}
	fmt.Fprintln(w)

	const eps = 1e-9
	zero := f1[0]
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tmean F1\tbelow no change\tequal\tabove\t")
	below := make([][]string, len(ms))
	for i, m := range ms {
		var sum float64
		var lo, eq, hi int
		for j, d := range sets {
			v := f1[i][j]
			sum += v
			switch {
			case v < zero[j]-eps:
				lo++
				below[i] = append(below[i], fmt.Sprintf("%s %.3f<%.3f", d.name, v, zero[j]))
			case v > zero[j]+eps:
				hi++
			default:
				eq++
			}
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%d\t%d\t%d\t\n", m.name, sum/float64(len(sets)), lo, eq, hi)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "datasets below no change (method's F1 < no change's F1):")
	for i, m := range ms[1:] {
		list := "none"
		if b := below[i+1]; len(b) > 0 {
			list = strings.Join(b, ", ")
		}
		fmt.Fprintf(w, "  %s: %s\n", m.name, list)
	}

	if verbose {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "dataset\tn\tannotators")
		for _, m := range ms {
			fmt.Fprintf(tw, "\t%s", strings.TrimSuffix(m.name, " (default)"))
		}
		fmt.Fprintln(tw, "\t")
		for j, d := range sets {
			fmt.Fprintf(tw, "%s\t%d\t%d", d.name, len(d.values), len(d.annotations))
			for i := range ms {
				fmt.Fprintf(tw, "\t%.3f", f1[i][j])
			}
			fmt.Fprintln(tw, "\t")
		}
		tw.Flush()
	}

	if scoresPath != "" {
		if err := checkZero(w, scoresPath, sets, zero); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "tcpd: %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// checkZero compares the "no change" F1 with the "zero" method's in a
// TCPDBench scores file (dataset -> method -> F1).
func checkZero(w io.Writer, path string, sets []*dataset, zero []float64) error {
	var scores map[string]map[string]*float64
	if err := readJSON(path, &scores); err != nil {
		return err
	}
	same, compared := 0, 0
	var diff []string
	for j, d := range sets {
		ref := scores[d.name]["zero"]
		if ref == nil {
			continue
		}
		compared++
		if math.Abs(*ref-zero[j]) < 1e-9 {
			same++
		} else {
			diff = append(diff, fmt.Sprintf("%s %.6f (TCPDBench %.6f)", d.name, zero[j], *ref))
		}
	}
	fmt.Fprintf(w, "\n%q matches TCPDBench's published \"zero\" F1 on %d of %d datasets", noChange, same, compared)
	if len(diff) > 0 {
		fmt.Fprintf(w, "; differs on %s", strings.Join(diff, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// findDatasets walks dir for TCPD dataset files of the annotated datasets:
// the univariate ones read, the names of the multivariate ones.
func findDatasets(dir string, annotations map[string]map[string][]int) (map[string]*dataset, []string, error) {
	found := map[string]*dataset{}
	var multivariate []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		var f tcpdFile
		if readJSON(path, &f) != nil || f.Name == "" || len(f.Series) == 0 {
			return nil // not a dataset file (annotations.json, schema.json, ...)
		}
		a, ok := annotations[f.Name]
		if !ok {
			return nil
		}
		if prev := found[f.Name]; prev != nil || slices.Contains(multivariate, f.Name) {
			fmt.Fprintf(os.Stderr, "tcpd: %s: dataset %s already read, skipped\n", path, f.Name)
			return nil
		}
		if len(f.Series) > 1 || f.NDim > 1 {
			multivariate = append(multivariate, f.Name)
			return nil
		}
		values, filled, err := fill(f.Series[0].Raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if f.NObs != 0 && f.NObs != len(values) {
			return fmt.Errorf("%s: n_obs %d but %d values", path, f.NObs, len(values))
		}
		found[f.Name] = &dataset{name: f.Name, path: path, values: values, filled: filled, annotations: a}
		return nil
	})
	slices.Sort(multivariate)
	return found, multivariate, err
}

// fill replaces missing values with the last value before them, or at the
// start of the series with the first value present.
func fill(raw []*float64) (values []float64, filled int, err error) {
	values = make([]float64, len(raw))
	first := slices.IndexFunc(raw, func(v *float64) bool { return v != nil })
	if first < 0 {
		return nil, 0, errors.New("no values")
	}
	last := *raw[first]
	for i, v := range raw {
		if v == nil {
			values[i] = last
			filled++
			continue
		}
		values[i], last = *v, *v
	}
	return values, filled, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
