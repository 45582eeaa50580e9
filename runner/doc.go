// Package runner is the collector half of seshat: benchmark file -> matrix
// points -> one child process per run -> one artifact directory per run.
//
// LoadBenchmark decodes and validates a benchmark file (matbench shape:
// common_settings, expe, repeat); Expand turns it into Points, the cartesian
// product of list-valued settings, each repeat told apart by `@repeat`.
// CheckSettings refuses the settings no point's workload reads (a typo
// must not run with the default) unless extra_settings declares them.
// DetectBuild tells, once per invocation, what is under test: the flags,
// else the CI's environment, else git, else the invocation itself.
// Run creates <results>/<expe>/<NNN>__<slug> for each point, writes
// settings.yaml, .uuid, config.yaml and build.json, executes the workload's
// child command (Execute: own process group and, where the host allows, own
// cgroup, else seshat as child subreaper, so that the timeout and the end
// of the run kill every descendant, detached or not; pinned to Options.CPUs
// when set; logs to files, rusage), then writes hwinfo.json (collected once
// per invocation by CollectHWInfo), usage.json (with the CPUs, the thread
// counts of the child's environment, and the host's load and governors just
// before and after, read by runner/host) and, last and atomically,
// exit_code. The thread-count settings (models.ThreadVariables) are the
// runner's own, like workload and repeat: exported to the child as
// OMP_NUM_THREADS and the like, whatever the workload.
//
// A failed run is data: it is recorded and the matrix goes on. An
// interrupted run (context cancelled) has its processes killed and its
// directory left without exit_code, so the parser reports it incomplete.
// Run holds the results directory's lock (LockResults: one writer per
// results directory). On Linux a run's child dies with seshat, SIGKILL
// included (PR_SET_PDEATHSIG, forked from a thread kept for the child's
// life); what it started is killed, and the run's cgroup removed, by the
// next seshat's Reclaim.
//
// Where the points run is an Executor (DESIGN §14): Local (the above, in
// plan order), Slurm (job arrays on a shared filesystem, followed with
// squeue) or runner/kubernetes (Jobs, run directories carried back in pod
// logs by WriteArchive/ExtractArchive). The submitting executors create
// every directory first (PrepareRuns); on the node, `seshat run-point`
// calls RunPoint, which runs the point exactly as Local does, so hwinfo.json
// and usage.json describe that node. A run the scheduler ended or lost is
// completed by FinishByScheduler (scheduler.json, exit_code). Every
// executor reports to the Tracker, which keeps the Summary and Progress.
package runner
