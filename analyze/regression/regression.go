package regression

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/history"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// StatusAcknowledged is the status of a regression (or improvement) an
// ack covers: reported, never failing.
const StatusAcknowledged analyze.Status = "acknowledged"

// Run is one current run: the record of a payload of the parse (or of an
// LTS file), named. Its Labels are nil when it has no payload: it is then
// not analysed, and Problems say why.
type Run struct {
	lts.Record
	// Path names the run in messages: its entry path, or file[index].
	Path string
	// Problems say why the run has no payload or lacks KPIs (the warnings
	// of its payload's assembly): the reason of a not-analyzed status.
	Problems []string
	// Samples are the per-iteration samples behind the run's KPI values,
	// by KPI, where its workload gives them (an A/B analysis uses them);
	// nil otherwise.
	Samples map[string][]float64
	// Settings are the settings of a run without payload (an incomplete
	// one) as text: they tell which side of an A/B it was.
	Settings map[string]string
	// Round names the round of `seshat run` (or of --confirm) that made
	// the run: its @repeat setting, which the two sides of an A/B share in
	// one round, so that they are compared within rounds; "" when unknown.
	Round string
}

// DefaultBatchValues bounds the values of the varying label in one history
// query.
const DefaultBatchValues = 500

// Options configure Analyze.
type Options struct {
	Method analyze.Method
	// Gate decides which of the method's changes are findings, across
	// every entry x KPI of the analysis (the zero value is the defaults).
	Gate analyze.Gate
	// Keys returns the keys of a workload (its defaults under what the
	// user set, Keys.Or); nil means no keys.
	Keys func(workload string) Keys
	// Definition returns a workload's KPI definition (display format,
	// ignored for regression); nil or false when unknown.
	Definition func(workload, kpi string) (kpi.Definition, bool)
	// KPIFilter keeps the KPIs whose name contains it.
	KPIFilter string
	Acks      []Ack
	// FailOnRegression and FailOnImprovement decide which unacknowledged
	// statuses fail.
	FailOnRegression, FailOnImprovement bool
	// Rerun tells that the current runs include re-runs made later by
	// --confirm: they can confirm a suspect.
	Rerun bool
	// BatchValues bounds the values of the one varying label of a history
	// query (DefaultBatchValues when 0); 1 asks once per series.
	BatchValues int
	// Baseline, when set, makes this an A/B analysis: every entry is
	// judged against the current runs of its baseline side, not against
	// its history (see Baseline); Method may then be nil.
	Baseline *Baseline
	// AllowNoHistory lets an analysis in which no result had history pass
	// (a first run); otherwise it has nothing to judge (see NoHistory).
	AllowNoHistory bool
}

// Report is the outcome of an analysis.
type Report struct {
	Method string
	// Entries in report order (workload, sorting keys, other labels,
	// comparison value), numbered from 1.
	Entries []*Entry
	// Skipped are the current runs matched by ignored_entries.
	Skipped []string
	// Variables are the series labels whose values differ between entries,
	// sorting keys first: they name the entries. Fixed are those with one
	// value throughout.
	Variables []string
	Fixed     map[string]string
	// Keys are the keys each workload met was analysed with.
	Keys map[string]Keys
	// IgnoredKPIs were left out: their definition says ignored for
	// regression.
	IgnoredKPIs []string
	History     HistoryStats
	// UnusedAcks matched no regression or improvement: candidates for
	// removal from the ack file.
	UnusedAcks []Ack
	Summary    Summary
	// Confirm says what re-running the suspect points did (--confirm);
	// nil when nothing was re-run.
	Confirm *Confirm
	// AllowNoHistory is Options.AllowNoHistory: NoHistory passes.
	AllowNoHistory bool
	// Incomplete, when set, says why the analysis lacks what it needs
	// though some entries have values (a side of an A/B with no complete
	// run): it then has nothing trustworthy to say, and every output says
	// so with this reason (exit 3).
	Incomplete string `json:"-"`
}

