package lts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// Workload is what payload assembly needs from a workload;
// workloads.KPIProvider has this method set.
type Workload interface {
	Name() string
	KPIs() *kpi.Catalog
	FillPayload(e *store.Entry, p *models.Payload) []string
	PayloadResults() any
}

// Lookup finds the Workload of a name; false when the workload is unknown or
// does not produce payloads.
type Lookup func(name string) (Workload, bool)

// Options control payload assembly.
type Options struct {
	// BaseURL, when set, is where the results directory is published: the
	// entry's path appended to it is the payload's urls.artifacts, unless
	// the workload set it.
	BaseURL string
}

// URLArtifacts is the urls key locating a run's artifact directory.
const URLArtifacts = "artifacts"

// EntryPayload is the payload of one entry (of a results directory, or of an
// LTS file), with the warnings met building or reading it.
type EntryPayload struct {
	// Path is the entry's path relative to the results directory.
	Path     string
	Payload  *models.Payload
	Warnings []string
	// Catalog is the workload's, for strict validation; nil when the
	// workload produces no payloads.
	Catalog *kpi.Catalog
}

// Build assembles the payload of one complete entry, leniently: what the
// workload cannot provide stays absent and is reported in the warnings. The
// KPIs are evaluated last, from the assembled payload, and only for runs
// that exited 0.
func Build(e *store.Entry, w Workload, opts Options) (*models.Payload, []string) {
	cat := w.KPIs()
	p := &models.Payload{
		Metadata: models.Metadata{
			LTSSchemaVersion: models.LTSSchemaVersion,
			ExitCode:         e.ExitCode,
			Workload:         w.Name(),
			Settings:         map[string]any(e.Settings),
			Labels:           map[string]string{},
			URLs:             map[string]string{},
			// The build is the run directory's, whatever the workload: it
			// never goes into labels, so it never splits a series.
			Build: e.Build,
		},
	}
	if p.Metadata.Settings == nil {
		p.Metadata.Settings = map[string]any{}
	}
	warnings := w.FillPayload(e, p)
	if p.Metadata.Labels == nil {
		p.Metadata.Labels = map[string]string{}
	}
	if p.Metadata.URLs == nil {
		p.Metadata.URLs = map[string]string{}
	}
	// The generic labels are set here so that no workload can get them wrong.
	p.Metadata.Labels[kpi.LabelWorkload] = w.Name()
	p.Metadata.Labels[kpi.LabelSettingsVersion] = cat.SettingsVersion()
	if _, set := p.Metadata.URLs[URLArtifacts]; !set && opts.BaseURL != "" {
		// Payloads are published: never with the base URL's credentials.
		base, err := redact.StripUserinfo(opts.BaseURL)
		u := ""
		if err == nil {
			u, err = url.JoinPath(base, strings.Split(e.Path, "/")...)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("urls: base URL %s: %v", redact.URL(opts.BaseURL), err))
		} else {
			p.Metadata.URLs[URLArtifacts] = u + "/"
		}
	}
	p.Metadata.Start = p.Metadata.Start.UTC()
	p.Metadata.End = p.Metadata.End.UTC()
	if e.ExitCode != nil && *e.ExitCode != 0 {
		// A failed run is data (its payload says how it failed), but its
		// numbers are not performance: a run killed early would look fast.
		p.KPIs = map[string]models.KPIValue{}
		return p, append(warnings, fmt.Sprintf("exit code %d: no KPIs for a failed run", *e.ExitCode))
	}
	kpis, kpiWarnings := cat.Evaluate(p)
	p.KPIs = kpis
	return p, append(warnings, kpiWarnings...)
}

// BuildAll builds the payloads of the complete entries of a matrix, sorted
// by path. Incomplete entries (no exit_code) are not runs and get no payload.
// An entry whose workload produces no payloads gets a record without one,
// which strict validation refuses.
func BuildAll(m *store.Matrix, lookup Lookup, opts Options) []EntryPayload {
	var out []EntryPayload
	for _, e := range m.Entries {
		if !e.Complete {
			continue
		}
		w, ok := lookup(e.Workload)
		if !ok {
			out = append(out, EntryPayload{Path: e.Path, Warnings: []string{
				fmt.Sprintf("workload %s produces no LTS payloads", e.Workload)}})
			continue
		}
		p, warnings := Build(e, w, opts)
		out = append(out, EntryPayload{Path: e.Path, Payload: p, Warnings: warnings, Catalog: w.KPIs()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Validate checks a payload strictly: its struct tags, then what its
// workload's catalog declares (labels, KPI names). The error is a
// *models.ValidationError naming every bad field.
func Validate(p *models.Payload, cat *kpi.Catalog) error {
	ve := &models.ValidationError{}
	if err := models.Validate(p); err != nil {
		var fields *models.ValidationError
		if !asValidation(err, &fields) {
			return err
		}
		ve.Fields = append(ve.Fields, fields.Fields...)
	}
	if cat != nil {
		ve.Fields = append(ve.Fields, cat.Validate(p).Fields...)
	}
	return ve.Err()
}

func asValidation(err error, target **models.ValidationError) bool {
	return errors.As(err, target)
}

// InvalidPayloadsError lists the entries whose payloads failed strict
// validation. It carries exit status 4 (invalid input).
type InvalidPayloadsError struct {
	Entries []InvalidEntry
}

// InvalidEntry is one entry refused by strict validation.
type InvalidEntry struct {
	Path string
	Err  error
}

func (e *InvalidPayloadsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid LTS payload(s):", len(e.Entries))
	for _, ie := range e.Entries {
		fmt.Fprintf(&b, "\n  %s: %v", ie.Path, ie.Err)
	}
	return b.String()
}

// ValidateAll validates every record strictly. It returns nil, or an
// *InvalidPayloadsError wrapped with exit status InvalidInput naming each
// bad entry by path and each bad field by JSON path.
func ValidateAll(records []EntryPayload) error {
	_, err := SplitValid(records)
	return err
}

// SplitValid validates every record strictly and returns the valid ones,
// in order, with the error ValidateAll returns for the others: `seshat
// upload` stores what is valid and still names what is not.
func SplitValid(records []EntryPayload) ([]EntryPayload, error) {
	var bad InvalidPayloadsError
	valid := make([]EntryPayload, 0, len(records))
	for _, r := range records {
		var err error
		if r.Payload == nil {
			err = fmt.Errorf("%s", strings.Join(r.Warnings, "; "))
		} else {
			err = Validate(r.Payload, r.Catalog)
		}
		if err != nil {
			bad.Entries = append(bad.Entries, InvalidEntry{Path: r.Path, Err: err})
			continue
		}
		valid = append(valid, r)
	}
	if len(bad.Entries) == 0 {
		return valid, nil
	}
	return valid, exitcode.With(exitcode.InvalidInput, &bad)
}

// Payloads returns the payloads of the records, skipping records without one.
func Payloads(records []EntryPayload) []*models.Payload {
	out := make([]*models.Payload, 0, len(records))
	for _, r := range records {
		if r.Payload != nil {
			out = append(out, r.Payload)
		}
	}
	return out
}

// WriteJSON writes the payloads as one JSON array, in the order given (by
// path from BuildAll). Map keys are sorted by encoding/json.
func WriteJSON(w io.Writer, payloads []*models.Payload, pretty bool) error {
	if payloads == nil {
		payloads = []*models.Payload{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(payloads)
}
