package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/seriesfile"
	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/parsers"
)

// ChangePointsOptions are the options of `seshat changepoints`.
type ChangePointsOptions struct {
	File    string   // CSV or JSON series file
	Metrics []string // series to analyse; all when empty
	Method  string   // a detector: edivisive (default), zscore, threshold
	Params  analyze.Params
	Format  string // text (default) or json
	Output  string // file to write, "-" or "" for stdout
}

// seriesFileLimit bounds the series file read whole.
const seriesFileLimit = parsers.DefaultLimit

// ChangePoints runs `seshat changepoints`: read the series, find the change
// points of each (in parallel), print them as a table or JSON.
func ChangePoints(ctx context.Context, env Env, opts ChangePointsOptions) error {
	format := opts.Format
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "json" {
		return exitcode.Errorf(exitcode.InvalidInput, "--format: %q is not text or json", opts.Format)
	}
	det, err := detector(opts.Method, opts.Params)
	if err != nil {
		return err
	}
	if opts.File == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "a series file is required")
	}
	data, err := parsers.ReadLimited(opts.File, seriesFileLimit)
	if err != nil {
		return exitcode.Input(fmt.Errorf("series file: %w", err))
	}
	file, err := seriesfile.Read(opts.File, data)
	var se *parsers.SyntaxError
	switch {
	case errors.Is(err, seriesfile.ErrNoData):
		return exitcode.With(exitcode.NoData, err)
	case errors.As(err, &se):
		return exitcode.With(exitcode.InvalidInput, err)
	case err != nil:
		return err
	}
	for _, w := range file.Warnings {
		env.Log.Warn(w)
	}
	series, err := selectSeries(file, opts.Metrics)
	if err != nil {
		return err
	}
	found, err := findChangePoints(ctx, det, series)
	if err != nil {
		return err
	}
	total := 0
	for _, f := range found {
		for _, w := range f.warnings {
			env.Log.Warn(fmt.Sprintf("series %q: %s", f.name, w))
		}
		total += len(f.cps)
	}
	err = atomicfile.WriteOutput(opts.Output, env.Stdout, func(w io.Writer) error {
		if format == "json" {
			return writeChangePointsJSON(w, file.Time, found)
		}
		return writeChangePointsText(w, file.Time, found)
	})
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	env.Log.Info(fmt.Sprintf("%d change point(s) in %d series (%s)", total, len(found), det.Name()))
	return nil
}

// detector builds the named method, which must find change points.
func detector(name string, p analyze.Params) (analyze.Detector, error) {
	if name == "" {
		name = analyze.DefaultDetector
	}
	m, err := analyze.New(name, p)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--method: %w", err)
	}
	d, ok := m.(analyze.Detector)
	if !ok {
		return nil, exitcode.Errorf(exitcode.InvalidInput,
			"--method: %s compares batches of repeated runs and finds no change points in a plain series (use edivisive, segment, zscore or threshold)", name)
	}
	return d, nil
}

