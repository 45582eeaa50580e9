package compare

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/models"
)

// TestBuildSampleStats: runs whose samples' summaries were kept
// (Options.SampleStats, as a store keeps them) compare as their samples
// do, those without a kept summary read from Samples (a store's older
// runs); a kept summary without samples leaves the row to the run values.
func TestBuildSampleStats(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	samples := map[string][]float64{}
	var sides [2][]*models.Payload
	for i := range 8 {
		uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		base := 10.0 + float64(i%4)*0.1 + float64(i/4)*2
		samples[uuid] = []float64{base, base * 1.01, base * 0.99, base * 1.02}
		sides[i/4] = append(sides[i/4], &models.Payload{Metadata: models.Metadata{TestUUID: uuid, Start: at.Add(time.Duration(i) * time.Minute), Workload: "w"},
			KPIs: map[string]models.KPIValue{"time": {Value: base, Unit: "ms", Help: "Time.", LowerBetter: true}}})
	}
	fromSamples := func(p *models.Payload, _ string) []float64 { return samples[p.Metadata.TestUUID] }
	// Kept for every other run: the others fall back to Samples.
	kept := func(p *models.Payload, _ string) (analyze.RunStats, bool) {
		var i int
		fmt.Sscanf(p.Metadata.TestUUID[24:], "%d", &i)
		if i%2 == 1 {
			return analyze.RunStats{}, false
		}
		s, err := analyze.SummarizeRun(samples[p.Metadata.TestUUID])
		return s, err == nil
	}
	names := [2]string{"a", "b"}
	want := Build(sides[0], sides[1], names, Options{Samples: fromSamples})
	got := Build(sides[0], sides[1], names, Options{Samples: fromSamples, SampleStats: kept})
	row := got.KPIs[0].Rows[0]
	if row.Method != MethodHierarchical || row.A.Samples != 16 || row.Verdict != "worse" {
		t.Errorf("row %+v: want the hierarchical method on 16 samples a side, worse", row)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with kept summaries %+v, from the samples %+v", row, want.KPIs[0].Rows[0])
	}
	// Without the ratio's interval (seshat serve): the row is the same
	// but for it.
	bare := Build(sides[0], sides[1], names, Options{Samples: fromSamples, SampleStats: kept, NoRatioInterval: true}).KPIs[0].Rows[0]
	if !math.IsNaN(bare.RatioLo) || !math.IsNaN(bare.RatioHi) || math.IsNaN(row.RatioLo) {
		t.Errorf("ratio interval [%v, %v] without it, [%v, %v] with it; want NaN without", bare.RatioLo, bare.RatioHi, row.RatioLo, row.RatioHi)
	}
	bare.RatioLo, bare.RatioHi = row.RatioLo, row.RatioHi
	if !reflect.DeepEqual(bare, row) {
		t.Errorf("without the ratio's interval %+v, with it %+v", bare, row)
	}
	none := func(*models.Payload, string) (analyze.RunStats, bool) { return analyze.RunStats{}, true }
	got = Build(sides[0], sides[1], names, Options{Samples: fromSamples, SampleStats: none})
	if m := got.KPIs[0].Rows[0].Method; m != MethodMannWhitney {
		t.Errorf("kept summaries of no sample: method %q, want %q", m, MethodMannWhitney)
	}
}
