package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/report"
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
	found, err := report.FindChangePoints(ctx, det, series)
	if err != nil {
		return err
	}
	total := 0
	for _, f := range found {
		for _, w := range f.Warnings {
			env.Log.Warn(fmt.Sprintf("series %q: %s", f.Name, w))
		}
		total += len(f.ChangePoints)
	}
	err = atomicfile.WriteOutput(opts.Output, env.Stdout, func(w io.Writer) error {
		if format == "json" {
			return report.WriteChangePointsJSON(w, file.Time, found)
		}
		return report.WriteChangePointsText(w, file.Time, found)
	})
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	env.Log.Info(fmt.Sprintf("%d change point(s) in %d series (%s)", total, len(found), det.Name()))
	return nil
}

// detector builds the named method, which must find change points.
func detector(name string, p analyze.Params) (analyze.Detector, error) {
	d, err := report.ChangePointDetector(name, p)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--method: %w", err)
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

// ChangePointMethods lists the methods `seshat changepoints` accepts: those
// that find change points in a plain series, sorted.
func ChangePointMethods() []string { return report.ChangePointMethods() }
