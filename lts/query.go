package lts

import (
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
)

// Query selects stored runs. Every store answers it the same way: the runs
// matching every condition given, ordered by time (the run's start) then
// test_uuid, every one of them (a store pages internally; there is no
// cap). The zero Query selects everything.
type Query struct {
	// Workload selects the runs of one workload; "" any.
	Workload string
	// Labels selects by KPI label: every label named must have one of its
	// values, compared as strings (the --filters syntax of `seshat
	// history`, models.ParseFilter). Names are label names (snake_case).
	Labels models.Filter
	// Builds selects the runs of these builds (metadata.build.id, compared
	// as strings), and Commits the runs whose build's commit starts with
	// one of these (at least MinCommitPrefix characters: a short commit as
	// git abbreviates it, or the whole). A run that names no build matches
	// neither. Given both, a run must match both.
	Builds, Commits []string
	// Since (inclusive) and Until (exclusive) bound the run's start; zero
	// means unbounded.
	Since, Until time.Time
	// KPIs limits the KPI values (and definitions) of the records yielded
	// to these names; nil means all. It selects no run: a run without any
	// of them is yielded without KPIs.
	KPIs []string
	// PageSize is the number of runs a store reads per request; 0 is the
	// store's default (StoreOptions.PageSize).
	PageSize int
	// ResultsOnly tells Payloads that its caller reads only each run's
	// metadata.test_uuid, metadata.workload and results: a store may leave
	// the rest out (SQLite then decodes nothing else of its documents; the
	// others give whole payloads). Records ignores it.
	ResultsOnly bool
	// SampleStats asks Records for each run's kept summaries of its
	// samples (Record.Samples); Payloads ignores it.
	SampleStats bool
}

// MinCommitPrefix is the shortest commit prefix Query.Commits accepts:
// git's shortest abbreviation; shorter ones match too much by chance.
const MinCommitPrefix = 4

// Check refuses queries no store could answer (InvalidInput).
func (q Query) Check() error {
	for _, b := range q.Builds {
		if b == "" {
			return exitcode.Errorf(exitcode.InvalidInput, "build: an empty build id")
		}
	}
	for _, c := range q.Commits {
		if len(c) < MinCommitPrefix {
			return exitcode.Errorf(exitcode.InvalidInput, "commit %q: give at least %d characters of the commit", c, MinCommitPrefix)
		}
	}
	for _, name := range q.Labels.Names() {
		if !models.IsSnakeCase(name) {
			return exitcode.Errorf(exitcode.InvalidInput, "label %q: not a label name (snake_case)", name)
		}
		if len(q.Labels[name]) == 0 {
			return exitcode.Errorf(exitcode.InvalidInput, "label %s: no value to match", name)
		}
	}
	for _, name := range q.KPIs {
		if !models.IsSnakeCase(name) {
			return exitcode.Errorf(exitcode.InvalidInput, "KPI %q: not a KPI name (snake_case)", name)
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return exitcode.Errorf(exitcode.InvalidInput, "until (%s) is not after since (%s)",
			q.Until.UTC().Format(time.RFC3339), q.Since.UTC().Format(time.RFC3339))
	}
	return nil
}

// Match tells whether a payload answers the query (its KPIs aside), for
// stores that hold payloads in memory.
func (q Query) Match(p *models.Payload) bool {
	m := p.Metadata
	switch {
	case q.Workload != "" && m.Workload != q.Workload,
		!q.Since.IsZero() && m.Start.Before(q.Since),
		!q.Until.IsZero() && !m.Start.Before(q.Until):
		return false
	}
	return q.MatchBuild(m.Build) && q.Labels.Match(m.Labels)
}

// MatchBuild tells whether a run's build answers Builds and Commits.
func (q Query) MatchBuild(b *models.Build) bool {
	if len(q.Builds) == 0 && len(q.Commits) == 0 {
		return true
	}
	if b == nil {
		return false
	}
	if len(q.Builds) > 0 && !slices.Contains(q.Builds, b.ID) {
		return false
	}
	if len(q.Commits) > 0 && !slices.ContainsFunc(q.Commits, func(c string) bool { return strings.HasPrefix(b.Commit, c) }) {
		return false
	}
	return true
}

// PageSizeOr is the query's page size, else def.
func (q Query) PageSizeOr(def int) int {
	if q.PageSize > 0 {
		return q.PageSize
	}
	return def
}

// InOrder sorts payloads in the order of query answers: by start, then
// test_uuid.
func InOrder(ps []*models.Payload) {
	slices.SortStableFunc(ps, func(a, b *models.Payload) int {
		if c := a.Metadata.Start.Compare(b.Metadata.Start); c != 0 {
			return c
		}
		switch {
		case a.Metadata.TestUUID < b.Metadata.TestUUID:
			return -1
		case a.Metadata.TestUUID > b.Metadata.TestUUID:
			return 1
		}
		return 0
	})
}
