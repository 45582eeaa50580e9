package analyze

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Direction says which way a KPI gets better. The zero value is unknown:
// a KPI without a direction cannot be judged and is not analysed.
type Direction int

// The directions of a KPI.
const (
	DirectionUnknown Direction = iota
	HigherIsBetter
	LowerIsBetter
)

// DirectionOf returns the direction of a KPI from its lower_better flag.
func DirectionOf(lowerBetter bool) Direction {
	if lowerBetter {
		return LowerIsBetter
	}
	return HigherIsBetter
}

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	default:
		return "unknown direction"
	}
}

// Status is the verdict on one analysed point.
type Status string

// The statuses of a point. Acknowledgement is decided by the caller, which
// knows the ack file; the methods only tell what the numbers say.
const (
	StatusOK          Status = "ok"
	StatusRegression  Status = "regression"
	StatusImprovement Status = "improvement"
	StatusNoHistory   Status = "no-history"
	StatusNotAnalyzed Status = "not-analyzed"
	// StatusNoisy: no change found, but the series is too noisy (or its
	// history too short) for a change of the size that matters to be seen:
	// never a silent ok. Result.Detectable says how large a change would
	// have to be.
	StatusNoisy Status = "noisy"
	// StatusSuspect: the current build sits at a new level that nothing
	// confirms yet (one build, its runs sharing the host's state). It is
	// reported and does not fail; re-runs (--confirm) or the next build
	// confirm it as a change or clear it.
	StatusSuspect Status = "suspect"
)

// WarningKind classifies a statistical caveat so reports can group them.
type WarningKind string

// The caveats a method attaches to its result.
const (
	WarnTooFewPoints  WarningKind = "too-few-points"
	WarnAllEqual      WarningKind = "all-values-equal"
	WarnNonFinite     WarningKind = "non-finite-values"
	WarnTooFewSamples WarningKind = "too-few-samples"
)

// Warning is a caveat printed beside the numbers: the result stands, but a
// reader should weigh it. It is never an error.
type Warning struct {
	Kind WarningKind `json:"kind"`
	Msg  string      `json:"message"`
}

func (w Warning) String() string { return w.Msg }

