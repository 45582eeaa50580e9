package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
)

// TestBackfillSampleStats: runs stored before the store kept the
// summaries of their samples (schema 9) have none, and get them, batch
// by batch, from BackfillSampleStats on a store opened with the
// samples: what Put would have kept (lts.SampleStatsOf), an empty one
// for a run without samples. A second backfill finds nothing to do; a
// store opened without the samples backfills nothing.
func TestBackfillSampleStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ps := ltstest.Payloads(23, ltstest.Options{Series: 3, Seed: 5})
	samples := func(p *models.Payload, kpi string) []float64 {
		if p.Metadata.TestUUID == ps[4].Metadata.TestUUID {
			return nil // a run without samples
		}
		v := p.KPIs[kpi].Value
		return []float64{v, v * 1.25, v / 3}
	}
	path := oldStore(t, 9, ps)
	plain := openSQLite(t, path, lts.StoreOptions{})
	for _, r := range ltstest.CollectRecords(t, plain, lts.Query{SampleStats: true}) {
		if r.Samples != nil {
			t.Fatalf("run %s stored before schema 10: summaries %+v, want none", r.TestUUID, r.Samples)
		}
	}
	if n, err := plain.(lts.SampleStatsBackfiller).BackfillSampleStats(ctx, 5); err != nil || n != 0 {
		t.Errorf("backfill without StoreOptions.Samples: %d runs (%v), want 0", n, err)
	}
	s := openSQLite(t, path, lts.StoreOptions{Samples: samples})
	b, ok := s.(lts.SampleStatsBackfiller)
	if !ok {
		t.Fatal("the SQLite store is no lts.SampleStatsBackfiller")
	}
	if n, err := b.BackfillSampleStats(ctx, 5); err != nil || n != len(ps) {
		t.Fatalf("backfill: %d runs (%v), want %d", n, err, len(ps))
	}
	byUUID := map[string]*models.Payload{}
	for _, p := range ps {
		byUUID[p.Metadata.TestUUID] = p
	}
	for _, r := range ltstest.CollectRecords(t, s, lts.Query{SampleStats: true}) {
		want := lts.SampleStatsOf(byUUID[r.TestUUID], samples)
		if r.Samples == nil || !reflect.DeepEqual(r.Samples, want) {
			t.Errorf("run %s: backfilled summaries %+v, want %+v", r.TestUUID, r.Samples, want)
		}
		if r.TestUUID == ps[4].Metadata.TestUUID && len(r.Samples) != 0 {
			t.Errorf("run without samples: summaries %+v, want none", r.Samples)
		}
	}
	if n, err := b.BackfillSampleStats(ctx, 5); err != nil || n != 0 {
		t.Errorf("second backfill: %d runs (%v), want 0", n, err)
	}
}
