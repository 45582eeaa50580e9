package runner

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// slurmArray is one job array: runs of the same resource shape, at most
// MaxArraySize of them.
type slurmArray struct {
	runs []int    // indexes in the plan
	dirs []string // absolute run directories, task i runs dirs[i]
	gpus int
	// settings describe each run in a comment of the script.
	settings []string
}

// slurmArrays groups the runs into job arrays: one per GPU count (an
// array's tasks share their resources), split at max tasks.
func slurmArrays(plan []Planned, dirs map[int]string, gpus map[int]int, max int) []*slurmArray {
	var arrays []*slurmArray
	open := map[int]*slurmArray{}
	for i, pl := range plan {
		if pl.Skip {
			continue
		}
		g := gpus[i]
		a := open[g]
		if a == nil || len(a.runs) >= max {
			a = &slurmArray{gpus: g}
			open[g] = a
			arrays = append(arrays, a)
		}
		a.runs = append(a.runs, i)
		a.dirs = append(a.dirs, dirs[i])
		a.settings = append(a.settings, SettingsText(pl.Settings))
	}
	return arrays
}

// slurmScriptLog is where a task's own stdout and stderr go (the batch
// script's, not the PI's), relative to the results directory.
func slurmScriptLog(jobTask string) string {
	return filepath.Join(".seshat", "slurm", jobTask+".out")
}

// script renders the sbatch script of one array. resultsDir is absolute.
// k and n number the array among the invocation's.
func (s *Slurm) script(a *slurmArray, k, n int, resultsDir, invocation string, opts Options) (string, error) {
	q := func(v string) (string, error) { return syntax.Quote(v, syntax.LangBash) }
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	directive := func(format string, args ...any) {
		fmt.Fprintf(&b, "#SBATCH "+format+"\n", args...)
	}
	name := s.JobName
	if name == "" {
		name = "seshat"
	}
	directive("--job-name=%s", name)
	array := fmt.Sprintf("0-%d", len(a.runs)-1)
	if s.MaxParallel > 0 {
		array += "%" + strconv.Itoa(s.MaxParallel)
	}
	directive("--array=%s", array)
	directive("--output=%s", filepath.Join(resultsDir, ".seshat", "slurm", "%A_%a.out"))
	directive("--comment=seshat-invocation=%s", invocation)
	if s.Partition != "" {
		directive("--partition=%s", s.Partition)
	}
	if s.Account != "" {
		directive("--account=%s", s.Account)
	}
	if s.QOS != "" {
		directive("--qos=%s", s.QOS)
	}
	if tl := s.timeLimit(opts.Timeout); tl != "" {
		directive("--time=%s", tl)
	}
	if a.gpus > 0 {
		gres := "gpu"
		if s.GPUType != "" {
			gres += ":" + s.GPUType
		}
		directive("--gres=%s:%d", gres, a.gpus)
	}
	for _, d := range s.Directives {
		if strings.ContainsAny(d, "\n\r") {
			return "", fmt.Errorf("executor.slurm.directives: %q spans lines", d)
		}
		directive("%s", d)
	}
	fmt.Fprintf(&b, "\n# seshat run, invocation %s, job array %d of %d: task i runs the matrix\n", invocation, k+1, n)
	b.WriteString("# point whose run directory is dirs[i], with seshat on the node.\n")
	b.WriteString("dirs=(\n")
	for i, d := range a.dirs {
		qd, err := q(d)
		if err != nil {
			return "", fmt.Errorf("run directory %s: %w", d, err)
		}
		fmt.Fprintf(&b, "  %s # %d: %s\n", qd, i, strings.ReplaceAll(a.settings[i], "\n", " "))
	}
	b.WriteString(")\n")
	self := s.Seshat
	if self == "" {
		self = opts.Self
	}
	args := []string{self, "run-point"}
	if opts.Timeout > 0 {
		args = append(args, "--timeout", opts.Timeout.String())
	}
	if opts.Python != "" {
		args = append(args, "--python", opts.Python)
	}
	args = append(args, "--executor", "slurm", "--invocation", invocation)
	for i, arg := range args {
		if args[i], _ = q(arg); args[i] == "" {
			return "", fmt.Errorf("cannot quote %q for the batch script", arg)
		}
	}
	fmt.Fprintf(&b, "exec %s \\\n  --job-id \"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\" --node \"${SLURMD_NODENAME:-}\" \\\n  --dir \"${dirs[$SLURM_ARRAY_TASK_ID]}\"\n", strings.Join(args, " "))
	return b.String(), nil
}

// timeLimit is sbatch --time: the configured one, else --timeout plus a
// minute for seshat's own work on the node (hardware probe, files), in
// whole minutes, so that seshat's timeout fires first and the run ends as
// it would locally. "" without either: the partition's default.
func (s *Slurm) timeLimit(timeout time.Duration) string {
	if s.TimeLimit != "" {
		return s.TimeLimit
	}
	if timeout <= 0 {
		return ""
	}
	return strconv.Itoa(int((timeout + time.Minute + time.Minute - 1) / time.Minute))
}