func warnf(kind WarningKind, format string, args ...any) Warning {
	return Warning{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// ChangePoint is an index of a series where a new segment starts, with the
// statistics of the segments on either side (bounded by the neighbouring
// change points or the ends of the series).
type ChangePoint struct {
	Index        int
	MeanBefore   float64
	MeanAfter    float64
	StdDevBefore float64 // population standard deviation, as Hunter reports it
	StdDevAfter  float64
	NBefore      int
	NAfter       int
	// PValue is the two-sided pooled t-test between the two segments.
	PValue float64
}

// ForwardChange is the relative change from the segment before to the
// segment after: MeanAfter/MeanBefore - 1, 0 when MeanBefore is 0 (as Otava).
func (c ChangePoint) ForwardChange() float64 { return relChange(c.MeanBefore, c.MeanAfter) }

// ForwardChangePercent is ForwardChange in percent.
func (c ChangePoint) ForwardChangePercent() float64 { return 100 * c.ForwardChange() }

// Magnitude is max(|m2/m1 - 1|, |m1/m2 - 1|): symmetric, so a halving and a
// doubling weigh the same.
func (c ChangePoint) Magnitude() float64 {
	return math.Max(math.Abs(relChange(c.MeanBefore, c.MeanAfter)), math.Abs(relChange(c.MeanAfter, c.MeanBefore)))
}

func relChange(from, to float64) float64 {
	if from == 0 {
		return 0
	}
	return to/from - 1
}

// Point is one point of a KPI's history: one build (of one comparison
// value), its value the median of its runs, and, when known, the runs' own
// values.
type Point struct {
	Value float64
	// Samples are the values of the runs behind Value: their spread is the
	// run-to-run noise of the series, and mannwhitney compares them.
	Samples []float64
	Label   string    // the comparison value, for messages; may be empty
	Time    time.Time // the time of the build's first run; may be zero
	// Build names the build (lts.Record.BuildID); Commit is its commit,
	// when known.
	Build, Commit string
	// HostLoad is the median one-minute load average of the host at the
	// start of the point's runs (lts.Record.HostLoad); NaN when no run
	// says (PointOf's default).
	HostLoad float64
	// CPUShare is the median CPU time per second of wall time of the
	// point's runs (lts.Record.CPUShare); NaN when no run says.
	CPUShare float64
	// CPUPressure is the median share of the wall time of the point's
	// runs during which some task on the host waited for a CPU
	// (lts.Record.CPUPressure); NaN when no run says.
	CPUPressure float64
}

// PointOf returns a point whose Value is the median of samples, its host
// counts unknown.
func PointOf(samples ...float64) Point {
	return Point{Value: Median(samples), Samples: samples, HostLoad: math.NaN(), CPUShare: math.NaN(), CPUPressure: math.NaN()}
}

func (p Point) samples() []float64 {
	if len(p.Samples) > 0 {
		return p.Samples
	}
	return []float64{p.Value}
}

// Input is what a method judges: a KPI's history, oldest first, one point
// per comparison value, the current point, and the KPI's direction.
type Input struct {
	History   []Point
	Current   Point
	Direction Direction
	// Rerun tells that some of the current point's runs were made later
	// than the first ones, by re-running it (--confirm): they sampled
	// another state of the host, and can confirm a change its first runs
	// only suggest.
	Rerun bool
}

// Result is a method's verdict on the current point. Numbers a method does
// not produce are NaN (and null in JSON).
type Result struct {
	Method string `json:"method"`
	Status Status `json:"status"`
	// Reason tells why a point has no history or was not analysed.
	Reason  string  `json:"reason,omitempty"`
	Current float64 `json:"current"`
	// Reference is what the current value was compared with: a segment or
	// history mean, the previous point, the previous batch's median.
	Reference    float64 `json:"reference"`
	DeltaPercent float64 `json:"delta_percent"`
	PValue       float64 `json:"pvalue"`
	// Score is the method's statistic: z for zscore, U for mannwhitney, the
	// change's magnitude for edivisive.
	Score float64 `json:"score"`
	// CILow and CIHigh bound the change (current minus reference, in the
	// KPI's unit) at 95% where the method estimates it (mannwhitney).
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// Noise is the relative standard error of the current build's value
	// against the latest stable segment of its history (Reference.SE,
	// 0.02 = 2%), whatever the method; NaN when unknown. Detectable is the
	// smallest change in percent a test at the method's level could see
	// with that noise.
	Noise      float64 `json:"noise"`
	Detectable float64 `json:"detectable_percent"`
	// HistoryBuilds is the number of history builds the noise was
	// measured on (spikes left out); below 3 the build-to-build noise is
	// guessed from the run-to-run noise.
	HistoryBuilds int `json:"history_builds"`
	// Floor is the smallest change in percent the gate counts as a
	// finding: the minimum effect or the noise times the noise factor,
	// whichever is larger; NaN before the gate.
	Floor float64 `json:"floor_percent"`
	// QValue is the p-value adjusted for the false discovery rate across
	// every test of the analysis (Gate), NaN before the gate or without a
	// p-value.
	QValue   float64   `json:"qvalue"`
	Details  string    `json:"details"`
	Warnings []Warning `json:"warnings,omitempty"`
	// Resolution says how the smallest detectable change shrinks with
	// more builds, for the gate to tell what would decide a noisy result;
	// nil when the method does not say.
	Resolution *Resolution `json:"-"`
	// Baseline is the latest stable segment of the history the noise (and,
	// for segment, the reference) was measured on, with the change points
	// and spikes found: what a figure of the result marks. Its indices
	// count the history's finite points. Nil without history. Not part of
	// the JSON: Details tells it.
	Baseline *Reference `json:"-"`
}

// Resolution is how a method's smallest detectable change depends on the
// builds it has: Effect × Spread × sqrt(1/n + 1/Fore) percent for n
// reference builds, n at most MaxBuilds.
type Resolution struct {
	Effect    float64 // standard errors a change must reach
	Spread    float64 // relative build-to-build spread (0.02 = 2%)
	Builds    int     // reference builds now
	MinBuilds int     // reference builds a change over Fore builds needs
	MaxBuilds int     // reference builds at most
	Fore      int     // builds that confirm a change
}

// detectable is the smallest detectable change in percent with n
// reference builds.
func (r Resolution) detectable(n int) float64 {
	return r.Effect * r.Spread * math.Sqrt(1/float64(n)+1/float64(r.Fore)) * 100
}

// Needs says what would let a result decide changes of limit percent: how
// many more builds, or that no number of builds will at this spread.
func (r Resolution) Needs(limit float64) string {
	if !(r.Spread > 0) || r.Fore < 1 {
		return ""
	}
	for n := max(r.Builds, r.MinBuilds, 1); n <= r.MaxBuilds; n++ {
		if r.detectable(n) <= limit {
			if n <= r.Builds {
				return fmt.Sprintf("changes of %.0f%% are decided once %d builds at a new level confirm them", limit, r.Fore)
			}
			return fmt.Sprintf("%d more build(s) of history (%d, not %d) would let it decide changes of %.0f%%", n-r.Builds, n, r.Builds, limit)
		}
	}
	return fmt.Sprintf("no number of builds decides changes of %.0f%% while builds vary by %.1f%%: a quieter host (seshat host check) would, or both sides measured in one job (--baseline)",
		limit, r.Spread*100)
}

// MarshalJSON writes NaN and infinite numbers as null.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain struct {
		Method       string    `json:"method"`
		Status       Status    `json:"status"`
		Reason       string    `json:"reason,omitempty"`
		Current      *float64  `json:"current"`
		Reference    *float64  `json:"reference"`
		DeltaPercent *float64  `json:"delta_percent"`
		PValue       *float64  `json:"pvalue"`
		Score        *float64  `json:"score"`
		CILow        *float64  `json:"ci_low"`
		CIHigh       *float64  `json:"ci_high"`
		Noise        *float64  `json:"noise"`
		Detectable   *float64  `json:"detectable_percent"`
		HistBuilds   int       `json:"history_builds"`
		Floor        *float64  `json:"floor_percent"`
		QValue       *float64  `json:"qvalue"`
		Details      string    `json:"details"`
		Warnings     []Warning `json:"warnings,omitempty"`
	}
	return json.Marshal(plain{
		Method: r.Method, Status: r.Status, Reason: r.Reason,
		Current: finite(r.Current), Reference: finite(r.Reference), DeltaPercent: finite(r.DeltaPercent),
		PValue: finite(r.PValue), Score: finite(r.Score), CILow: finite(r.CILow), CIHigh: finite(r.CIHigh),
		Noise: finite(r.Noise), Detectable: finite(r.Detectable), HistBuilds: r.HistoryBuilds, Floor: finite(r.Floor), QValue: finite(r.QValue),
		Details: r.Details, Warnings: r.Warnings,
	})
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Method judges the current point of a KPI against its history.
// Implementations are deterministic and safe for concurrent use.
type Method interface {
	Name() string
	Evaluate(in Input) Result
}

// Detector is a Method that also finds change points in a plain series
// (`seshat changepoints`). Series values must be finite.
type Detector interface {
	Method
	ChangePoints(series []float64) ([]ChangePoint, []Warning)
}

// Params are the tunable parameters of every method; zero values mean the
// defaults.
type Params struct {
	// edivisive
	WindowLen    int     // default 50
	MaxPValue    float64 // default 0.001
	MinMagnitude float64 // default 0
	// zscore
	ZThreshold float64 // default 3
	// threshold
	ChangePercent float64 // default 10
	Reference     string  // "mean" (default) or "previous"
	// mannwhitney and segment
	Alpha float64 // default 0.05
	// shift: the gate's minimum effect in percent (Gate.MinEffect), under
	// which a change of the history is not a new level; default
	// DefaultMinEffect
	MinEffect float64
}

// DefaultMethod is the method `seshat regression` uses when none is named:
// the one that does best on real labelled series (bench/realdata).
const DefaultMethod = "shift"

// DefaultDetector is the method that finds change points in a plain series
// (`seshat changepoints`, the KPI history figures) when none is named: the
// one with the best F1 on real labelled series (bench/realdata), Window.
const DefaultDetector = "window"

// ErrUnknownMethod is wrapped by New for a name no method has.
var ErrUnknownMethod = errors.New("unknown method")

// ErrInvalidParam is wrapped by New for a parameter out of range.
var ErrInvalidParam = errors.New("invalid parameter")

// Names lists the methods New knows, sorted.
func Names() []string {
	return []string{"edivisive", "mannwhitney", "perfherder", "segment", "shift", "threshold", "window", "zscore"}
}

// New returns the method called name with params p, checking p.
func New(name string, p Params) (Method, error) {
	var m interface {
		Method
		validate() error
	}
	switch name {
	case "shift":
		m = Shift{Alpha: p.Alpha, MinEffect: p.MinEffect}
	case "perfherder":
		m = Perfherder{}
	case "window":
		// Its windows are its own; the e-divisive parameters of the
		// same flags are still checked, as for every detector.
		if err := (EDivisive{WindowLen: p.WindowLen, MaxPValue: p.MaxPValue, MinMagnitude: p.MinMagnitude}).validate(); err != nil {
			return nil, fmt.Errorf("method %s: %w", name, err)
		}
		w := Window()
		if p.MinMagnitude != 0 {
			w.MinChange = 100 * p.MinMagnitude
		}
		m = w
	case "segment":
		m = Segment{WindowLen: p.WindowLen, MaxPValue: p.MaxPValue, Alpha: p.Alpha}
	case "edivisive":
		m = EDivisive{WindowLen: p.WindowLen, MaxPValue: p.MaxPValue, MinMagnitude: p.MinMagnitude}
	case "zscore":
		m = ZScore{Threshold: p.ZThreshold}
	case "threshold":
		m = Threshold{Percent: p.ChangePercent, Reference: p.Reference}
	case "mannwhitney":
		m = MannWhitney{Alpha: p.Alpha}
	default:
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownMethod, name, strings.Join(Names(), ", "))
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("method %s: %w", name, err)
	}
	return m, nil
}