// Confirm is what `seshat regression --confirm N` did before judging: the
// points of the findings that would have failed the analysis were re-run
// N more times, and the current builds judged again on all their runs.
// With --confirm auto (Auto), rounds of one re-run each were added while a
// result stayed undecided (suspect, or noisy in a way re-runs can decide),
// within a budget of time and rounds; Rounds is how many were made.
type Confirm struct {
	Rounds int  `json:"rounds"`
	Auto   bool `json:"auto,omitempty"`
	// MaxRounds and BudgetSeconds bound --confirm auto; Stopped says why
	// its rounds stopped: "decided", "budget" or "max-rounds".
	MaxRounds     int     `json:"max_rounds,omitempty"`
	BudgetSeconds float64 `json:"budget_seconds,omitempty"`
	Stopped       string  `json:"stopped,omitempty"`
	// Points re-run, Runs made (RunsFailed of them failed).
	Points     int `json:"points"`
	Runs       int `json:"runs"`
	RunsFailed int `json:"runs_failed"`
	// Confirmed findings still fail; Cleared ones no longer do; Undecided
	// ones (--confirm auto) were still suspect or noisy when the budget
	// was spent.
	Confirmed []Suspect `json:"confirmed"`
	Cleared   []Suspect `json:"cleared"`
	Undecided []Suspect `json:"undecided,omitempty"`
}

// Suspect is a finding before and after --confirm.
type Suspect struct {
	Entry string `json:"entry"`
	KPI   string `json:"kpi"`
	// Before and After are the status and change on the first runs and on
	// all of them.
	Before      analyze.Status `json:"before"`
	After       analyze.Status `json:"after"`
	DeltaBefore float64        `json:"delta_before_percent"`
	DeltaAfter  float64        `json:"delta_after_percent"`
	RunsBefore  int            `json:"runs_before"`
	RunsAfter   int            `json:"runs_after"`
	// Rounds of re-runs the result had: with --confirm auto, those it
	// needed to be decided, or all of them when it never was (Undecided).
	Rounds    int  `json:"rounds,omitempty"`
	Undecided bool `json:"undecided,omitempty"`
}

// Text tells a suspect's fate in a line.
func (s Suspect) Text() string {
	fate := "confirmed"
	switch {
	case s.Undecided:
		fate = "still undecided"
	case s.After != analyze.StatusRegression && s.After != analyze.StatusImprovement:
		fate = "cleared"
	}
	rounds := ""
	if s.Rounds > 0 {
		rounds = fmt.Sprintf(" (%d round(s))", s.Rounds)
	}
	return fmt.Sprintf("%s by re-running%s: %s %+.1f%% on %d run(s), then %s %+.1f%% on %d", fate, rounds,
		s.Before, s.DeltaBefore, s.RunsBefore, s.After, s.DeltaAfter, s.RunsAfter)
}

// HistoryStats describe what history was read.
type HistoryStats struct {
	// Queries sent to the store, for Series distinct series keys.
	Queries, Series int
	// Records kept in some series; Excluded were current runs, Ignored
	// matched ignored_entries, Other belonged to another series (more
	// labels than the key asked).
	Records, Excluded, Ignored, Other int
	// First and Last bound the time of the records kept.
	First, Last time.Time
	// ComparisonValues is the number of distinct comparison values kept,
	// Builds the number of distinct builds.
	ComparisonValues, Builds int
	// SameBuild counts the stored runs of a current build, and Later those
	// of builds that started after it: neither is history.
	SameBuild, Later int
}

// Summary counts the results, as matbench's regression summary does.
type Summary struct {
	// TotalPoints is the number of entry x KPI results.
	TotalPoints  int `json:"total_points"`
	Entries      int `json:"entries"`
	KPIs         int `json:"kpis"`
	OK           int `json:"ok"`
	Regressions  int `json:"regressions"`
	Improvements int `json:"improvements"`
	// Suspects are single builds at a new level that nothing confirms
	// yet: reported, never failing.
	Suspects int `json:"suspects"`
	// Noisy results found no change but could not have seen one of the
	// size that matters.
	Noisy        int `json:"noisy"`
	NoHistory    int `json:"no_history"`
	NotAnalyzed  int `json:"not_analyzed"`
	Acknowledged int `json:"acknowledged"`
	// Baseline counts the results of the baseline side of an A/B
	// analysis: references, not judged.
	Baseline int `json:"baseline,omitempty"`
	// Failing results make the analysis fail (exit 2).
	Failing int `json:"failing"`
}

// Failed tells whether CI should fail.
func (r *Report) Failed() bool { return r.Summary.Failing > 0 }

