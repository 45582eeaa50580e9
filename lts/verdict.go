package lts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Verdict is one result of a regression analysis kept in the store
// (`seshat regression --store-results`): the status of one KPI of one
// entry, the change, and the builds compared. A regression or improvement
// is an alert, which people triage.
type Verdict struct {
	// ID names the verdict (VerdictID); AnalysisID the analysis that made
	// it, shared by every verdict of one `seshat regression`.
	ID         string    `json:"id"`
	AnalysisID string    `json:"analysis_id"`
	Time       time.Time `json:"time"`
	Workload   string    `json:"workload"`
	// Labels are the series labels (the entry's series key), Comparison
	// the entry's comparison value.
	Labels     map[string]string `json:"labels"`
	Comparison string            `json:"comparison,omitempty"`
	KPI        string            `json:"kpi"`
	Unit       string            `json:"unit,omitempty"`
	// Status is the analysis' status: regression, improvement, ok,
	// acknowledged...
	Status  string `json:"status"`
	Failing bool   `json:"failing"`
	// DeltaPercent is the change against the reference, FloorPercent the
	// smallest change that matters, QValue the false discovery rate of
	// the finding (null when the method gives none).
	DeltaPercent Float `json:"delta_percent"`
	FloorPercent Float `json:"floor_percent"`
	QValue       Float `json:"q_value"`
	Current      Float `json:"current"`
	Reference    Float `json:"reference"`
	// Build is the current build, Commit its commit; ReferenceBuilds the
	// builds of the history it was judged against, the latest last.
	Build           string   `json:"build"`
	Commit          string   `json:"commit,omitempty"`
	ReferenceBuilds []string `json:"reference_builds"`
	// Reason says why the result was acknowledged or has no verdict.
	Reason string `json:"reason,omitempty"`
	// Triage is the verdict's triage, when it has one: the latest of
	// TriageHistory (filled on reading).
	Triage *Triage `json:"triage,omitempty"`
	// TriageHistory is every triage of the verdict, oldest first (filled
	// on reading).
	TriageHistory []Triage `json:"triage_history,omitempty"`
}

// IsAlert tells whether the verdict is a finding people triage: a
// regression or an improvement (acknowledged or not).
func (v *Verdict) IsAlert() bool {
	switch v.Status {
	case "regression", "improvement", "acknowledged":
		return true
	}
	return false
}

// Summary is what a chart's mark says of the verdict: its status, its
// change and its triage ("regression +12.5%, triaged acknowledged").
func (v *Verdict) Summary() string {
	out := v.Status
	if d := float64(v.DeltaPercent); !math.IsNaN(d) && !math.IsInf(d, 0) {
		out += fmt.Sprintf(" %+.1f%%", d)
	}
	if v.Triage != nil {
		out += ", triaged " + v.Triage.State
	}
	return out
}

// Triage states.
const (
	TriageAcknowledged = "acknowledged"
	TriageInvalid      = "invalid"
	TriageFixed        = "fixed"
)

// TriageStates are the states a triage may have.
var TriageStates = []string{TriageAcknowledged, TriageInvalid, TriageFixed}

// Triage is what people decided about an alert: acknowledged (a known
// change, with a reason and maybe a bug link), invalid (noise) or fixed.
// An acknowledged or invalid alert no longer fails `seshat regression` for
// the same series, KPI and build.
type Triage struct {
	VerdictID string `json:"verdict_id"`
	State     string `json:"state"`
	Reason    string `json:"reason,omitempty"`
	Bug       string `json:"bug,omitempty"`
	// User is who triaged: `seshat serve --triage-user`, the name of
	// the token, or the user serve runs as.
	User string    `json:"user,omitempty"`
	Time time.Time `json:"time"`
}

// Silences tells whether the triage keeps the alert from failing.
func (t *Triage) Silences() bool {
	return t != nil && (t.State == TriageAcknowledged || t.State == TriageInvalid)
}