// selectSeries returns the series named by metrics, in the order given
// (duplicates once), or every series in file order.
func selectSeries(f *seriesfile.File, metrics []string) ([]seriesfile.Series, error) {
	if len(metrics) == 0 {
		return f.Series, nil
	}
	var out []seriesfile.Series
	seen := map[string]bool{}
	for _, m := range metrics {
		if seen[m] {
			continue
		}
		seen[m] = true
		s, ok := f.Lookup(m)
		if !ok {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "--metric: %s has no series %q (series: %s)", f.Name, m, strings.Join(f.Names(), ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

type seriesChangePoints struct {
	name     string
	cps      []analyze.ChangePoint
	warnings []analyze.Warning
}

// findChangePoints analyses the series on GOMAXPROCS workers; results keep
// the order of series.
func findChangePoints(ctx context.Context, det analyze.Detector, series []seriesfile.Series) ([]seriesChangePoints, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]seriesChangePoints, len(series))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(series)) {
		wg.Go(func() {
			for i := range next {
				cps, warns := det.ChangePoints(series[i].Values)
				out[i] = seriesChangePoints{name: series[i].Name, cps: cps, warnings: warns}
			}
		})
	}
	var err error
feed:
	for i := range series {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return out, err
}

// jsonNumber writes NaN and infinities as null, which JSON cannot hold.
type jsonNumber float64

func (n jsonNumber) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

type changePointJSON struct {
	Index                int        `json:"index"`
	Time                 *string    `json:"time"`
	MeanBefore           jsonNumber `json:"mean_before"`
	MeanAfter            jsonNumber `json:"mean_after"`
	StdDevBefore         jsonNumber `json:"stddev_before"`
	StdDevAfter          jsonNumber `json:"stddev_after"`
	PValue               jsonNumber `json:"pvalue"`
	Magnitude            jsonNumber `json:"magnitude"`
	ForwardChangePercent jsonNumber `json:"forward_change_percent"`
}

func writeChangePointsJSON(w io.Writer, times []string, found []seriesChangePoints) error {
	doc := struct {
		Series map[string][]changePointJSON `json:"series"` // keys sorted by encoding/json
	}{Series: make(map[string][]changePointJSON, len(found))}
	for _, f := range found {
		list := make([]changePointJSON, 0, len(f.cps))
		for _, c := range f.cps {
			list = append(list, changePointJSON{
				Index: c.Index, Time: timeAt(times, c.Index),
				MeanBefore: jsonNumber(c.MeanBefore), MeanAfter: jsonNumber(c.MeanAfter),
				StdDevBefore: jsonNumber(c.StdDevBefore), StdDevAfter: jsonNumber(c.StdDevAfter),
				PValue: jsonNumber(c.PValue), Magnitude: jsonNumber(c.Magnitude()),
				ForwardChangePercent: jsonNumber(forwardChangePercent(c)),
			})
		}
		doc.Series[f.name] = list
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func timeAt(times []string, i int) *string {
	if i < 0 || i >= len(times) {
		return nil
	}
	return &times[i]
}

func writeChangePointsText(w io.Writer, times []string, found []seriesChangePoints) error {
	var quiet []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"SERIES", "INDEX"}
	if times != nil {
		header = append(header, "TIME")
	}
	header = append(header, "MEAN BEFORE", "MEAN AFTER", "STDDEV BEFORE", "STDDEV AFTER", "P-VALUE", "MAGNITUDE", "CHANGE")
	rows := 0
	for _, f := range found {
		if len(f.cps) == 0 {
			quiet = append(quiet, f.name)
			continue
		}
		for _, c := range f.cps {
			if rows == 0 {
				fmt.Fprintln(tw, strings.Join(header, "\t"))
			}
			rows++
			cells := []string{f.name, strconv.Itoa(c.Index)}
			if times != nil {
				t := ""
				if p := timeAt(times, c.Index); p != nil {
					t = *p
				}
				cells = append(cells, t)
			}
			cells = append(cells, num(c.MeanBefore), num(c.MeanAfter), num(c.StdDevBefore), num(c.StdDevAfter),
				fmt.Sprintf("%.3g", c.PValue), fmt.Sprintf("%.4f", c.Magnitude()), changeCell(c))
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case rows == 0:
		_, err := fmt.Fprintf(w, "no change point in %d series: %s\n", len(found), strings.Join(quiet, ", "))
		return err
	case len(quiet) > 0:
		_, err := fmt.Fprintf(w, "\nno change point: %s\n", strings.Join(quiet, ", "))
		return err
	}
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// forwardChangePercent is the change in percent, NaN from a mean of 0:
// ChangePoint.ForwardChange says 0 there (as Otava), which would read as
// no change at all.
func forwardChangePercent(c analyze.ChangePoint) float64 {
	if c.MeanBefore == 0 {
		return math.NaN()
	}
	return c.ForwardChangePercent()
}

// changeCell is forwardChangePercent for the table, "-" when undefined.
func changeCell(c analyze.ChangePoint) string {
	p := forwardChangePercent(c)
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// ChangePointMethods lists the methods `seshat changepoints` accepts: those
// that find change points in a plain series, sorted.
func ChangePointMethods() []string {
	var out []string
	for _, name := range analyze.Names() {
		if _, err := detector(name, analyze.Params{}); err == nil {
			out = append(out, name)
		}
	}
	return out
}
