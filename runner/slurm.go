package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// Slurm runs the points as Slurm job arrays on a cluster whose nodes share
// the results directory with this machine (DESIGN §14). It creates every
// run directory with its settings first, submits one array per resource
// shape with sbatch (task i runs `seshat run-point` on the point of
// dirs[i], so hwinfo.json and usage.json describe the node), then follows
// the tasks with squeue (sacct, when the cluster keeps accounting, for
// tasks squeue has forgotten): a run is done when its exit_code appears; a
// task Slurm ended or lost before the run could write it (TIMEOUT,
// NODE_FAIL, OUT_OF_MEMORY, CANCELLED...) is completed here with the
// state and reason in scheduler.json and an exit code from the table in
// docs/artifacts.md. Cancellation (SIGINT) and --stop-on-error scancel the
// arrays and leave unfinished runs without exit_code.
type Slurm struct {
	// Partition, Account and QOS are passed to sbatch when set.
	Partition, Account, QOS string
	// TimeLimit is sbatch --time; "" derives it from --timeout.
	TimeLimit string
	// GPUType names the GRES type of GPU points (--gres=gpu:TYPE:N).
	GPUType string
	// Directives are more sbatch options, one per #SBATCH line.
	Directives []string
	// MaxParallel caps the tasks of an array running at once (0: no cap).
	MaxParallel int
	// MaxArraySize splits larger matrices into several arrays (default
	// 1000: Slurm's default MaxArraySize is 1001).
	MaxArraySize int
	// JobName is sbatch --job-name (default seshat).
	JobName string
	// Seshat is the seshat executable on the nodes (default Options.Self:
	// the submitting one, on the shared filesystem).
	Seshat string
	// PollInterval is how often squeue is asked (default 5s).
	PollInterval time.Duration
	// GracePeriod is how long a task that ended by itself may take to show
	// its exit_code (a shared filesystem's attribute cache) before the run
	// counts as lost (default 60s).
	GracePeriod time.Duration
	// CancelWait bounds the wait for cancelled tasks to leave the nodes
	// (default 2m).
	CancelWait time.Duration
	// Env is the environment of sbatch, squeue, sacct and scancel (nil:
	// this process's); the tasks inherit sbatch's.
	Env []string
	// Log receives submissions and warnings (nil: discarded).
	Log *slog.Logger
	// Invocation ties the arrays of one `seshat run` (default: random).
	Invocation string
}

// squeueGiveUp is how long squeue may keep failing before Execute stops
// following the jobs (they stay with Slurm; --resume picks their results up).
const squeueGiveUp = 10 * time.Minute

func (s *Slurm) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s.Log
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Slurm) invocation() string {
	if s.Invocation == "" {
		s.Invocation = uuid.NewString()[:8]
	}
	return s.Invocation
}

// slurmTask is one run as an array task.
type slurmTask struct {
	i          int
	pl         Planned // Dir is the absolute run directory
	id         string  // ARRAYJOB_TASK
	job        string
	begun      bool
	done       bool
	endedSince time.Time // first seen ended (or gone) without exit_code
}

// DryRun implements DryRunner: the sbatch scripts, for the directories the
// plan predicts.
func (s *Slurm) DryRun(w io.Writer, opts Options, plan []Planned) error {
	results, err := filepath.Abs(opts.ResultsDir)
	if err != nil {
		return err
	}
	dirs, gpus := map[int]string{}, map[int]int{}
	for i, pl := range plan {
		if pl.Skip {
			continue
		}
		if dirs[i], err = filepath.Abs(pl.Dir); err != nil {
			return err
		}
		gpus[i] = PointGPUs(opts.Lookup, pl.Settings)
	}
	arrays := slurmArrays(plan, dirs, gpus, s.maxArraySize())
	for k, a := range arrays {
		script, err := s.script(a, k, len(arrays), results, s.invocation(), opts)
		if err != nil {
			return err
		}
		if k > 0 {
			io.WriteString(w, "\n")
		}
		io.WriteString(w, script)
	}
	return nil
}

