package explorer

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/lts"
)

// The alerts: the regressions and improvements that `seshat regression
// --store-results` stored (lts.Verdict), newest first, with their triage
// and every triage before it (who, when, what).
// Triage is the explorer's only write: POST /api/alerts/{id}/triage, when
// Options.AllowTriage, with Options.Token as a bearer token when set, from
// the same origin only.

// Alert is a stored regression or improvement as the alerts list shows it.
type Alert struct {
	lts.Verdict
	// SeriesID is the series the alert is of (its history page,
	// SeriesURL), BuildURL the current build's page; ReferenceBuild is the
	// latest build of history it was judged against.
	SeriesID          string `json:"series_id"`
	SeriesURL         string `json:"series_url"`
	BuildURL          string `json:"build_url"`
	ReferenceBuild    string `json:"reference_build,omitempty"`
	ReferenceBuildURL string `json:"reference_build_url,omitempty"`
	// TriageState is the triage's state, or "untriaged".
	TriageState string `json:"triage_state"`
}

// TriageInfo says whether the alerts can be triaged here, and if not why.
type TriageInfo struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// TokenRequired: a POST needs "Authorization: Bearer TOKEN".
	TokenRequired bool `json:"token_required"`
}

// AlertList is /api/alerts: the alerts matching the filter, newest first.
type AlertList struct {
	Store  string            `json:"store"`
	Filter map[string]string `json:"filter"`
	Triage TriageInfo        `json:"triage"`
	// Total counts the alerts matching the filter; Alerts holds the first
	// maxAlerts of them.
	Total  int     `json:"total"`
	Alerts []Alert `json:"alerts"`
}

// maxAlerts bounds the alerts one page or answer lists.
const maxAlerts = 1000

// Untriaged is the triage state of an alert nobody triaged.
const Untriaged = "untriaged"

// alertFilters are the query parameters of the alerts and the values they
// take (nil: any non-empty value).
var alertFilters = map[string][]string{
	"status":   {"regression", "improvement", "acknowledged"},
	"workload": nil,
	"kpi":      nil,
	"series":   nil,
	"triage":   append([]string{Untriaged}, lts.TriageStates...),
}

func (s *Server) verdictStore() (lts.VerdictStore, bool) {
	vs, ok := s.opts.Store.(lts.VerdictStore)
	return vs, ok
}

// triageInfo says whether triage is possible and why not.
func (s *Server) triageInfo() TriageInfo {
	_, ok := s.verdictStore()
	switch {
	case !ok:
		return TriageInfo{Reason: fmt.Sprintf("the store %s keeps no alerts", s.opts.Store)}
	case s.opts.ReadOnly:
		return TriageInfo{Reason: fmt.Sprintf("the store %s is read-only", s.opts.Store)}
	case !s.opts.AllowTriage:
		return TriageInfo{Reason: "triage is off: seshat serve --allow-triage turns it on"}
	}
	return TriageInfo{Available: true, TokenRequired: s.opts.Token != ""}
}

func (s *Server) alertList(r *http.Request) (*AlertList, error) {
	q := r.URL.Query()
	filter := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		allowed, known := alertFilters[name]
		switch {
		case !known:
			return nil, badRequest("query parameter %q: the alerts are filtered by %s", name, strings.Join(slices.Sorted(maps.Keys(alertFilters)), ", "))
		case len(q[name]) != 1 || q[name][0] == "":
			return nil, badRequest("query parameter %s: give one value", name)
		case allowed != nil && !slices.Contains(allowed, q[name][0]):
			return nil, badRequest("%s=%s: want one of %s", name, q[name][0], strings.Join(allowed, ", "))
		}
		filter[name] = q[name][0]
	}
	out := &AlertList{Store: s.opts.Store.String(), Filter: filter, Triage: s.triageInfo(), Alerts: []Alert{}}
	vs, ok := s.verdictStore()
	if !ok {
		return out, nil
	}
	verdicts, err := vs.Verdicts(r.Context(), lts.VerdictQuery{AlertsOnly: true, Workload: filter["workload"], KPI: filter["kpi"]})
	if err != nil {
		return nil, storeError(s.opts.Store, err)
	}
	for _, v := range verdicts {
		a := s.alert(v)
		if (filter["status"] != "" && a.Status != filter["status"]) || (filter["triage"] != "" && a.TriageState != filter["triage"]) ||
			(filter["series"] != "" && a.SeriesID != filter["series"]) {
			continue
		}
		out.Total++
		if len(out.Alerts) < maxAlerts {
			out.Alerts = append(out.Alerts, a)
		}
	}
	return out, nil
}

