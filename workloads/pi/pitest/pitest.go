package pitest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/lts/payloadgen"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads/pi"
)

// Options shape the payloads Payloads makes (payloadgen.Options).
type Options = payloadgen.Options

// Payloads returns n valid pi payloads, starting at payloadgen.Start in
// time order: a gonum matmul of the series' matrix_size (payloadgen.Sizes), float32
// on the cpu, o.Samples samples (200 when 0).
func Payloads(n int, o Options) []*models.Payload {
	if o.Samples <= 0 {
		o.Samples = 200
	}
	hw := HWInfo("go1.26.0")
	return payloadgen.Generate(n, o, pi.Workload{}, func(r payloadgen.Run) *store.Entry {
		e := entry(r.Rand, r.UUID, &hw, r.Size, o.Samples, r.Start)
		e.Path = fmt.Sprintf("expe/%06d__matrix_size=%d", r.I, r.Size)
		return e
	})
}

// MatrixSize is the matrix_size label value of series k.
func MatrixSize(k int) string { return payloadgen.SizeLabel(k) }

// MatmulResult is a synthetic pi.json of a matmul PI: samples milliseconds
// scattered 2% around the time of an n×n product at 50 GFLOPS, and the rate,
// median and CI they give. bench/gen writes it into its trees too.
func MatmulResult(rng *rand.Rand, component, dtype string, size, samples int, versions map[string]string) *models.PIResult {
	flops := 2 * math.Pow(float64(size), 3)
	base := flops / 50e9 * 1e3 // ms at 50 GFLOPS
	ms := make([]float64, samples)
	for i := range ms {
		ms[i] = math.Round(base*(1+0.02*rng.NormFloat64())*1e6) / 1e6
		if ms[i] <= 0 {
			ms[i] = base
		}
	}
	sorted := append([]float64(nil), ms...)
	slices.Sort(sorted)
	med := sorted[len(sorted)/2]
	rate := flops / (med / 1e3) / 1e9
	return &models.PIResult{
		Component: component, Name: "PiMatmul",
		Parameters: map[string]any{"matrix_size": size, "dtype": dtype, "device": "cpu", "repetitions": samples, "warmup": 5},
		Result: models.PIMeasurement{Rate: &rate, Elapsed: med, FLOPs: &flops, SamplesMs: ms,
			CI95Low: sorted[len(sorted)*45/100], CI95High: sorted[len(sorted)*55/100], CV: 0.02},
		Versions: versions,
	}
}

func entry(rng *rand.Rand, id string, hw *models.HWInfo, size, samples int, t0 time.Time) *store.Entry {
	code := 0
	settings := models.Settings{"workload": "pi", "pi": "matmul", "backend": "gonum", "device": "cpu",
		"matrix_size": size, "dtype": "float32", "repetitions": samples, "@repeat": 0}
	return &store.Entry{
		Workload: "pi", Complete: true, ExitCode: &code, Settings: settings,
		Results: &pi.Results{
			UUID:   id,
			PI:     MatmulResult(rng, "gonum", "float32", size, samples, map[string]string{"gonum": "v0.17.0", "go": "go1.26.0"}),
			HWInfo: hw,
			Usage: &models.Usage{Start: t0, End: t0.Add(2 * time.Second), WallSeconds: 2,
				Rusage: models.Rusage{UtimeSeconds: 1.9, StimeSeconds: 0.05, MaxRSSBytes: 64 << 20, Minflt: 12000, Nvcsw: 40, Nivcsw: 12}},
			Config: json.RawMessage(`{"backend":"gonum","pi":"matmul","repeat":3,"workload":"pi"}`),
		},
	}
}

// HWInfo is the hwinfo.json of the runs Payloads makes and bench/gen
// writes: a 2-core Xeon VM with its full CPU flag list, running Go
// goVersion.
func HWInfo(goVersion string) models.HWInfo {
	flags := strings.Fields("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single ssbd ibrs ibpb stibp fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves arat avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid md_clear flush_l1d arch_capabilities")
	return models.HWInfo{
		Hostname: "bench-host", Kernel: "6.1.0-18-amd64",
		OS:          models.OSRelease{ID: "debian", VersionID: "12", PrettyName: "Debian GNU/Linux 12 (bookworm)"},
		CPU:         models.CPUInfo{Model: "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", Vendor: "GenuineIntel", Flags: flags, Sockets: 1, Cores: 2, Threads: 2},
		MemoryBytes: 24 << 30, GoVersion: goVersion,
		Versions: map[string]string{"seshat": "v0.1.0", "python": "3.11.2"},
	}
}

// RegressionHistory returns what `seshat regression` is benchmarked on: a
// history of n payloads in series series (as Payloads), where each series
// goes through versions framework versions (v1.0.0, v1.1.0...) in time
// order, each version one build, and the current runs: one payload per
// series of the next version (a build of its own),
// started after the history, every 100th with its rate_gflops 10% lower
// and its elapsed_ms 10% higher (a planted regression).
func RegressionHistory(n, series, versions int, seed uint64) (history, current []*models.Payload) {
	history = Payloads(n, Options{Series: series, Seed: seed})
	perVersion := max(1, n/versions)
	for i, p := range history {
		v := fmt.Sprintf("v1.%d.0", min(i/perVersion, versions-1))
		p.Metadata.Labels["framework_version"] = v
		// One CI build per version: a history point is a build.
		p.Metadata.Build = &models.Build{ID: "ci-" + v}
	}
	current = Payloads(series, Options{Series: series, Seed: seed + 1})
	after := history[len(history)-1].Metadata.Start.Add(time.Hour)
	for i, p := range current {
		m := &p.Metadata
		m.Labels["framework_version"] = fmt.Sprintf("v1.%d.0", versions)
		m.Build = &models.Build{ID: fmt.Sprintf("ci-v1.%d.0", versions)}
		m.Start = after.Add(time.Duration(i) * time.Second)
		m.End = m.Start.Add(2 * time.Second)
		for name, v := range p.KPIs {
			v.Timestamp = m.Start
			if i%100 == 0 && name == "rate_gflops" {
				v.Value *= 0.9
			}
			if i%100 == 0 && name == "elapsed_ms" {
				v.Value *= 1.1
			}
			p.KPIs[name] = v
		}
	}
	return history, current
}