// PrepareRuns is the first step of the executors that submit every run at
// once: it reports skipped points to t and creates the run directory of
// every other one (PrepareRun), setting plan[i].Dir to it. It returns the
// indexes of the runs to submit; none, and t told, when ctx is cancelled.
// Its error is a run directory it could not create (reported to t).
func PrepareRuns(ctx context.Context, opts Options, plan []Planned, t *Tracker) ([]int, error) {
	var runs []int
	for i, pl := range plan {
		if pl.Skip {
			t.Skipped(i, pl)
			continue
		}
		if ctx.Err() != nil {
			t.Interrupt()
			return nil, nil
		}
		dir := pl.Dir
		_, err := lookupWorkload(opts.Lookup, pl.Settings)
		if err == nil {
			dir, err = PrepareRun(pl, opts.Build)
		}
		plan[i].Dir = dir
		if err != nil {
			t.Broken(i, plan[i], Outcome{}, err)
			return nil, err
		}
		runs = append(runs, i)
	}
	return runs, nil
}

// PointGPUs is the number of GPUs a point needs, as its workload says
// (runnable.Resourcer); 0 when it says nothing.
func PointGPUs(lookup func(string) (runnable.Runner, error), settings map[string]any) int {
	w, err := lookupWorkload(lookup, settings)
	if err != nil {
		return 0
	}
	if r, ok := w.(runnable.Resourcer); ok {
		return r.GPUs(settings)
	}
	return 0
}

func (s *Slurm) maxArraySize() int {
	if s.MaxArraySize > 0 {
		return s.MaxArraySize
	}
	return 1000
}

// Execute implements Executor.
func (s *Slurm) Execute(ctx context.Context, opts Options, plan []Planned, t *Tracker) error {
	results, err := filepath.Abs(opts.ResultsDir)
	if err != nil {
		return err
	}
	inv := s.invocation()
	runs, err := PrepareRuns(ctx, opts, plan, t)
	if err != nil || runs == nil {
		return err
	}
	dirs, gpus := map[int]string{}, map[int]int{}
	for _, i := range runs {
		dirs[i] = plan[i].Dir
		gpus[i] = PointGPUs(opts.Lookup, plan[i].Settings)
	}
	arrays := slurmArrays(plan, dirs, gpus, s.maxArraySize())
	if len(arrays) == 0 {
		return nil
	}
	scripts := filepath.Join(results, ".seshat", "slurm")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		return err
	}
	var jobs []string
	var tasks []*slurmTask
	for k, a := range arrays {
		script, err := s.script(a, k, len(arrays), results, inv, opts)
		if err != nil {
			return err
		}
		path := filepath.Join(scripts, fmt.Sprintf("%s-%d.sh", inv, k))
		if err := atomicfile.WriteFile(path, []byte(script), 0o644); err != nil {
			return err
		}
		job, err := s.sbatch(ctx, path)
		if err != nil {
			s.cancel(jobs)
			return err
		}
		jobs = append(jobs, job)
		s.log().Info(fmt.Sprintf("submitted Slurm job array %s: %d runs (%s)", job, len(a.runs), relTo(results, path)))
		for ti, i := range a.runs {
			pl := plan[i]
			pl.Dir = a.dirs[ti]
			tasks = append(tasks, &slurmTask{i: i, pl: pl, job: job, id: fmt.Sprintf("%s_%d", job, ti)})
		}
	}
	return s.follow(ctx, opts, t, inv, jobs, tasks)
}

