package report

import (
	"context"
	"encoding/json"
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
)

// ChangePointDetector builds the named method (analyze.DefaultDetector
// when empty) for `seshat changepoints`: it must find change points in a
// plain series. A method that compares batches of runs is refused, naming
// the methods that do.
func ChangePointDetector(name string, p analyze.Params) (analyze.Detector, error) {
	if name == "" {
		name = analyze.DefaultDetector
	}
	m, err := analyze.New(name, p)
	if err != nil {
		return nil, err
	}
	d, ok := m.(analyze.Detector)
	if !ok {
		return nil, fmt.Errorf("%s compares batches of repeated runs and finds no change points in a plain series (use edivisive, segment, zscore or threshold)", name)
	}
	return d, nil
}

// ChangePointMethods lists the methods ChangePointDetector accepts, sorted.
func ChangePointMethods() []string {
	var out []string
	for _, name := range analyze.Names() {
		if _, err := ChangePointDetector(name, analyze.Params{}); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// SeriesChangePoints are the change points det found in one series.
type SeriesChangePoints struct {
	Name         string
	ChangePoints []analyze.ChangePoint
	Warnings     []analyze.Warning
}

// FindChangePoints analyses every series with det on GOMAXPROCS workers;
// the results keep the order of series. A cancelled ctx stops feeding
// series and returns its error.
func FindChangePoints(ctx context.Context, det analyze.Detector, series []seriesfile.Series) ([]SeriesChangePoints, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]SeriesChangePoints, len(series))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(series)) {
		wg.Go(func() {
			for i := range next {
				cps, warns := det.ChangePoints(series[i].Values)
				out[i] = SeriesChangePoints{Name: series[i].Name, ChangePoints: cps, Warnings: warns}
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

// WriteChangePointsJSON writes {"series": {name: [change point...]}},
// series sorted by name, each change point with its index, its time (from
// times, null beyond it), the means and standard deviations either side,
// p-value, magnitude and change in percent (null where undefined).
func WriteChangePointsJSON(w io.Writer, times []string, found []SeriesChangePoints) error {
	doc := struct {
		Series map[string][]changePointJSON `json:"series"` // keys sorted by encoding/json
	}{Series: make(map[string][]changePointJSON, len(found))}
	for _, f := range found {
		list := make([]changePointJSON, 0, len(f.ChangePoints))
		for _, c := range f.ChangePoints {
			list = append(list, changePointJSON{
				Index: c.Index, Time: timeAt(times, c.Index),
				MeanBefore: jsonNumber(c.MeanBefore), MeanAfter: jsonNumber(c.MeanAfter),
				StdDevBefore: jsonNumber(c.StdDevBefore), StdDevAfter: jsonNumber(c.StdDevAfter),
				PValue: jsonNumber(c.PValue), Magnitude: jsonNumber(c.Magnitude()),
				ForwardChangePercent: jsonNumber(forwardChangePercent(c)),
			})
		}
		doc.Series[f.Name] = list
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

// WriteChangePointsText writes the change points as an aligned table, a
// row each in the order of found (a TIME column when times is not nil),
// then the series without any; a line naming every series when none has
// one.
func WriteChangePointsText(w io.Writer, times []string, found []SeriesChangePoints) error {
	var quiet []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"SERIES", "INDEX"}
	if times != nil {
		header = append(header, "TIME")
	}
	header = append(header, "MEAN BEFORE", "MEAN AFTER", "STDDEV BEFORE", "STDDEV AFTER", "P-VALUE", "MAGNITUDE", "CHANGE")
	rows := 0
	for _, f := range found {
		if len(f.ChangePoints) == 0 {
			quiet = append(quiet, f.Name)
			continue
		}
		for _, c := range f.ChangePoints {
			if rows == 0 {
				fmt.Fprintln(tw, strings.Join(header, "\t"))
			}
			rows++
			cells := []string{f.Name, strconv.Itoa(c.Index)}
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