// NoData tells whether nothing could be judged: no current entry, or none
// with a KPI value (every run failed or is incomplete). `seshat regression`
// exits 3 then, whatever else the report says.
func (r *Report) NoData() bool {
	for _, e := range r.Entries {
		for _, res := range e.Results {
			if !math.IsNaN(res.Current.Value) {
				return false
			}
		}
	}
	return true
}

// NoHistory tells whether no result had history: some KPIs are no-history
// and none was judged against a stored point (none ok, changed, suspect or
// noisy). A history store holding other runs, or labels that never match
// the stored ones, look like that: the analysis judged nothing, and
// `seshat regression` exits 3 unless AllowNoHistory (a first run).
func (r *Report) NoHistory() bool {
	s := r.Summary
	return s.NoHistory > 0 && s.OK+s.Regressions+s.Improvements+s.Acknowledged+s.Suspects+s.Noisy == 0
}

// Sides names the two sides of an A/B result, KEY=VALUE each, and holds
// the baseline side's point (the values of its runs, its level as Value)
// beside the result's Current.
type Sides struct {
	Baseline, Current string
	BaselinePoint     analyze.Point
}

// CurrentValue is the current value the result's change is measured
// from: the median of the current runs (Current.Value), except against a
// baseline (A/B, Result.Method MethodBaseline), where the change is the
// ratio of the two sides' levels over their runs' samples
// (analyze.HierBootstrap) and the side's level (Result.Current) is shown:
// the median of its run values beside the baseline's level would not
// match the delta shown with them.
func (r *KPIResult) CurrentValue() float64 {
	if v := r.Result.Current; r.Result.Method == MethodBaseline && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return r.Current.Value
}

// IsFinding tells whether a result is a change a reader must look at: a
// regression or improvement, acknowledged or not, or anything failing.
func (r *KPIResult) IsFinding() bool {
	switch r.Status {
	case analyze.StatusRegression, analyze.StatusImprovement, StatusAcknowledged:
		return true
	}
	return r.Failing
}

// Entry is the current runs of one matrix point: one workload, series key
// and comparison value (its repeats).
type Entry struct {
	ID int
	// Name is the entry's Variables as label=value pairs, or its workload
	// when nothing varies; the path of its run when it has no labels.
	Name            string
	Workload        string
	Labels          map[string]string // the series key
	Comparison      map[string]string
	ComparisonValue string
	// Builds are the builds of the current runs (usually one), Commit the
	// commit of the first that has one.
	Builds  []string
	Commit  string
	Runs    []RunRef
	Results []*KPIResult

	runs    []*Run
	series  *series
	seq     int // first appearance, for a stable order
	noLabel bool
}

// Key identifies an entry across two analyses of the same results: its
// workload, series key and comparison value.
func (e *Entry) Key() string {
	return e.Workload + "\x02" + canonical(e.Labels) + "\x01" + e.ComparisonValue
}

// RunRef names a current run of an entry.
type RunRef struct {
	Path     string
	TestUUID string
	Start    time.Time
}

// KPIResult is the analysis of one KPI of one entry.
type KPIResult struct {
	// KPI is empty for the one result of an entry without any KPI.
	KPI       string
	Unit      string
	Direction analyze.Direction
	// Status is the method's verdict, or acknowledged.
	Status analyze.Status
	Result analyze.Result
	// Ack covers the result when Status is acknowledged.
	Ack     *Ack
	Failing bool
	// History is the points the current one was judged against, oldest
	// first; Current is the entry's point.
	History []analyze.Point
	Current analyze.Point
	// Warnings are the method's and the entry's (runs without the KPI).
	Warnings []analyze.Warning
	// Confirmation tells what --confirm made of this result when it was a
	// suspect ("confirmed by re-running: ...", "cleared by ..."), else "".
	Confirmation string
	// ConfirmRounds is how many rounds of re-runs --confirm gave this
	// result (with auto: the rounds it needed to be decided), 0 when none.
	ConfirmRounds int
	// Sides is what a result of an A/B analysis (--baseline) was judged
	// on, for its figures; nil in history mode and for the baseline's own
	// results.
	Sides *Sides

	def    kpi.Definition
	hasDef bool
}

// Display formats a value of the KPI for people (the definition's format,
// divisor and display unit when known).
func (r *KPIResult) Display(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if r.hasDef {
		return r.def.Display(v)
	}
	return strings.TrimSpace(strconv.FormatFloat(v, 'g', 4, 64) + " " + r.Unit)
}

