package plotting

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Axis tickers shared by the figures of history: a time axis labelled at
// calendar boundaries, an ordinal axis of builds, and numbers without
// exponents. The regression report (package analyze/report) draws with
// them too, so that its figures read like the KPI history page.

// NumberTicks label a numeric axis at 1, 2 or 5 times a power of ten, in
// plain decimal notation (never "1e+06") with as many decimals as the step
// needs, so that no two labels are alike, with unlabelled ticks between.
type NumberTicks struct {
	// Max is the most labelled ticks; 7 when 0.
	Max int
	// Signed prefixes positive labels with "+" (changes in percent).
	Signed bool
}

// Ticks implements plot.Ticker.
func (t NumberTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) || hi < lo {
		return nil
	}
	maxLabels := t.Max
	if maxLabels <= 0 {
		maxLabels = 7
	}
	if hi == lo {
		return []plot.Tick{{Value: lo, Label: t.label(lo, 0)}}
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(maxLabels))))
	var step, minor float64
	for _, m := range []struct{ major, minor float64 }{{1, 0.2}, {2, 0.5}, {5, 1}, {10, 2}, {20, 5}, {50, 10}} {
		step, minor = m.major*mag, m.minor*mag
		if math.Floor(hi/step)-math.Ceil(lo/step)+1 <= float64(maxLabels) {
			break
		}
	}
	decimals := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	var ticks []plot.Tick
	for k := math.Ceil(lo / minor); k*minor <= hi; k++ {
		v := k * minor
		tk := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			tk.Value = math.Round(r) * step
			tk.Label = t.label(tk.Value, decimals)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

func (t NumberTicks) label(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-") // no "-0"
	}
	if t.Signed && v > 0 {
		s = "+" + s
	}
	return s
}

// DefaultTimeLabels is the most labelled ticks TimeTicks puts on an axis
// when Max is 0: about one per inch and a half of a wide figure.
const DefaultTimeLabels = 7

// TimeTicks labels a time axis of Unix seconds at calendar boundaries (in
// UTC): seconds, minutes and hours within a day, days and weeks (Mondays),
// the 1st and 15th of months, months, quarters and years, whichever step
// gives at most Max labels over the span shown. Labels carry what the
// step needs ("15:04", "Jan 2", "Jan", "2006") and, on a second line, the
// day or year, on the first label and where it changes. No two labels are
// the same: when a short label repeats (06:00 on two days), every label
// gets its day or year. Unlabelled ticks mark the finer unit between.
type TimeTicks struct {
	// Max is the most labelled ticks; DefaultTimeLabels when 0.
	Max int
}

// timeStep is one candidate spacing of time ticks.
type timeStep struct {
	seconds int64 // fixed steps: seconds, minutes, hours, days, weeks
	months  int   // calendar steps: half months (-1), months, years (12k)
	minor   int   // index of the step of the unlabelled ticks between; -1 none
}

// approx is the step's length, to choose it by the span.
func (s timeStep) approx() float64 {
	switch {
	case s.seconds > 0:
		return float64(s.seconds)
	case s.months < 0:
		return 15.2 * 86400
	}
	return float64(s.months) * 30.44 * 86400
}

const (
	minute = 60
	hour   = 60 * minute
	day    = 24 * hour
)

// timeSteps are the candidate steps, shortest first; minor names the step
// of the ticks between two labels (an index into timeSteps).
var timeSteps = []timeStep{
	{seconds: 1, minor: -1}, {seconds: 2, minor: 0}, {seconds: 5, minor: 0}, {seconds: 10, minor: 0},
	{seconds: 15, minor: 2}, {seconds: 30, minor: 2},
	{seconds: minute, minor: 4}, {seconds: 2 * minute, minor: 6}, {seconds: 5 * minute, minor: 6},
	{seconds: 10 * minute, minor: 6}, {seconds: 15 * minute, minor: 8}, {seconds: 30 * minute, minor: 8},
	{seconds: hour, minor: 10}, {seconds: 2 * hour, minor: 12}, {seconds: 3 * hour, minor: 12},
	{seconds: 6 * hour, minor: 12}, {seconds: 12 * hour, minor: 12},
	{seconds: day, minor: 14}, {seconds: 2 * day, minor: 17}, {seconds: 7 * day, minor: 17},
	{months: -1, minor: 17}, {months: 1, minor: 20}, {months: 2, minor: 21}, {months: 3, minor: 21},
	{months: 6, minor: 21}, {months: 12, minor: 21}, {months: 24, minor: 25}, {months: 60, minor: 25},
	{months: 120, minor: 25}, {months: 240, minor: 27}, {months: 600, minor: 28}, {months: 1200, minor: 28},
}

