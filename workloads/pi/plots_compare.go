package pi

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/plotting"
)

// comparison is the median ratio of one batch against the baseline batch
// of a panel.
type comparison struct {
	panel, batch, baseline string
	// what the ratio is of: "rate" (batch over baseline) or, for runs
	// without a rate, "speed-up" (baseline elapsed over batch elapsed).
	what  string
	ratio plotting.Ratio
}

// Headline reads like "numpy vs gonum: 1.46x [1.40, 1.52]".
func (c comparison) Headline() string {
	s := fmt.Sprintf("%s vs %s: %sx", c.batch, c.baseline, c.format(c.ratio.Value))
	if !math.IsNaN(c.ratio.Low) {
		s += " " + c.interval()
	}
	return s
}

// decimals is the number of decimals that tells the interval's bounds
// apart: 2 ("1.46x [1.40, 1.52]"), more for a tight interval near 1.
func (c comparison) decimals() int {
	d := 2
	for ; d < 6 && !math.IsNaN(c.ratio.Low); d++ {
		if fmt.Sprintf("%.*f", d, c.ratio.Low) != fmt.Sprintf("%.*f", d, c.ratio.High) {
			break
		}
	}
	return d
}

func (c comparison) format(v float64) string { return fmt.Sprintf("%.*f", c.decimals(), v) }

func (c comparison) interval() string {
	return "[" + c.format(c.ratio.Low) + ", " + c.format(c.ratio.High) + "]"
}

// seedOf derives the bootstrap seed from what is compared, so that each
// interval is reproducible and independent of the other comparisons.
func seedOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// comparisons compares, in every panel, each batch with the panel's first
// batch (in batch order).
func (s *shape) comparisons() []comparison {
	var out []comparison
	for _, panel := range s.panels {
		m := metricElapsed
		for _, b := range s.batches {
			if len(s.values(panel, b, metricRate)) > 0 {
				m = metricRate
				break
			}
		}
		var baseline string
		var base []float64
		for _, b := range s.batches {
			vs := s.values(panel, b, m)
			if len(vs) == 0 {
				continue
			}
			if baseline == "" {
				baseline, base = b, vs
				continue
			}
			c := comparison{panel: panel, batch: b, baseline: baseline, what: "rate"}
			if m == metricRate {
				c.ratio = plotting.BootstrapMedianRatio(vs, base, seedOf(panel, b, baseline))
			} else {
				// A speed-up: the baseline's time over the batch's.
				c.what = "speed-up"
				c.ratio = plotting.BootstrapMedianRatio(base, vs, seedOf(panel, b, baseline))
				c.ratio.NNum, c.ratio.NDen = len(vs), len(base)
			}
			out = append(out, c)
		}
	}
	return out
}

func comparisonFrame(cs []comparison) dataframe.DataFrame {
	var labels, panels, batches, baselines, whats []string
	var ratio, lo, hi []float64
	var n, nBase []int
	for _, c := range cs {
		label := c.batch + " vs " + c.baseline
		if c.panel != "" {
			label = c.panel + ": " + label
		}
		labels, panels, batches, baselines, whats = append(labels, label), append(panels, c.panel),
			append(batches, c.batch), append(baselines, c.baseline), append(whats, c.what)
		ratio, lo, hi = append(ratio, c.ratio.Value), append(lo, c.ratio.Low), append(hi, c.ratio.High)
		n, nBase = append(n, c.ratio.NNum), append(nBase, c.ratio.NDen)
	}
	return dataframe.New(
		series.New(labels, series.String, "comparison"),
		series.New(panels, series.String, "panel"),
		series.New(batches, series.String, "batch"),
		series.New(baselines, series.String, "baseline"),
		series.New(whats, series.String, "ratio_of"),
		series.New(ratio, series.Float, "ratio"),
		series.New(lo, series.Float, "ci95_low"),
		series.New(hi, series.Float, "ci95_high"),
		series.New(n, series.Int, "n"),
		series.New(nBase, series.Int, "n_baseline"),
	)
}