// prepared is an Input checked the way every method needs: a known
// direction, a finite current value, finite history values; and the
// reference every method reports its noise from.
type prepared struct {
	history  []float64 // finite history values, oldest first
	points   []Point   // the points behind history
	current  float64
	warnings []Warning
	ref      Reference
}

// prepare checks in; when it returns done, r is the final result.
func prepare(method string, in Input) (p prepared, r Result, done bool) {
	return prepareWith(method, in, EDivisive{})
}

// prepareWith is prepare with the segments of the reference cut by ed.
func prepareWith(method string, in Input, ed EDivisive) (p prepared, r Result, done bool) {
	p, r, done = prepareBasic(method, in)
	if done {
		return p, r, true
	}
	p.ref, _ = NewReference(p.points, in.Current, ed)
	r.Noise, r.Detectable = p.ref.SE, p.ref.Detectable(0.05)
	r.HistoryBuilds = len(p.points) - len(p.ref.Spikes)
	baseline := p.ref
	r.Baseline = &baseline
	return p, r, false
}

// prepareBasic checks in as prepare does, without the segment reference:
// for a method that measures its own.
func prepareBasic(method string, in Input) (p prepared, r Result, done bool) {
	r = Result{Method: method, Current: in.Current.Value, Reference: math.NaN(), DeltaPercent: math.NaN(),
		PValue: math.NaN(), Score: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(),
		Noise: math.NaN(), Detectable: math.NaN(), Floor: math.NaN(), QValue: math.NaN()}
	if in.Direction != HigherIsBetter && in.Direction != LowerIsBetter {
		r.Status, r.Reason = StatusNotAnalyzed, "the KPI has no direction (higher or lower is better)"
		return p, r, true
	}
	if !isFinite(in.Current.Value) {
		r.Status, r.Reason = StatusNotAnalyzed, "the current value is not a finite number"
		return p, r, true
	}
	p.current = in.Current.Value
	dropped := 0
	for _, h := range in.History {
		if !isFinite(h.Value) {
			dropped++
			continue
		}
		p.history = append(p.history, h.Value)
		p.points = append(p.points, h)
	}
	if dropped > 0 {
		p.warnings = append(p.warnings, warnf(WarnNonFinite, "%d history point(s) not finite, left out", dropped))
	}
	r.Warnings = p.warnings
	if len(p.history) == 0 {
		r.Status, r.Reason = StatusNoHistory, "no history for this KPI"
		return p, r, true
	}
	if len(p.history) >= 2 && allEqual(p.history) {
		p.warnings = append(p.warnings, warnf(WarnAllEqual, "all %d history values are equal (%s)", len(p.history), fmtNum(p.history[0])))
		r.Warnings = p.warnings
	}
	return p, r, false
}

// judge turns a detected change of the given sign (current minus reference)
// into a status for the KPI's direction.
func judge(d Direction, changed bool, delta float64) Status {
	if !changed || delta == 0 || math.IsNaN(delta) {
		return StatusOK
	}
	worse := (d == HigherIsBetter && delta < 0) || (d == LowerIsBetter && delta > 0)
	if worse {
		return StatusRegression
	}
	return StatusImprovement
}

// deltaPercent is (current - reference) / |reference| in percent, NaN when
// the reference is 0.
func deltaPercent(reference, current float64) float64 {
	if reference == 0 {
		return math.NaN()
	}
	return (current - reference) / math.Abs(reference) * 100
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allEqual(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func allFinite(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return !isFinite(x) })
}