// Check validates a triage: a known state, a reason for an
// acknowledgement, a bug link that is an http(s) URL.
func (t *Triage) Check() error {
	switch {
	case t.VerdictID == "":
		return errors.New("triage: no verdict_id")
	case !slices.Contains(TriageStates, t.State):
		return fmt.Errorf("triage: state %q: want one of %s", t.State, strings.Join(TriageStates, ", "))
	case t.State == TriageAcknowledged && strings.TrimSpace(t.Reason) == "":
		return errors.New("triage: an acknowledgement needs a reason")
	case t.Bug != "" && !strings.HasPrefix(t.Bug, "https://") && !strings.HasPrefix(t.Bug, "http://"):
		return fmt.Errorf("triage: bug %q: want an http(s) URL", t.Bug)
	case len(t.Reason) > 4096 || len(t.Bug) > 2048 || len(t.User) > 256:
		return errors.New("triage: reason, bug link or user too long")
	}
	return nil
}

// VerdictQuery selects verdicts. The zero value selects all of them.
type VerdictQuery struct {
	// ID selects one verdict.
	ID string
	// AlertsOnly keeps the alerts (Verdict.IsAlert).
	AlertsOnly bool
	// Builds keeps the verdicts of these current builds.
	Builds   []string
	Workload string
	KPI      string
	// Limit bounds the verdicts returned (newest first); 0 is no bound.
	Limit int
}

// Match tells whether v matches q.
func (q VerdictQuery) Match(v *Verdict) bool {
	return (q.ID == "" || v.ID == q.ID) && (!q.AlertsOnly || v.IsAlert()) &&
		(len(q.Builds) == 0 || slices.Contains(q.Builds, v.Build)) &&
		(q.Workload == "" || v.Workload == q.Workload) && (q.KPI == "" || v.KPI == q.KPI)
}

// VerdictStore is the ability of a store to keep the verdicts of
// regression analyses and their triage, beside the payloads. SQLite,
// OpenSearch and Memory have it; AsVerdictStore says so.
type VerdictStore interface {
	// PutVerdicts stores verdicts, replacing those of the same ID.
	PutVerdicts(ctx context.Context, vs []Verdict) error
	// Verdicts returns the verdicts matching q, newest first (then by
	// ID), each with its triage and triage history.
	Verdicts(ctx context.Context, q VerdictQuery) ([]Verdict, error)
	// PutTriage stores the triage of a verdict: its latest triage from now
	// on, kept after those it had (Verdict.TriageHistory); an unknown
	// verdict is ErrUnknownVerdict.
	PutTriage(ctx context.Context, t Triage) error
}

// ErrUnknownVerdict says a triage named a verdict the store does not hold.
var ErrUnknownVerdict = errors.New("no such verdict")

// AsVerdictStore returns s's VerdictStore, or an error naming the store
// when it keeps no verdicts.
func AsVerdictStore(s Store) (VerdictStore, error) {
	if vs, ok := s.(VerdictStore); ok {
		return vs, nil
	}
	return nil, fmt.Errorf("store %s keeps no verdicts (SQLite and OpenSearch stores do)", s)
}

// VerdictID is the ID of the verdict of one KPI of one entry of an
// analysis: a hash of the analysis, workload, series labels, comparison
// value and KPI.
func VerdictID(analysis, workload string, labels map[string]string, comparison, kpi string) string {
	h := sha256.New()
	for _, s := range []string{analysis, workload, comparison, kpi} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "%d:%s=%d:%s;", len(k), k, len(labels[k]), labels[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// SortVerdicts orders verdicts newest first, then by ID.
func SortVerdicts(vs []Verdict) {
	slices.SortStableFunc(vs, func(a, b Verdict) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Float is a number that is null in JSON when it is not one (NaN, ±Inf).
type Float float64

// MarshalJSON writes null for NaN and infinities.
func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}