// alert adds to a verdict the links of its series and builds.
func (s *Server) alert(v lts.Verdict) Alert {
	_, key := seriesKey(v.Workload, s.workload(v.Workload).Keys, v.Labels)
	a := Alert{Verdict: v, SeriesID: seriesID(key), BuildURL: "/builds/" + url.PathEscape(v.Build), TriageState: Untriaged}
	a.SeriesURL = "/series/" + url.PathEscape(a.SeriesID)
	if n := len(v.ReferenceBuilds); n > 0 {
		a.ReferenceBuild = v.ReferenceBuilds[n-1]
		a.ReferenceBuildURL = "/builds/" + url.PathEscape(a.ReferenceBuild)
	}
	if v.Triage != nil {
		a.TriageState = v.Triage.State
	}
	return a
}

func (s *Server) apiAlerts(r *http.Request) (any, error) { return s.alertList(r) }

// alertsPage is /alerts.
func (s *Server) alertsPage(r *http.Request) (string, any, error) {
	list, err := s.alertList(r)
	if err != nil {
		return "", nil, err
	}
	return "alerts", layout{Title: "Alerts", Store: s.opts.Store.String(), Page: list}, nil
}

// TriageRequest is the body of POST /api/alerts/{id}/triage.
type TriageRequest struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
	Bug    string `json:"bug"`
}

// maxTriageBody bounds the body of a triage request.
const maxTriageBody = 64 << 10

// forbidden is 403, unauthorized 401.
func forbidden(format string, args ...any) error {
	return &httpError{http.StatusForbidden, fmt.Errorf(format, args...)}
}

// apiTriage is POST /api/alerts/{id}/triage: it stores the triage and
// answers the alert as it now is.
func (s *Server) apiTriage(r *http.Request) (any, error) {
	info := s.triageInfo()
	if !info.Available {
		return nil, forbidden("triage is unavailable: %s", info.Reason)
	}
	if err := sameOrigin(r); err != nil {
		return nil, err
	}
	if s.opts.Token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) != 1 {
			return nil, &httpError{http.StatusUnauthorized, errors.New("triage needs the token of --token-file: Authorization: Bearer TOKEN")}
		}
	}
	var req TriageRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxTriageBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, badRequest("triage: the body is not {\"state\", \"reason\", \"bug\"} JSON: %v", err)
	}
	if dec.More() {
		return nil, badRequest("triage: more than one JSON value in the body")
	}
	id := r.PathValue("id")
	t := lts.Triage{VerdictID: id, State: req.State, Reason: strings.TrimSpace(req.Reason), Bug: strings.TrimSpace(req.Bug),
		User: s.opts.TriageUser, Time: time.Now().UTC()}
	if err := t.Check(); err != nil {
		return nil, badRequest("%v", err)
	}
	vs, _ := s.verdictStore()
	if err := vs.PutTriage(r.Context(), t); err != nil {
		if errors.Is(err, lts.ErrUnknownVerdict) {
			return nil, notFound("no alert %s", id)
		}
		return nil, storeError(s.opts.Store, err)
	}
	got, err := vs.Verdicts(r.Context(), lts.VerdictQuery{ID: id})
	if err != nil || len(got) != 1 {
		return nil, storeError(s.opts.Store, fmt.Errorf("reading alert %s back: %v", id, err))
	}
	return s.alert(got[0]), nil
}

// sameOrigin refuses a request another site's page sent: an Origin (or
// Sec-Fetch-Site) naming another origin, or a body that is not JSON (a
// form any page may post).
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return forbidden("triage from another site (Sec-Fetch-Site: %s) is refused", site)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host {
			return forbidden("triage from another origin (%s) is refused", origin)
		}
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return &httpError{http.StatusUnsupportedMediaType, fmt.Errorf("triage: Content-Type %q: want application/json", ct)}
	}
	return nil
}

func init() {
	funcs["percent"] = func(f lts.Float) string {
		if v := float64(f); v == v && v-v == 0 {
			return fmt.Sprintf("%+.1f%%", v)
		}
		return "–"
	}
	funcs["alertValue"] = func(f lts.Float) string { return formatValue(float64(f)) }
	funcs["alertQuery"] = func(filter map[string]string, name, value string) string {
		q := url.Values{}
		for k, v := range filter {
			q.Set(k, v)
		}
		if value == "" {
			q.Del(name)
		} else {
			q.Set(name, value)
		}
		if len(q) == 0 {
			return "/alerts"
		}
		return "/alerts?" + q.Encode()
	}
	funcs["alertStatuses"] = func() []string { return alertFilters["status"] }
	funcs["triageStates"] = func() []string { return append([]string{Untriaged}, lts.TriageStates...) }
}
