// Package runner is the collector half of seshat: benchmark file -> matrix
// points -> one child process per run -> one artifact directory per run.
//
// LoadBenchmark decodes and validates a benchmark file (matbench shape:
// common_settings, expe, repeat); Expand turns it into Points, the cartesian
// product of list-valued settings, each repeat told apart by `@repeat`.
// CheckSettings refuses the settings no point's workload reads (a typo
// must not run with the default) unless extra_settings declares them.
// Run creates <results>/<expe>/<NNN>__<slug> for each point, writes
// settings.yaml, .uuid and config.yaml, executes the workload's child
// command (Execute: own process group and, where the host allows, own
// cgroup, else seshat as child subreaper, so that the timeout and the end
// of the run kill every descendant, detached or not; logs to
// files, rusage), then writes hwinfo.json (collected once per invocation by
// CollectHWInfo), usage.json and, last and atomically, exit_code.
//
// A failed run is data: it is recorded and the matrix goes on. An
// interrupted run (context cancelled) has its processes killed and its
// directory left without exit_code, so the parser reports it incomplete.
package runner