// DisplayScale is what values of the KPI are divided by for people, and
// the unit they are then in (the definition's divisor and display unit,
// as Display writes them: bytes as MiB); 1 and Unit when unknown.
func (r *KPIResult) DisplayScale() (divisor float64, unit string) {
	divisor, unit = 1, r.Unit
	if r.hasDef {
		if r.def.Divisor != 0 {
			divisor = r.def.Divisor
		}
		if r.def.DisplayUnit != "" {
			unit = r.def.DisplayUnit
		}
	}
	return divisor, unit
}

// Reason is why the result has no verdict, else "".
func (r *KPIResult) Reason() string { return r.Result.Reason }

// series is the history of one series key.
type series struct {
	workload string
	labels   map[string]string
	key      string
	// runs are the stored runs of the series with their comparison
	// values.
	runs []history.Run
	// builds of the current runs of this series with their comparison
	// value, and the earliest current run: stored runs of those builds at
	// those values, or of builds started later, are not history.
	current map[string]bool
	first   time.Time
}

// Analyze judges every current run against its history: the records of
// the store history. A workload's ignored entries that do not parse are an
// error.
func Analyze(ctx context.Context, runs []Run, history lts.Store, opts Options) (*Report, error) {
	method := MethodBaseline
	switch {
	case opts.Baseline != nil:
		opts.Keys = withBaselineKey(opts.Keys, opts.Baseline.Key)
	case opts.Method == nil:
		return nil, errors.New("regression: no method")
	default:
		method = opts.Method.Name()
	}
	a := &analysis{opts: opts, keys: map[string]keyset{}, rep: &Report{Method: method, Keys: map[string]Keys{}, AllowNoHistory: opts.AllowNoHistory},
		current: map[string]bool{}, series: map[string]*series{}, ackUsed: make([]bool, len(opts.Acks))}
	a.group(runs)
	if a.err != nil {
		return nil, a.err
	}
	// An A/B analysis needs no history: without a store, none is asked.
	if history != nil {
		if err := a.readHistory(ctx, history); err != nil {
			return nil, err
		}
	}
	if opts.Baseline != nil {
		a.evaluateAB()
	} else {
		for _, e := range a.entries {
			a.evaluate(e)
		}
	}
	a.judge()
	if opts.Baseline != nil {
		a.explainNoisyAB()
	}
	a.finish()
	return a.rep, nil
}

type analysis struct {
	opts    Options
	keys    map[string]keyset
	rep     *Report
	current map[string]bool // test_uuids of the current runs
	entries []*Entry
	series  map[string]*series
	ackUsed []bool
	ignored map[string]bool
	err     error // of the keys
}

// keyset is the keys of a workload with its ignored entries parsed.
type keyset struct {
	Keys
	filters []models.Filter
}

func (a *analysis) keysOf(workload string) keyset {
	k, ok := a.keys[workload]
	if !ok {
		if a.opts.Keys != nil {
			k.Keys = a.opts.Keys(workload)
		}
		var err error
		if k.filters, err = k.Filters(); err != nil && a.err == nil {
			a.err = fmt.Errorf("workload %s: ignored entries: %w", workload, err)
		}
		a.keys[workload] = k
	}
	return k
}

// group cuts the current runs into entries and their series.
func (a *analysis) group(runs []Run) {
	byID := map[string]*Entry{}
	for i := range runs {
		r := &runs[i]
		if r.TestUUID != "" {
			a.current[r.TestUUID] = true
		}
		var id string
		var e *Entry
		if r.Labels == nil {
			id = "\x01" + r.Path
			e = &Entry{Name: r.Path, Workload: r.Workload, noLabel: true}
		} else {
			k := a.keysOf(r.Workload)
			a.rep.Keys[r.Workload] = k.Keys
			if ignored(k.filters, r.TestUUID, r.Labels) {
				a.rep.Skipped = append(a.rep.Skipped, r.Path)
				continue
			}
			labels, skey := k.seriesKey(r.Labels)
			cmpLabels, cval := k.comparison(r.Labels)
			skey = r.Workload + "\x02" + skey
			id = skey + "\x01" + canonical(cmpLabels)
			s := a.series[skey]
			if s == nil {
				s = &series{workload: r.Workload, labels: labels, key: skey, current: map[string]bool{}}
				a.series[skey] = s
			}
			s.current[r.BuildID()+"\x00"+canonical(cmpLabels)] = true
			if s.first.IsZero() || r.Time.Before(s.first) {
				s.first = r.Time
			}
			e = &Entry{Workload: r.Workload, Labels: labels, Comparison: cmpLabels, ComparisonValue: cval, series: s}
		}
		if old, ok := byID[id]; ok {
			e = old
		} else {
			e.seq = len(a.entries)
			byID[id] = e
			a.entries = append(a.entries, e)
		}
		e.runs = append(e.runs, r)
		e.Runs = append(e.Runs, RunRef{Path: r.Path, TestUUID: r.TestUUID, Start: r.Time})
		if r.Labels != nil {
			if id := r.BuildID(); !slices.Contains(e.Builds, id) {
				e.Builds = append(e.Builds, id)
			}
			if e.Commit == "" && r.Build != nil {
				e.Commit = r.Build.Commit
			}
		}
	}
}

