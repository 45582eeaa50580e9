package pipeline

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/runner"
)

// ExperimentNames returns the names of the experiments of a benchmark file,
// in file order: what shell completion offers for `run --expe`.
func ExperimentNames(benchmark string) ([]string, error) {
	b, err := runner.LoadBenchmark(benchmark)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(b.Experiments))
	for i, e := range b.Experiments {
		names[i] = e.Name
	}
	return names, nil
}

// StoredBuild is a build of a store as shell completion shows it.
type StoredBuild struct {
	ID, Commit string
	// Last is the start of its latest run.
	Last time.Time
	Runs int
}

// StoredBuilds returns the builds of the runs stored in a store, the
// latest first: what shell completion offers for a `compare build:ID`
// side. Runs without a build are left out.
func StoredBuilds(ctx context.Context, env Env, url string, conn StoreConnection) ([]StoredBuild, error) {
	s, err := openStore(ctx, env, url, conn)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	builds := map[string]*StoredBuild{}
	for r, err := range s.Records(ctx, lts.Query{}) {
		if err != nil {
			return nil, err
		}
		if r.Build == nil || r.Build.ID == "" {
			continue
		}
		b := builds[r.Build.ID]
		if b == nil {
			b = &StoredBuild{ID: r.Build.ID, Commit: r.Build.Commit}
			builds[r.Build.ID] = b
		}
		b.Runs++
		if r.Time.After(b.Last) {
			b.Last = r.Time
		}
	}
	out := make([]StoredBuild, 0, len(builds))
	for _, b := range slices.Collect(maps.Values(builds)) {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b StoredBuild) int { return cmp.Or(b.Last.Compare(a.Last), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}