// comparisonPage builds the comparison report or, with figureOnly, the plot.
func comparisonPage(ctx *plotting.Context, title string, figureOnly bool) (*plotting.Page, error) {
	s := newShape(ctx, "")
	page := &plotting.Page{
		Title: title,
		Summary: fmt.Sprintf("The median rate of each %s divided by that of the first %s, per panel, with a 95%% percentile bootstrap interval "+
			"(%d resamples of the runs, seeded: the same runs give the same interval).", s.batchLabel(), s.batchLabel(), plotting.BootstrapResamples),
	}
	if len(s.runs) == 0 {
		page.Empty = s.emptyReason(ctx, "a measurement")
		page.Notes = s.notes
		return page, nil
	}
	cs := s.comparisons()
	if len(cs) == 0 {
		page.Empty = fmt.Sprintf("There is only one %s (%s) with measurements in every panel: nothing to compare. "+
			"--batch-key chooses the setting whose values are compared.", s.batchLabel(), joinLimited(s.batches, 5))
		page.Notes = s.skippedNotes()
		return page, nil
	}
	df := comparisonFrame(cs)
	lo, hi := slicesMinMax(append(df.Col("ci95_low").Float(), df.Col("ratio").Float()...))
	figTitle := fmt.Sprintf("Median ratio per %s against %s", s.batchLabel(), cs[0].baseline)
	p, err := plotting.Intervals(df, plotting.IntervalSpec{
		Title: figTitle, XLabel: "ratio of medians (1 = same)", Label: "comparison",
		X: "ratio", Lo: "ci95_low", Hi: "ci95_high", Reference: 1,
		LogX: lo > 0 && hi/math.Min(lo, 1) >= 10,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", figTitle, err)
	}
	fig := &plotting.Figure{
		Name: "batch_ratio", Title: figTitle, Data: df, Plot: p,
		Alt:     fmt.Sprintf("Ratio of median rates with 95%% bootstrap intervals for %d comparisons against %s; a dashed line marks 1.", len(cs), cs[0].baseline),
		Caption: "Dots are ratios of medians, bars their 95% bootstrap intervals; right of the dashed line is faster than the baseline.",
		Width:   10 * plotting.Inch,
		Height:  comparisonHeight(len(cs)),
	}
	t := &plotting.Table{Caption: "Ratios of medians", Columns: []string{"panel", "comparison", "ratio of", "ratio", "95% interval", "n", "n baseline"}}
	var notes []string
	for _, c := range cs {
		interval := plotting.Cell{Text: "–", Class: "muted"}
		if !math.IsNaN(c.ratio.Low) {
			interval = plotting.Cell{Text: c.interval(), Num: true}
		} else {
			notes = append(notes, fmt.Sprintf("%s: %s vs %s has too few runs for an interval (%d and %d; 2 each at least).",
				panelTitle(c.panel), c.batch, c.baseline, c.ratio.NNum, c.ratio.NDen))
		}
		class := ""
		if c.ratio.Low > 1 {
			class = "good"
		} else if c.ratio.High < 1 {
			class = "bad"
		}
		t.AddRow(plotting.Text(panelTitle(c.panel)), plotting.Text(c.Headline()), plotting.Text(c.what),
			plotting.Cell{Text: c.format(c.ratio.Value) + "x", Num: true, Class: class}, interval,
			plotting.Int(c.ratio.NNum), plotting.Int(c.ratio.NDen))
	}
	if len(cs) == 1 {
		page.Summary = cs[0].Headline() + " (" + panelTitle(cs[0].panel) + "). " + page.Summary
	}
	sec := plotting.Section{Title: "Ratios", Figures: []*plotting.Figure{fig}}
	if !figureOnly {
		sec.Tables = []*plotting.Table{t}
	}
	page.Sections = []plotting.Section{sec}
	page.Notes = append(notes, s.skippedNotes()...)
	return page, nil
}

// comparisonHeight grows the forest plot with its rows.
func comparisonHeight(rows int) plotting.Length {
	h := plotting.Length(1.6+0.32*float64(rows)) * plotting.Inch
	return min(max(h, 2.4*plotting.Inch), 12*plotting.Inch)
}

func joinLimited(xs []string, n int) string {
	if len(xs) <= n {
		return joinComma(xs)
	}
	return joinComma(xs[:n]) + fmt.Sprintf(" and %d more", len(xs)-n)
}

func joinComma(xs []string) string { return strings.Join(xs, ", ") }

func batchComparisonReport(ctx *plotting.Context) (*plotting.Page, error) {
	return comparisonPage(ctx, ReportBatchComparison, false)
}

func batchRatioPlot(ctx *plotting.Context) (*plotting.Page, error) {
	return comparisonPage(ctx, PlotBatchRatio, true)
}