// Ticks implements plot.Ticker.
func (t TimeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) || hi < lo {
		return nil
	}
	maxLabels := t.Max
	if maxLabels <= 0 {
		maxLabels = DefaultTimeLabels
	}
	if hi == lo {
		return []plot.Tick{{Value: lo, Label: timeLabels([]time.Time{unixTime(lo)}, timeSteps[0])[0]}}
	}
	// The shortest step giving at most maxLabels labels; then longer ones
	// while its short labels would repeat (12:00 on two days) and the
	// longer step still gives three labels.
	pick := -1
	var major []time.Time
	for i, s := range timeSteps {
		if (hi-lo)/s.approx() > float64(2*maxLabels+2) {
			continue
		}
		if ts := stepTimes(lo, hi, s); len(ts) <= maxLabels {
			pick, major = i, ts
			break
		}
	}
	if pick < 0 {
		pick = len(timeSteps) - 1
		major = stepTimes(lo, hi, timeSteps[pick])
	}
	for pick+1 < len(timeSteps) && repeats(major, timeSteps[pick]) {
		next := stepTimes(lo, hi, timeSteps[pick+1])
		if len(next) < 3 {
			break
		}
		pick, major = pick+1, next
	}
	step := timeSteps[pick]
	labels := timeLabels(major, step)
	ticks := make([]plot.Tick, 0, len(major))
	for i, m := range major {
		ticks = append(ticks, plot.Tick{Value: unixSeconds(m), Label: labels[i]})
	}
	if step.minor >= 0 {
		minor := stepTimes(lo, hi, timeSteps[step.minor])
		if len(minor) <= 8*len(major)+8 {
			for _, m := range minor {
				if v := unixSeconds(m); !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == v }) {
					ticks = append(ticks, plot.Tick{Value: v})
				}
			}
		}
	}
	slices.SortFunc(ticks, func(a, b plot.Tick) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	return ticks
}

