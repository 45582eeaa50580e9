package compare

import (
	"context"
	"fmt"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// BuildPrefix marks a side that is a build of a store: build:ID.
const BuildPrefix = "build:"

// StoreBuild is the side made of the runs of one build in a store: the
// runs whose metadata.build.id is ID (or, for a run without a build, whose
// lts.Record.BuildID is). Only records are read (labels and KPIs, neither
// settings nor results); the store has no query by build, so every record
// is read and filtered here.
type StoreBuild struct {
	Store lts.Store
	ID    string
}

// Name is build:ID.
func (s StoreBuild) Name() string { return BuildPrefix + s.ID }

// Payloads returns the build's runs as payloads holding what Build reads:
// workload, labels and KPIs. A build without a run is NoData.
func (s StoreBuild) Payloads(ctx context.Context) ([]*models.Payload, error) {
	var out []*models.Payload
	for r, err := range s.Store.Records(ctx, lts.Query{}) {
		if err != nil {
			return nil, fmt.Errorf("compare: %s: %w", s.Store, err)
		}
		if r.BuildID() != s.ID {
			continue
		}
		p := &models.Payload{
			Metadata: models.Metadata{TestUUID: r.TestUUID, Start: r.Time, ExitCode: r.ExitCode,
				Workload: r.Workload, Labels: r.Labels, Build: r.Build},
			KPIs: make(map[string]models.KPIValue, len(r.Values)),
		}
		for name := range r.Values {
			p.KPIs[name], _ = r.KPI(name)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, exitcode.Errorf(exitcode.NoData, "compare: no run of build %q in %s", s.ID, s.Store)
	}
	return out, nil
}
