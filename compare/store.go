package compare

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// BuildPrefix marks a side that is a build of a store: build:ID.
const BuildPrefix = "build:"

// StoreBuild is the side made of the runs of one build in a store: the
// runs whose metadata.build.id is ID, asked of the store (lts.Query.Builds),
// whole with their results (the per-iteration samples are there). A run
// without a build is its own, "run:" and its test_uuid
// (lts.Record.BuildID), which no query selects: for such an ID the records
// (labels and KPIs, neither settings nor results) are read and filtered
// here, then the payload from the time it covers.
type StoreBuild struct {
	Store lts.Store
	ID    string
}

// Name is build:ID.
func (s StoreBuild) Name() string { return BuildPrefix + s.ID }

// Payloads returns the build's runs, stored results included
// (*json.RawMessage). A build without a run is NoData.
func (s StoreBuild) Payloads(ctx context.Context) ([]*models.Payload, error) {
	if !strings.HasPrefix(s.ID, "run:") {
		var out []*models.Payload
		for p, err := range s.Store.Payloads(ctx, lts.Query{Builds: []string{s.ID}}) {
			if err != nil {
				return nil, fmt.Errorf("compare: %s: %w", s.Store, err)
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return nil, exitcode.Errorf(exitcode.NoData, "compare: no run of build %q in %s", s.ID, s.Store)
		}
		return out, nil
	}
	runs := map[string]bool{}
	var q lts.Query
	for r, err := range s.Store.Records(ctx, lts.Query{}) {
		if err != nil {
			return nil, fmt.Errorf("compare: %s: %w", s.Store, err)
		}
		if r.BuildID() != s.ID {
			continue
		}
		runs[r.TestUUID] = true
		if q.Since.IsZero() || r.Time.Before(q.Since) {
			q.Since = r.Time
		}
		if until := r.Time.Add(time.Nanosecond); until.After(q.Until) {
			q.Until = until
		}
	}
	if len(runs) == 0 {
		return nil, exitcode.Errorf(exitcode.NoData, "compare: no run of build %q in %s", s.ID, s.Store)
	}
	var out []*models.Payload
	for p, err := range s.Store.Payloads(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("compare: %s: %w", s.Store, err)
		}
		if runs[p.Metadata.TestUUID] {
			out = append(out, p)
		}
	}
	if len(out) != len(runs) {
		return nil, fmt.Errorf("compare: %s: %d runs of build %q among the records, %d among the payloads", s.Store, len(runs), s.ID, len(out))
	}
	return out, nil
}
