package compare

import (
	"fmt"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// BenchmarkBuild compares one series of two builds as seshat serve does
// for each of a comparison's series (/api/compare: 1,000 of them for two
// 5,000-run builds): 5 runs a side sharing one labels map (a store's
// runs of one label set do), 8 KPIs, Mann-Whitney on the run values.
func BenchmarkBuild(b *testing.B) {
	labels := map[string]string{"matrix_size": "512", "dtype": "float32", "backend": "gonum", "batch": "8", "data_format": "nchw",
		"host": "ci-7", "framework_version": "1.8.0", "seshat_version": "0.9", "settings_version": "3", "workload": "pi"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var sides [2][]*models.Payload
	for i := range 10 {
		p := &models.Payload{Metadata: models.Metadata{TestUUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Start: at.Add(time.Duration(i) * time.Minute),
			Workload: "pi", Labels: labels}, KPIs: map[string]models.KPIValue{}}
		for k := range 8 {
			p.KPIs[fmt.Sprintf("kpi_%d", k)] = models.KPIValue{Value: 10 + float64(i%5)/10 + float64(i/5)*float64(k%3), Unit: "ms", LowerBetter: k%2 == 0}
		}
		sides[i/5] = append(sides[i/5], p)
	}
	keys := []string{"framework_version", "host", "seshat_version"}
	opts := Options{Keys: func(string) []string { return keys }}
	b.ReportAllocs()
	for b.Loop() {
		Build(sides[0], sides[1], [2]string{"a", "b"}, opts)
	}
}