func unixTime(v float64) time.Time {
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// stepTimes lists the times of a step within [lo, hi], aligned on the
// calendar: fixed steps on multiples from midnight (weeks on Mondays),
// half months on the 1st and 15th, months and years on the 1st of January
// of a multiple year.
func stepTimes(lo, hi float64, s timeStep) []time.Time {
	start, end := unixTime(lo), unixTime(hi)
	var out []time.Time
	const most = 10000 // a guard: the minor ticks of a long span
	switch {
	case s.seconds >= 7*day:
		d := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		for d.Weekday() != time.Monday {
			d = d.AddDate(0, 0, -1)
		}
		for ; !d.After(end) && len(out) < most; d = d.AddDate(0, 0, int(s.seconds/day)) {
			if !d.Before(start) {
				out = append(out, d)
			}
		}
	case s.seconds > 0:
		// Every step shorter than a week divides a day: multiples of it
		// from the epoch fall on midnight.
		v := int64(math.Ceil(lo/float64(s.seconds))) * s.seconds
		for ; float64(v) <= hi && len(out) < most; v += s.seconds {
			out = append(out, time.Unix(v, 0).UTC())
		}
	case s.months < 0:
		d := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
		for ; !d.After(end) && len(out) < most; d = d.AddDate(0, 1, 0) {
			for _, t := range []time.Time{d, d.AddDate(0, 0, 14)} {
				if !t.Before(start) && !t.After(end) {
					out = append(out, t)
				}
			}
		}
	default:
		m := s.months
		first := time.Date(start.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		if m >= 12 {
			years := m / 12
			first = time.Date(start.Year()/years*years, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		for d := first; !d.After(end) && len(out) < most; d = d.AddDate(0, m, 0) {
			if !d.Before(start) {
				out = append(out, d)
			}
		}
	}
	return out
}

// timeFormats are the layouts of a step's labels: the short form, and
// the day or year it sits in ("" when the short form says it all).
func timeFormats(s timeStep) (short, context string) {
	switch {
	case s.seconds > 0 && s.seconds < minute:
		return "15:04:05", "2006-01-02"
	case s.seconds > 0 && s.seconds < day:
		return "15:04", "2006-01-02"
	case s.seconds > 0 || s.months < 0:
		return "Jan 2", "2006"
	case s.months < 12:
		return "Jan", "2006"
	}
	return "2006", ""
}

// repeats tells whether two ticks of the step have the same short label.
func repeats(ts []time.Time, s timeStep) bool {
	short, _ := timeFormats(s)
	seen := map[string]bool{}
	for _, t := range ts {
		l := t.Format(short)
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

// timeLabels labels the ticks of one step: the short form, with the day
// (or year) on a second line on the first label and where it changes; all
// with it when short forms repeat.
func timeLabels(ts []time.Time, s timeStep) []string {
	short, context := timeFormats(s)
	all := repeats(ts, s)
	out := make([]string, len(ts))
	prev := ""
	for i, t := range ts {
		out[i] = t.Format(short)
		if context != "" {
			if c := t.Format(context); c != prev || all {
				out[i] += "\n" + c
				prev = c
			}
		}
	}
	return out
}

// DefaultBuildLabels is the most labelled ticks BuildTicks puts on an axis
// when Max is 0.
const DefaultBuildLabels = 12

// BuildTicks labels an ordinal axis of builds: build i at x = i, labelled
// Labels[i]. With more builds than Max, every k-th is labelled, counting
// back from the last (the current build is always named); the others get
// unlabelled ticks.
type BuildTicks struct {
	Labels []string
	// Max is the most labelled ticks; when 0, as many as fit side by side
	// in Width (DefaultBuildLabels at most, or when Width is 0).
	Max   int
	Width vg.Length
}

// fit is the most labels of this length that fit side by side.
func (b BuildTicks) fit() int {
	if b.Max > 0 {
		return b.Max
	}
	if b.Width <= 0 {
		return DefaultBuildLabels
	}
	longest := 1
	for _, l := range b.Labels {
		for line := range strings.SplitSeq(l, "\n") { // a label of several lines is as wide as its longest
			longest = max(longest, utf8.RuneCountInString(line))
		}
	}
	// A digit of the tick font is 0.56 em wide; a gap of 16 points.
	each := float64(longest)*0.56*tickFontSize + 16
	return min(max(2, int(b.Width.Points()/each)), DefaultBuildLabels)
}

// Ticks implements plot.Ticker.
func (b BuildTicks) Ticks(lo, hi float64) []plot.Tick {
	n := len(b.Labels)
	if n == 0 {
		return nil
	}
	maxLabels := b.fit()
	every := (n + maxLabels - 1) / maxLabels
	var ticks []plot.Tick
	for i := range n {
		x := float64(i)
		if x < lo || x > hi {
			continue
		}
		t := plot.Tick{Value: x}
		if (n-1-i)%every == 0 {
			t.Label = b.Labels[i]
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// BuildLabel names a build on an axis: its short commit (7 characters),
// else its build id (a build of one run, "run:<test_uuid>" as
// lts.Record.BuildID names it, as "run" and the first 8 characters of the
// test_uuid), else the comparison value (a current entry of several
// builds), in at most 14 characters.
func BuildLabel(commit, build, comparison string) string {
	var s string
	switch run, synthetic := strings.CutPrefix(build, "run:"); {
	case commit != "":
		s = commit[:min(7, len(commit))]
	case synthetic:
		s = "run " + run[:min(8, len(run))]
	case build != "":
		s = build
	case comparison != "":
		s = comparison
	default:
		s = "?"
	}
	if r := []rune(s); len(r) > 14 {
		s = string(r[:13]) + "…"
	}
	return s
}

// BuildName names a build for people: its id (at most 24 characters) and,
// apart, its short commit (7 characters) when it has one and the id does
// not already say it ("nightly-01", "db3a7aa"). A build of one run or a
// point without a build id is named as BuildLabel names it, with no
// commit beside.
func BuildName(commit, build, comparison string) (id, short string) {
	if build == "" || strings.HasPrefix(build, "run:") {
		return BuildLabel(commit, build, comparison), ""
	}
	id = build
	if r := []rune(id); len(r) > 24 {
		id = string(r[:23]) + "…"
	}
	short = commit[:min(7, len(commit))]
	if short == "" || strings.HasPrefix(commit, build) || strings.HasPrefix(build, short) {
		return id, ""
	}
	return id, short
}

// BuildTick names a build under its tick on a build axis: BuildName's id,
// its short commit on a second line.
func BuildTick(commit, build, comparison string) string {
	id, short := BuildName(commit, build, comparison)
	if short == "" {
		return id
	}
	return id + "\n" + short
}

// DistinctLabels makes equal labels distinct by numbering the repeats
// ("abc1234", "abc1234 #2"): two builds of one commit are two points.
func DistinctLabels(labels []string) []string {
	out := slices.Clone(labels)
	count := map[string]int{}
	for i, l := range labels {
		count[l]++
		if k := count[l]; k > 1 {
			out[i] = l + " #" + strconv.Itoa(k)
		}
	}
	return out
}
