package serving_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/seshat-bench/seshat/examples/workload/serving"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// writeRun writes one run directory as a load-test job would: its settings,
// the load generator's report (unless empty) and, last, its exit code.
func writeRun(dir, settings, report string, exitCode int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.yaml"), []byte(settings), 0o644); err != nil {
		return err
	}
	if report != "" {
		if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(report), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "exit_code"), fmt.Appendf(nil, "%d\n", exitCode), 0o644)
}

// lookup finds a registered workload that produces payloads, as the seshat
// verbs do.
func lookup(name string) (lts.Workload, bool) {
	w, ok := workloads.Builtin().Get(name)
	if !ok {
		return nil, false
	}
	p, ok := w.(workloads.KPIProvider)
	return p, ok
}

// payloads parses a results directory and builds its LTS payloads, the
// work of `seshat parse --output-lts`.
func payloads(results string) ([]lts.EntryPayload, error) {
	m, err := store.Load(context.Background(), store.Options{ResultsDir: results, Lookup: workloads.Builtin().Lookup})
	if err != nil {
		return nil, err
	}
	return lts.BuildAll(m, lookup, lts.Options{}), nil
}

// Two load tests of one model on two versions of the server: parsed,
// labelled and turned into KPIs by the serving workload.
func Example() {
	results, err := os.MkdirTemp("", "serving")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(results)

	for i, run := range []struct{ version, rps, p50, p99 string }{
		{"0.6.2", "845.0", "3.9", "10.7"},
		{"0.6.3", "812.5", "4.1", "11.8"},
	} {
		report := `{"uuid": "6f1c2a9e-3b47-4d2e-9a51-0c8e7b1d2f3` + fmt.Sprint(i) + `",
			"start": "2025-06-0` + fmt.Sprint(i+1) + `T08:00:00Z", "end": "2025-06-0` + fmt.Sprint(i+1) + `T08:05:00Z",
			"server": {"name": "vllm", "version": "` + run.version + `"}, "requests": 2000,
			"throughput_rps": ` + run.rps + `, "latency_ms": {"p50": ` + run.p50 + `, "p99": ` + run.p99 + `}}`
		// The server image is a setting of the run: two runs whose settings
		// are all equal would be one entry (the second a duplicate).
		settings := "workload: serving\nmodel: llama-3-8b\ndevice: gpu\nconcurrency: 32\nimage: vllm:" + run.version + "\n"
		if err := writeRun(filepath.Join(results, "llama", fmt.Sprintf("%03d", i)), settings, report, 0); err != nil {
			panic(err)
		}
	}

	records, err := payloads(results)
	if err != nil {
		panic(err)
	}
	if err := lts.ValidateAll(records); err != nil {
		panic(err)
	}
	catalog := serving.Workload{}.KPIs()
	for _, r := range records {
		labels := r.Payload.Metadata.Labels
		fmt.Printf("%s: %s %s on %s %s\n", r.Path, labels["model"], labels["device"], labels["server"], labels["server_version"])
		var names []string
		for name := range r.Payload.KPIs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			d, _ := catalog.Definition(name)
			fmt.Printf("  %-15s %-18s %s\n", name, d.Display(r.Payload.KPIs[name].Value), d.Direction)
		}
	}
	// Output:
	// llama/000: llama-3-8b gpu on vllm 0.6.2
	//   latency_p50_ms  3.90 ms            lower is better
	//   latency_p99_ms  10.70 ms           lower is better
	//   throughput_rps  845.0 requests/s   higher is better
	// llama/001: llama-3-8b gpu on vllm 0.6.3
	//   latency_p50_ms  4.10 ms            lower is better
	//   latency_p99_ms  11.80 ms           lower is better
	//   throughput_rps  812.5 requests/s   higher is better
}

// A run whose report lost its tail latency and server: the payload is
// built with what is there (a warning names the missing KPI), and strict
// validation, which `parse --output-lts` and `upload` apply, names every
// missing field.
func Example_brokenReport() {
	results, err := os.MkdirTemp("", "serving")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(results)

	report := `{"uuid": "6f1c2a9e-3b47-4d2e-9a51-0c8e7b1d2f34", "start": "2025-06-02T08:00:00Z",
		"end": "2025-06-02T08:05:00Z", "requests": 2000, "throughput_rps": 812.5, "latency_ms": {"p50": 4.1}}`
	if err := writeRun(filepath.Join(results, "llama", "000"), "workload: serving\nmodel: llama-3-8b\ndevice: gpu\n", report, 0); err != nil {
		panic(err)
	}
	records, err := payloads(results)
	if err != nil {
		panic(err)
	}
	for _, w := range records[0].Warnings {
		fmt.Println("warning:", w)
	}
	fmt.Println(lts.ValidateAll(records))
	// Output:
	// warning: kpi latency_p99_ms: not computed: report.json has no latency_ms.p99
	// 1 invalid LTS payload(s):
	//   llama/000: results.latency_ms.p99: required; metadata.labels.server: required; metadata.labels.server_version: required
}