// readHistory asks for the records of every series. Series of one workload
// with the same label names that differ in one label only are asked
// together, that label matching any of their values: the same records as
// one query per series, in far fewer round trips.
func (a *analysis) readHistory(ctx context.Context, history lts.Store) error {
	batch := a.opts.BatchValues
	if batch <= 0 {
		batch = DefaultBatchValues
	}
	a.rep.History.Series = len(a.series)
	groups := map[string][]*series{}
	for _, s := range a.series {
		names := slices.Sorted(maps.Keys(s.labels))
		g := s.workload + "\x02" + strings.Join(names, "\x00")
		groups[g] = append(groups[g], s)
	}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		members := groups[g]
		slices.SortFunc(members, func(x, y *series) int { return strings.Compare(x.key, y.key) })
		vary := ""
		if batch > 1 && len(members) > 1 {
			vary = mostVaried(members)
		}
		// Sub-groups share every label but vary.
		subs := map[string][]*series{}
		for _, s := range members {
			rest := maps.Clone(s.labels)
			delete(rest, vary)
			subs[canonical(rest)] = append(subs[canonical(rest)], s)
		}
		for _, sk := range slices.Sorted(maps.Keys(subs)) {
			sub := subs[sk]
			if vary == "" {
				for _, s := range sub {
					if err := a.query(ctx, history, s.workload, []*series{s}, "", nil); err != nil {
						return err
					}
				}
				continue
			}
			var values []string
			for _, s := range sub {
				values = append(values, s.labels[vary])
			}
			for chunk := range slices.Chunk(values, batch) {
				if err := a.query(ctx, history, sub[0].workload, sub, vary, chunk); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mostVaried returns the label with the most distinct values among the
// series (all with the same label names), "" when none varies.
func mostVaried(members []*series) string {
	best, bestN := "", 1
	for _, name := range slices.Sorted(maps.Keys(members[0].labels)) {
		seen := map[string]bool{}
		for _, s := range members {
			seen[s.labels[name]] = true
		}
		if len(seen) > bestN {
			best, bestN = name, len(seen)
		}
	}
	return best
}

// query asks for the records of the series of sub: their common labels,
// and vary among values when set.
func (a *analysis) query(ctx context.Context, store lts.Store, workload string, sub []*series, vary string, values []string) error {
	labels := models.Filter{}
	for k, v := range sub[0].labels {
		if k != vary {
			labels[k] = []string{v}
		}
	}
	if vary != "" {
		labels[vary] = values
	}
	byKey := make(map[string]*series, len(sub))
	for _, s := range sub {
		byKey[s.key] = s
	}
	keys := a.keysOf(workload)
	a.rep.History.Queries++
	// Records sharing a label map (a store decodes each label set once)
	// share their keys: computed once per map. The memo holds the map,
	// so that its address is not reused while the memo lives.
	type derived struct {
		labels         map[string]string
		s              *series
		cmpKey, cmpVal string
	}
	memo := map[unsafe.Pointer]derived{}
	for rec, err := range store.Records(ctx, lts.Query{Labels: labels}) {
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		switch {
		case a.current[rec.TestUUID]:
			a.rep.History.Excluded++
			continue
		case ignored(keys.filters, rec.TestUUID, rec.Labels):
			a.rep.History.Ignored++
			continue
		}
		ptr := reflect.ValueOf(rec.Labels).UnsafePointer()
		d, ok := memo[ptr]
		if !ok || ptr == nil {
			_, skey := keys.seriesKey(rec.Labels)
			cmpLabels, cval := keys.comparison(rec.Labels)
			d = derived{labels: rec.Labels, s: byKey[workload+"\x02"+skey], cmpKey: canonical(cmpLabels), cmpVal: cval}
			memo[ptr] = d
		}
		if d.s == nil {
			a.rep.History.Other++
			continue
		}
		switch {
		case d.s.current[rec.BuildID()+"\x00"+d.cmpKey]:
			a.rep.History.SameBuild++
			continue
		case !d.s.first.IsZero() && rec.Time.After(d.s.first):
			a.rep.History.Later++
			continue
		}
		d.s.runs = append(d.s.runs, history.Run{Record: rec, ComparisonKey: d.cmpKey, ComparisonValue: d.cmpVal})
	}
	return nil
}

// wanted tells whether a KPI is analysed, noting those ignored for
// regression.
func (a *analysis) wanted(workload, name string) bool {
	if a.opts.KPIFilter != "" && !strings.Contains(name, a.opts.KPIFilter) {
		return false
	}
	if def, ok := a.definition(workload, name); ok && def.IgnoredForRegression {
		if a.ignored == nil {
			a.ignored = map[string]bool{}
		}
		a.ignored[name] = true
		return false
	}
	return true
}

func (a *analysis) definition(workload, name string) (kpi.Definition, bool) {
	if a.opts.Definition == nil {
		return kpi.Definition{}, false
	}
	return a.opts.Definition(workload, name)
}

// evaluate judges every KPI of an entry.
func (a *analysis) evaluate(e *Entry) {
	var problems []string
	for _, r := range e.runs {
		for _, p := range r.Problems {
			problems = append(problems, r.Path+": "+p)
		}
	}
	names := map[string]bool{}
	anyKPI := false
	for _, r := range e.runs {
		for name := range r.Values {
			anyKPI = true
			if a.wanted(e.Workload, name) {
				names[name] = true
			}
		}
	}
	if e.series != nil {
		for _, rec := range e.series.runs {
			for name := range rec.Values {
				anyKPI = true
				if a.wanted(e.Workload, name) {
					names[name] = true
				}
			}
		}
	}
	if len(names) == 0 {
		if anyKPI {
			return // every KPI filtered out: the entry is not reported
		}
		reason := "no KPI: " + strings.Join(problems, "; ")
		if len(problems) == 0 {
			reason = "the run(s) have no KPI value"
		}
		e.Results = []*KPIResult{{Status: analyze.StatusNotAnalyzed, Result: notAnalyzed(a.rep.Method, reason),
			Current: analyze.Point{Value: math.NaN(), Label: e.ComparisonValue}}}
		return
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		e.Results = append(e.Results, a.evaluateKPI(e, name, problems))
	}
}

func notAnalyzed(method, reason string) analyze.Result {
	nan := math.NaN()
	return analyze.Result{Method: method, Status: analyze.StatusNotAnalyzed, Reason: reason,
		Current: nan, Reference: nan, DeltaPercent: nan, PValue: nan, Score: nan, CILow: nan, CIHigh: nan,
		Noise: nan, Detectable: nan, Floor: nan, QValue: nan}
}

func (a *analysis) evaluateKPI(e *Entry, name string, problems []string) *KPIResult {
	res := &KPIResult{KPI: name}
	res.def, res.hasDef = a.definition(e.Workload, name)
	var values []float64
	var host analyze.HostCounts
	var first time.Time
	for _, r := range e.runs {
		v, ok := r.KPI(name)
		if !ok {
			continue
		}
		host.Add(r.HostLoad, r.CPUShare, r.CPUPressure)
		if len(values) == 0 {
			res.Unit, res.Direction = v.Unit, analyze.DirectionOf(v.LowerBetter)
		}
		values = append(values, v.Value)
		if first.IsZero() || r.Time.Before(first) {
			first = r.Time
		}
	}
	if len(values) == 0 && res.hasDef {
		res.Unit, res.Direction = res.def.Unit, analyze.DirectionOf(res.def.LowerBetter())
	}
	res.History = e.series.points(name)
	if len(values) == 0 {
		reason := "absent from the current run(s)"
		if len(problems) > 0 {
			reason += ": " + strings.Join(problems, "; ")
		}
		res.Status, res.Result = analyze.StatusNotAnalyzed, notAnalyzed(a.rep.Method, reason)
		res.Current = analyze.Point{Value: math.NaN(), Label: e.ComparisonValue}
		return res
	}
	res.Current = analyze.PointOf(values...)
	res.Current.Label, res.Current.Time = e.ComparisonValue, first
	host.Set(&res.Current)
	if len(e.Builds) == 1 {
		res.Current.Build = e.Builds[0]
	}
	res.Current.Commit = e.Commit
	res.Result = a.opts.Method.Evaluate(analyze.Input{History: res.History, Current: res.Current, Direction: res.Direction, Rerun: a.opts.Rerun})
	res.Status = res.Result.Status
	res.Warnings = slices.Clone(res.Result.Warnings)
	if n := len(e.runs); len(values) < n {
		res.Warnings = append(res.Warnings, analyze.Warning{Kind: "runs-without-kpi",
			Msg: fmt.Sprintf("%d of %d current runs have no value for this KPI", n-len(values), n)})
	}
	return res
}

// judge passes every result through the gate, all together (the false
// discovery rate is controlled across the whole analysis), then applies
// the acks and decides what fails.
func (a *analysis) judge() {
	var results []*analyze.Result
	for _, e := range a.entries {
		for _, r := range e.Results {
			results = append(results, &r.Result)
		}
	}
	a.opts.Gate.Apply(results)
	for _, e := range a.entries {
		for _, res := range e.Results {
			if a.opts.Baseline == nil && (res.Result.Status == analyze.StatusRegression || res.Result.Status == analyze.StatusImprovement) {
				// Both sides of an A/B share the host; history does not.
				analyze.ExplainedByHost(&res.Result, res.Current, reference(res))
			}
			res.Status = res.Result.Status
			if res.Status == analyze.StatusRegression || res.Status == analyze.StatusImprovement {
				for i, ack := range a.opts.Acks {
					if ack.Matches(e, res.KPI) {
						a.ackUsed[i] = true
						res.Status, res.Ack = StatusAcknowledged, &a.opts.Acks[i]
						break
					}
				}
			}
			res.Failing = (res.Status == analyze.StatusRegression && a.opts.FailOnRegression) ||
				(res.Status == analyze.StatusImprovement && a.opts.FailOnImprovement)
		}
	}
}

// reference is the history a result was judged against: its latest stable
// segment less the spikes where the method says, else all of it.
func reference(r *KPIResult) []analyze.Point {
	var finite []analyze.Point
	for _, p := range r.History {
		if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
			finite = append(finite, p)
		}
	}
	b := r.Result.Baseline
	if b == nil || b.Start < 0 || b.Len <= 0 || b.Start+b.Len > len(finite) {
		return finite
	}
	var out []analyze.Point
	for i := b.Start; i < b.Start+b.Len; i++ {
		if !slices.Contains(b.Spikes, i) {
			out = append(out, finite[i])
		}
	}
	return out
}

// points are the series' points of a KPI (history.Points: one per build
// and comparison value, the median of its runs, ordered by time).
func (s *series) points(name string) []analyze.Point {
	if s == nil {
		return nil
	}
	pts := history.Points(s.runs, name)
	out := make([]analyze.Point, len(pts))
	for i := range pts {
		out[i] = pts[i].Analyze(name)
	}
	return out
}

// finish orders and names the entries, counts, and lists unused acks.
func (a *analysis) finish() {
	rep := a.rep
	var sorting []string
	for _, w := range slices.Sorted(maps.Keys(rep.Keys)) {
		for _, k := range rep.Keys[w].SortingKeys {
			if !slices.Contains(sorting, k) {
				sorting = append(sorting, k)
			}
		}
	}
	values := map[string]map[string]bool{}
	labelled := 0
	for _, e := range a.entries {
		if e.noLabel || len(e.Results) == 0 {
			continue
		}
		labelled++
		for k, v := range e.Labels {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][v] = true
		}
	}
	rep.Fixed = map[string]string{}
	var variables []string
	for k, vs := range values {
		if len(vs) == 1 && countWith(a.entries, k) == labelled {
			for v := range vs {
				rep.Fixed[k] = v
			}
			continue
		}
		variables = append(variables, k)
	}
	slices.SortFunc(variables, func(x, y string) int {
		ix, iy := slices.Index(sorting, x), slices.Index(sorting, y)
		switch {
		case ix >= 0 && iy >= 0:
			return cmp.Compare(ix, iy)
		case ix >= 0:
			return -1
		case iy >= 0:
			return 1
		}
		return strings.Compare(x, y)
	})
	rep.Variables = variables
	kept := a.entries[:0]
	for _, e := range a.entries {
		if len(e.Results) == 0 {
			continue
		}
		if !e.noLabel {
			var parts []string
			for _, k := range variables {
				if v, ok := e.Labels[k]; ok {
					parts = append(parts, k+"="+v)
				}
			}
			e.Name = strings.Join(parts, " ")
			if e.Name == "" {
				e.Name = e.Workload
			}
		}
		kept = append(kept, e)
	}
	slices.SortStableFunc(kept, func(x, y *Entry) int { return compareEntries(x, y, variables) })
	rep.Entries = kept
	kpis := map[string]bool{}
	var cmpValues = map[string]bool{}
	builds := map[string]bool{}
	for i, e := range kept {
		e.ID = i + 1
		for _, r := range e.Results {
			a.count(r)
			if r.KPI != "" {
				kpis[r.KPI] = true
			}
		}
	}
	for _, s := range a.series {
		rep.History.Records += len(s.runs)
		for _, rec := range s.runs {
			cmpValues[s.workload+"\x02"+rec.ComparisonKey] = true
			builds[rec.BuildID()] = true
			if rep.History.First.IsZero() || rec.Time.Before(rep.History.First) {
				rep.History.First = rec.Time
			}
			if rec.Time.After(rep.History.Last) {
				rep.History.Last = rec.Time
			}
		}
	}
	rep.History.ComparisonValues, rep.History.Builds = len(cmpValues), len(builds)
	rep.Summary.Entries, rep.Summary.KPIs = len(kept), len(kpis)
	rep.IgnoredKPIs = slices.Sorted(maps.Keys(a.ignored))
	for i, used := range a.ackUsed {
		if !used && !a.opts.Acks[i].Triage {
			rep.UnusedAcks = append(rep.UnusedAcks, a.opts.Acks[i])
		}
	}
}

func countWith(entries []*Entry, label string) int {
	n := 0
	for _, e := range entries {
		if _, ok := e.Labels[label]; ok && !e.noLabel && len(e.Results) > 0 {
			n++
		}
	}
	return n
}

func (a *analysis) count(r *KPIResult) {
	s := &a.rep.Summary
	s.TotalPoints++
	switch r.Status {
	case analyze.StatusOK:
		s.OK++
	case analyze.StatusRegression:
		s.Regressions++
	case analyze.StatusImprovement:
		s.Improvements++
	case analyze.StatusSuspect:
		s.Suspects++
	case analyze.StatusNoisy:
		s.Noisy++
	case analyze.StatusNoHistory:
		s.NoHistory++
	case analyze.StatusNotAnalyzed:
		s.NotAnalyzed++
	case StatusAcknowledged:
		s.Acknowledged++
	case StatusBaseline:
		s.Baseline++
	}
	if r.Failing {
		s.Failing++
	}
}

// compareEntries orders entries by workload, then the variables (numbers
// as numbers, an absent label first), then comparison value; entries
// without labels last, by path.
func compareEntries(x, y *Entry, variables []string) int {
	if x.noLabel != y.noLabel {
		if x.noLabel {
			return 1
		}
		return -1
	}
	if c := strings.Compare(x.Workload, y.Workload); c != 0 {
		return c
	}
	for _, k := range variables {
		vx, okx := x.Labels[k]
		vy, oky := y.Labels[k]
		if okx != oky {
			if !okx {
				return -1
			}
			return 1
		}
		if c := compareValues(vx, vy); c != 0 {
			return c
		}
	}
	if c := compareValues(x.ComparisonValue, y.ComparisonValue); c != 0 {
		return c
	}
	if c := strings.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	return cmp.Compare(x.seq, y.seq)
}

// compareValues compares label values as numbers when both are.
func compareValues(x, y string) int {
	fx, errx := strconv.ParseFloat(x, 64)
	fy, erry := strconv.ParseFloat(y, 64)
	if errx == nil && erry == nil {
		if c := cmp.Compare(fx, fy); c != 0 {
			return c
		}
	}
	return strings.Compare(x, y)
}
