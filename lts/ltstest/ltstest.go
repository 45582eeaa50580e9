// Package ltstest makes LTS payloads for the tests of the stores: payloads
// of the toy workload (internal/workloadtest, which importing ltstest
// registers), assembled by payloadgen, so that the stores' tests depend on
// no real workload (workloads/pi/pitest makes production-shaped pi
// payloads, for benchmarks and for the tests of the verbs).
// Conformance holds the tests every lts.Store passes (each backend's tests
// run it), with the helpers they share (Open, Collect, CollectRecords...).
// For tests and benchmarks, never production.
package ltstest

import (
	"fmt"
	"math"
	"time"

	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/payloadgen"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// Options shape the payloads Payloads makes (payloadgen.Options).
type Options = payloadgen.Options

// Start is the start of the first payload Payloads makes.
var Start = payloadgen.Start

// SizeLabel is the size label value of series k.
func SizeLabel(k int) string { return payloadgen.SizeLabel(k) }

// Payloads returns n valid toy payloads, starting at Start in time order:
// labels device (cpu) and size (by series), KPIs elapsed_ms (the time of
// an n×n matrix product at 50 GFLOPS, scattered 2%) and wall_seconds (2).
func Payloads(n int, o Options) []*models.Payload {
	return payloadgen.Generate(n, o, workloadtest.Toy{}, func(r payloadgen.Run) *store.Entry {
		code := 0
		ms := 2 * math.Pow(float64(r.Size), 3) / 50e9 * 1e3 * (1 + 0.02*r.Rand.NormFloat64())
		return &store.Entry{
			Path:     fmt.Sprintf("expe/%06d__size=%d", r.I, r.Size),
			Workload: workloadtest.Name, Complete: true, ExitCode: &code,
			Settings: models.Settings{"workload": workloadtest.Name, "device": "cpu", "size": r.Size, "@repeat": 0},
			Results: &workloadtest.Run{UUID: r.UUID, Start: r.Start, End: r.Start.Add(2 * time.Second),
				ElapsedMs: &ms, Device: "cpu"},
		}
	})
}

// SeriesQuery selects the payloads of series k (all their labels).
func SeriesQuery(p *models.Payload) lts.Query {
	q := lts.Query{Labels: models.Filter{}}
	for k, v := range p.Metadata.Labels {
		q.Labels[k] = []string{v}
	}
	return q
}