// follow polls until every task's run is complete, the context is
// cancelled, or --stop-on-error stops it.
func (s *Slurm) follow(ctx context.Context, opts Options, t *Tracker, inv string, jobs []string, tasks []*slurmTask) error {
	poll := orDefault(s.PollInterval, 5*time.Second)
	grace := orDefault(s.GracePeriod, time.Minute)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var failingSince time.Time
	left := len(tasks)
	for left > 0 {
		q, qerr := s.queue(ctx, activeJobs(tasks))
		if qerr != nil && ctx.Err() == nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
				s.log().Warn(fmt.Sprintf("%v (retrying every %s)", qerr, poll))
			} else if time.Since(failingSince) > squeueGiveUp {
				return fmt.Errorf("%w; stopped following jobs %s after %s: they stay with Slurm, and seshat run --resume takes their results", qerr, strings.Join(jobs, ","), squeueGiveUp)
			}
		} else if qerr == nil {
			failingSince = time.Time{}
		}
		var gone []*slurmTask
		var judged []taskState
		for _, tk := range tasks {
			if tk.done {
				continue
			}
			if o, err := ReadOutcome(tk.pl.Dir, opts.Timeout); err == nil {
				left--
				if s.end(t, tk, o) {
					return s.stop(ctx, opts, t, jobs, tasks, false)
				}
				continue
			}
			if qerr != nil {
				continue
			}
			st, ok := q[tk.id]
			if !ok {
				gone = append(gone, tk)
				continue
			}
			judged = append(judged, taskState{tk, st})
		}
		if len(gone) > 0 {
			// Forgotten by slurmctld (MinJobAge): accounting may know more.
			acct := s.sacct(ctx, gone)
			for _, tk := range gone {
				st, ok := acct[tk.id]
				if !ok {
					st = slurmTaskState{State: "LOST", Reason: "no longer known to squeue or sacct"}
				}
				judged = append(judged, taskState{tk, st})
			}
		}
		for _, j := range judged {
			stop, err := s.judge(t, j.tk, j.st, inv, grace)
			if err != nil {
				return err
			}
			if j.tk.done {
				left--
			}
			if stop {
				return s.stop(ctx, opts, t, jobs, tasks, false)
			}
		}
		if left == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return s.stop(ctx, opts, t, jobs, tasks, true)
		case <-tick.C:
		}
	}
	return nil
}

type taskState struct {
	tk *slurmTask
	st slurmTaskState
}

// judge acts on what Slurm says about a task whose run has no exit_code
// yet. It reports whether the executor must stop.
func (s *Slurm) judge(t *Tracker, tk *slurmTask, st slurmTaskState, inv string, grace time.Duration) (bool, error) {
	var ended bool
	switch classifySlurmState(st.State) {
	case slurmRunning:
		if !tk.begun {
			tk.begun = true
			t.Begin(tk.i, tk.pl)
		}
		return false, nil
	case slurmWaiting:
		if st.State != "LOST" {
			return false, nil
		}
		ended = true
	case slurmEnded:
		ended = true
	}
	if ended {
		// The task ended by itself, or vanished: its exit_code may still be
		// on its way through the shared filesystem.
		if tk.endedSince.IsZero() {
			tk.endedSince = time.Now()
		}
		if time.Since(tk.endedSince) < grace {
			return false, nil
		}
		if st.State != "LOST" {
			st.Reason = "the task ended without writing exit_code; see its log"
		}
	}
	si := models.SchedulerInfo{Executor: "slurm", Invocation: inv, JobID: tk.id, Node: st.Node, State: st.State, Reason: st.Reason, Log: slurmScriptLog(tk.id)}
	o, err := FinishByScheduler(tk.pl.Dir, si, slurmExitCode(st.State))
	if err != nil {
		t.Broken(tk.i, tk.pl, o, err)
		return true, err
	}
	return s.end(t, tk, o), nil
}

// end reports a complete run to the tracker.
func (s *Slurm) end(t *Tracker, tk *slurmTask, o Outcome) bool {
	tk.done = true
	if !tk.begun {
		tk.begun = true
		t.Begin(tk.i, tk.pl)
	}
	return t.End(tk.i, tk.pl, o)
}

