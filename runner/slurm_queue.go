package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// slurmTaskState is what squeue or sacct says about one array task.
type slurmTaskState struct {
	State  string // RUNNING, TIMEOUT... (sacct's "CANCELLED by 0" cut to its first word)
	Node   string
	Reason string // squeue's %r: why pending, or why it ended ("None" dropped)
}

// The squeue and sacct output formats parseSlurmQueue reads: one task per
// line, fields separated by |.
const (
	squeueFormat = "%i|%T|%N|%r"
	sacctFormat  = "JobID,State,NodeList"
)

// parseSlurmQueue reads squeue --format=squeueFormat or sacct --parsable2
// --format=sacctFormat output: JOBID_TASK|STATE|NODE[|REASON] lines. Lines
// that name no array task (a whole pending array "12_[3-9]" when --array
// was not honoured, sacct's job steps "12_3.batch") are skipped; a line
// with too few fields is a SyntaxError naming the command and line.
func parseSlurmQueue(cmd string, out []byte) (map[string]slurmTaskState, error) {
	states := map[string]slurmTaskState{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) < 3 {
			return states, fmt.Errorf("%s output line %d: want JOBID|STATE|NODE, got %q", cmd, n, line)
		}
		id := strings.TrimSpace(f[0])
		if !isArrayTaskID(id) {
			continue
		}
		st := slurmTaskState{State: firstWord(f[1]), Node: strings.TrimSpace(f[2])}
		if len(f) > 3 {
			if r := strings.TrimSpace(f[3]); r != "None" {
				st.Reason = r
			}
		}
		states[id] = st
	}
	return states, sc.Err()
}

// isArrayTaskID accepts "123_4": digits, one underscore, digits.
func isArrayTaskID(id string) bool {
	job, task, ok := strings.Cut(id, "_")
	return ok && allDigits(job) && allDigits(task)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// slurmStateClass sorts Slurm's job states (squeue(1), "JOB STATE CODES").
type slurmStateClass int

const (
	slurmWaiting slurmStateClass = iota // pending, requeued, suspended: not ours to judge yet
	slurmRunning                        // RUNNING, COMPLETING
	slurmEnded                          // the batch script ended by itself: exit_code should follow
	slurmKilled                         // the scheduler ended or lost it
)

func classifySlurmState(state string) slurmStateClass {
	switch state {
	case "RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING":
		return slurmRunning
	case "COMPLETED", "FAILED":
		return slurmEnded
	case "TIMEOUT", "DEADLINE", "OUT_OF_MEMORY", "CANCELLED", "NODE_FAIL", "BOOT_FAIL", "PREEMPTED", "REVOKED":
		return slurmKilled
	}
	return slurmWaiting
}

// slurmExitCode is what the executor writes in exit_code for a run Slurm
// ended in state (docs/artifacts.md).
func slurmExitCode(state string) int {
	switch state {
	case "TIMEOUT", "DEADLINE":
		return TimeoutExitCode
	case "OUT_OF_MEMORY":
		return SchedulerKillExitCode
	case "CANCELLED", "PREEMPTED":
		return SchedulerCancelExitCode
	}
	return SchedulerLostExitCode
}
