package pipeline

import (
	"log/slog"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// The registry's KPIProvider and lts.Workload are the same ability.
var _ lts.Workload = workloads.KPIProvider(nil)

// ltsLookup finds a workload of e that produces payloads.
func (e Env) ltsLookup(name string) (lts.Workload, bool) {
	w, ok := e.registry().Get(name)
	if !ok {
		return nil, false
	}
	p, ok := w.(workloads.KPIProvider)
	return p, ok
}

// ltsWorkloads lists the workloads of e that produce payloads.
func (e Env) ltsWorkloads() []lts.Workload {
	var out []lts.Workload
	for _, p := range e.registry().KPIProviders() {
		out = append(out, p)
	}
	return out
}

// readLTSFile reads an LTS file (lts.ReadFile) with the workloads env
// knows: every verb's one way to read one.
func readLTSFile(env Env, path string) ([]lts.EntryPayload, error) {
	return lts.ReadFile(path, env.ltsLookup)
}

// buildPayloads builds the payloads of a parsed matrix leniently and logs
// the warnings met, each with its entry.
func buildPayloads(env Env, m *store.Matrix) []lts.EntryPayload {
	records := lts.BuildAll(m, env.ltsLookup, lts.Options{BaseURL: env.ResultsBaseURL})
	for _, r := range records {
		for _, w := range r.Warnings {
			env.logger().Warn(r.Path + ": " + w)
		}
	}
	return records
}

func (e Env) logger() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}
