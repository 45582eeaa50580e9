package compare

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// TestStoreBuild: a side named build:ID is the runs of that build, with
// their labels and KPIs, whatever else the store holds.
func TestStoreBuild(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(i int, build string, rate float64) *models.Payload {
		p := &models.Payload{Metadata: models.Metadata{TestUUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			Start: at.Add(time.Duration(i) * time.Minute), Workload: "w", Labels: map[string]string{"bench": "x", "build_id": build}},
			KPIs: map[string]models.KPIValue{"rate": {Value: rate, Unit: "ops/s", Help: "Rate.", LowerBetter: false}}}
		if build != "" {
			p.Metadata.Build = &models.Build{ID: build, Commit: "c-" + build}
		}
		return p
	}
	store := lts.NewMemory("mem", run(1, "b1", 10), run(2, "b2", 20), run(3, "b1", 11), run(4, "", 30), run(5, "b2", 21))
	ctx := context.Background()
	for _, tc := range []struct {
		id    string
		rates []float64
	}{
		{"b1", []float64{10, 11}},
		{"b2", []float64{20, 21}},
		{"run:00000000-0000-4000-8000-000000000004", []float64{30}},
	} {
		got, err := StoreBuild{Store: store, ID: tc.id}.Payloads(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		var rates []float64
		for _, p := range got {
			rates = append(rates, p.KPIs["rate"].Value)
			if p.Metadata.Labels["bench"] != "x" || p.Metadata.Workload != "w" {
				t.Errorf("%s: payload %+v", tc.id, p.Metadata)
			}
		}
		if fmt.Sprint(rates) != fmt.Sprint(tc.rates) {
			t.Errorf("%s: rates %v, want %v", tc.id, rates, tc.rates)
		}
	}
	if name := (StoreBuild{ID: "b1"}).Name(); name != "build:b1" {
		t.Errorf("name %q", name)
	}
	_, err := StoreBuild{Store: store, ID: "b9"}.Payloads(ctx)
	if exitcode.Of(err) != exitcode.NoData || err.Error() != `compare: no run of build "b9" in mem` {
		t.Errorf("unknown build: %v (exit %d)", err, exitcode.Of(err))
	}
	a, _ := StoreBuild{Store: store, ID: "b1"}.Payloads(ctx)
	b, _ := StoreBuild{Store: store, ID: "b2"}.Payloads(ctx)
	table := Build(a, b, [2]string{"build:b1", "build:b2"}, Options{Keys: func(string) []string { return []string{"build_id"} }})
	if len(table.KPIs) != 1 || len(table.KPIs[0].Rows) != 1 || table.KPIs[0].Rows[0].A.N != 2 || table.KPIs[0].Rows[0].B.N != 2 {
		t.Errorf("the two builds are not one entry with two runs a side: %+v", table.KPIs)
	}
}