// stop cancels every array, waits (bounded) for the tasks to leave the
// nodes so that a --resume never races a run still writing, and takes the
// runs that completed meanwhile. Unfinished runs keep no exit_code.
func (s *Slurm) stop(ctx context.Context, opts Options, t *Tracker, jobs []string, tasks []*slurmTask, interrupted bool) error {
	if interrupted {
		t.Interrupt()
	}
	s.cancel(jobs)
	bg := context.WithoutCancel(ctx)
	deadline := time.Now().Add(orDefault(s.CancelWait, 2*time.Minute))
	for time.Now().Before(deadline) {
		q, err := s.queue(bg, activeJobs(tasks))
		if err == nil && !anyActive(q) {
			break
		}
		time.Sleep(orDefault(s.PollInterval, 5*time.Second) / 5)
	}
	for _, tk := range tasks {
		if tk.done {
			continue
		}
		if o, err := ReadOutcome(tk.pl.Dir, opts.Timeout); err == nil {
			s.end(t, tk, o)
		}
	}
	return nil
}

// activeJobs lists the arrays with runs not yet complete.
func activeJobs(tasks []*slurmTask) []string {
	var jobs []string
	seen := map[string]bool{}
	for _, tk := range tasks {
		if !tk.done && !seen[tk.job] {
			seen[tk.job] = true
			jobs = append(jobs, tk.job)
		}
	}
	return jobs
}

func anyActive(q map[string]slurmTaskState) bool {
	for _, st := range q {
		switch classifySlurmState(st.State) {
		case slurmRunning, slurmWaiting:
			return true
		}
	}
	return false
}

// command runs a Slurm client command and returns its stdout; the error
// carries its stderr.
func (s *Slurm) command(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = s.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return stdout.Bytes(), fmt.Errorf("%s: %w", name, err)
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return stdout.Bytes(), nil
}

// sbatch submits a script and returns the array's job id.
func (s *Slurm) sbatch(ctx context.Context, script string) (string, error) {
	out, err := s.command(ctx, "sbatch", "--parsable", script)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // "123" or "123;cluster"
	if !allDigits(id) {
		return "", fmt.Errorf("sbatch %s: unexpected output %q", script, out)
	}
	return id, nil
}

// queue asks squeue about every task of the jobs. Jobs slurmctld has
// forgotten are simply absent.
func (s *Slurm) queue(ctx context.Context, jobs []string) (map[string]slurmTaskState, error) {
	if len(jobs) == 0 {
		return map[string]slurmTaskState{}, nil
	}
	out, err := s.command(ctx, "squeue", "--noheader", "--array", "--states=all", "--jobs="+strings.Join(jobs, ","), "--format="+squeueFormat)
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id specified") {
			return map[string]slurmTaskState{}, nil
		}
		return nil, err
	}
	return parseSlurmQueue("squeue", out)
}

// sacct asks the accounting database about tasks squeue no longer lists;
// nil when the cluster keeps no accounting.
func (s *Slurm) sacct(ctx context.Context, tasks []*slurmTask) map[string]slurmTaskState {
	seen := map[string]bool{}
	var jobs []string
	for _, tk := range tasks {
		if !seen[tk.job] {
			seen[tk.job] = true
			jobs = append(jobs, tk.job)
		}
	}
	out, err := s.command(ctx, "sacct", "--noheader", "--parsable2", "--allocations", "--jobs="+strings.Join(jobs, ","), "--format="+sacctFormat)
	if err != nil {
		return nil
	}
	states, _ := parseSlurmQueue("sacct", out)
	return states
}

// cancel scancels the arrays (their pending and running tasks).
func (s *Slurm) cancel(jobs []string) {
	if len(jobs) == 0 {
		return
	}
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	if _, err := s.command(ctx, "scancel", jobs...); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		s.log().Warn(err.Error())
	}
	s.log().Info("cancelled Slurm jobs " + strings.Join(jobs, ","))
}
