package payloadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// Start is the start of the first payload Generate makes.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Sizes are the sizes payloads cycle through: payload i has the size
// Sizes[i % series] for series <= len(Sizes), and a distinct synthetic
// size beyond.
var Sizes = []int{64, 128, 256, 512, 1024, 2048, 4096}

// Options shape the payloads Generate makes.
type Options struct {
	// Series is the number of distinct label sets (by size); 1 when 0.
	Series int
	// Samples per run, for workloads whose runs keep them (pitest: 200
	// when 0, as bench/gen); the toy's runs have none.
	Samples int
	// Step between starts (1 minute when 0); every TieEvery-th payload
	// starts at the same time as the one before (none when 0), to exercise
	// the test_uuid tie-break.
	Step     time.Duration
	TieEvery int
	Seed     uint64
}

// Size is the size of series k.
func Size(k int) int {
	if k < len(Sizes) {
		return Sizes[k]
	}
	return 10000 + k
}

// SizeLabel is the size label value of series k (the toy's size, pi's
// matrix_size).
func SizeLabel(k int) string { return strconv.Itoa(Size(k)) }

// Run is what Generate asks of a workload's entry maker for payload i:
// its series' size, test UUID, start time and a seeded random source.
type Run struct {
	I, Size int
	UUID    string
	Start   time.Time
	Rand    *rand.Rand
}

// Generate returns n valid payloads of workload w, starting at Start in
// time order, each built by lts.Build from the entry entry makes of it.
func Generate(n int, o Options, w lts.Workload, entry func(Run) *store.Entry) []*models.Payload {
	if o.Series <= 0 {
		o.Series = 1
	}
	if o.Step <= 0 {
		o.Step = time.Minute
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	ids := rand.NewChaCha8([32]byte{byte(o.Seed), byte(o.Seed >> 8), byte(o.Seed >> 16), 's', 'e', 's', 'h', 'a', 't'})
	out := make([]*models.Payload, n)
	t := Start
	for i := range out {
		if i > 0 && (o.TieEvery == 0 || i%o.TieEvery != 0) {
			t = t.Add(o.Step)
		}
		r := Run{I: i, Size: Size(i % o.Series), UUID: uuid.Must(uuid.NewRandomFromReader(ids)).String(), Start: t, Rand: rng}
		e := entry(r)
		p, warnings := lts.Build(e, w, lts.Options{})
		if len(warnings) > 0 {
			panic(fmt.Sprintf("payloadgen: payload %d: %v", i, warnings))
		}
		out[i] = p
	}
	return out
}
