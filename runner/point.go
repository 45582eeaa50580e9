package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"os"
	"path/filepath"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// SchedulerFile is written in the run directories of the slurm and
// kubernetes executors (docs/artifacts.md).
const SchedulerFile = "scheduler.json"

// PointOptions configure RunPoint.
type PointOptions struct {
	// Dir is the run directory, holding the settings.yaml, .uuid and
	// config.yaml the submitting executor wrote.
	Dir     string
	Timeout time.Duration
	// Self is the seshat executable on this node; Python the --python
	// interpreter.
	Self, Python string
	Lookup       func(name string) (runnable.Runner, error)
	// HWInfo describes this node.
	HWInfo models.HWInfo
	// Env is the base environment of the child.
	Env []string
	// Scheduler is written to scheduler.json before the run (nil: none).
	Scheduler *models.SchedulerInfo
	// Prelude, when set, is an EncodeArchive of the run directory's first
	// files, unpacked into Dir before the run (no shared filesystem).
	Prelude string
	// Archive, when set, receives the run directory as WriteArchive writes
	// it once the run is complete (the pod's log carries it back).
	Archive io.Writer
}

// nodeTermGrace: see pointEnv.TermGrace.
const nodeTermGrace = 2 * time.Second

// RunPoint runs the point of an existing run directory on this machine,
// exactly as Local runs it, so that hwinfo.json and usage.json describe
// the node a scheduler chose: it is what a Slurm array task or a
// Kubernetes pod runs (`seshat run-point`). A directory that already holds
// exit_code is complete and left alone (a task the scheduler requeued
// after it finished). The error is RunPoint's own failure, or
// ErrInterrupted when ctx was cancelled (the scheduler's SIGTERM): the
// run is then left without exit_code, for the executor to account for.
func RunPoint(ctx context.Context, o PointOptions) (Outcome, error) {
	out, err := runPoint(ctx, o)
	if err == nil && o.Archive != nil {
		err = WriteArchive(o.Archive, o.Dir)
	}
	return out, err
}

func runPoint(ctx context.Context, o PointOptions) (Outcome, error) {
	if o.Prelude != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return Outcome{}, err
		}
		if _, err := ExtractPayload([]byte(o.Prelude), o.Dir); err != nil {
			return Outcome{}, fmt.Errorf("--prelude: %w", err)
		}
	}
	if done, err := ReadOutcome(o.Dir, o.Timeout); err == nil {
		return done, nil
	}
	path := filepath.Join(o.Dir, SettingsFile)
	data, err := parsers.ReadLimited(path, 1<<20)
	if err != nil {
		return Outcome{}, err
	}
	settings, err := parsers.Settings(path, data)
	if err != nil {
		return Outcome{}, err
	}
	w, err := lookupWorkload(o.Lookup, settings)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s: %w", path, err)
	}
	if o.Scheduler != nil {
		if err := writeJSON(filepath.Join(o.Dir, SchedulerFile), o.Scheduler); err != nil {
			return Outcome{}, err
		}
	}
	pe := pointEnv{Timeout: o.Timeout, Self: o.Self, Python: o.Python, HWInfo: o.HWInfo, Env: o.Env, TermGrace: nodeTermGrace}
	return runIn(ctx, pe, w, o.Dir, settings)
}

// ReadOutcome reads how a complete run ended from its directory: exit_code
// and usage.json's times. It fails with fs.ErrNotExist while the run has
// no exit_code. timeout is the invocation's --timeout: a run that exited
// with TimeoutExitCode under one counts as timed out.
func ReadOutcome(dir string, timeout time.Duration) (Outcome, error) {
	path := filepath.Join(dir, ExitCodeFile)
	data, err := parsers.ReadLimited(path, 64)
	if err != nil {
		return Outcome{}, err
	}
	code, err := parsers.ExitCode(path, data)
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{ExitCode: code, TimedOut: timeout > 0 && code == TimeoutExitCode}
	var u models.Usage
	if data, err := parsers.ReadLimited(filepath.Join(dir, UsageFile), 1<<20); err == nil && json.Unmarshal(data, &u) == nil {
		o.Start, o.End = u.Start, u.End
	}
	if si, err := ReadScheduler(dir); err == nil && si.State != "" {
		o.Reason = schedulerReason(si)
	}
	if code != 0 {
		o.Stderr = StderrReason(dir)
	}
	return o, nil
}

// ReadScheduler reads a run directory's scheduler.json.
func ReadScheduler(dir string) (models.SchedulerInfo, error) {
	var si models.SchedulerInfo
	path := filepath.Join(dir, SchedulerFile)
	data, err := parsers.ReadLimited(path, 1<<20)
	if err != nil {
		return si, err
	}
	return si, parsers.JSON(path, data, &si)
}

// Scheduler exit codes: what an executor writes in exit_code when the
// scheduler ended a run before the run could write it (docs/artifacts.md).
const (
	// SchedulerKillExitCode: OUT_OF_MEMORY, OOMKilled (SIGKILL, as the
	// kernel's OOM killer leaves it).
	SchedulerKillExitCode = 128 + 9
	// SchedulerCancelExitCode: CANCELLED, Evicted, preempted (SIGTERM, what
	// schedulers send first).
	SchedulerCancelExitCode = 128 + 15
	// SchedulerLostExitCode: the node failed or the run vanished without a
	// trace (NODE_FAIL, BOOT_FAIL, a task that ended without exit_code).
	SchedulerLostExitCode = 1
)

// FinishByScheduler completes a run the scheduler ended or lost: it
// records si (merged over the scheduler.json the node wrote, if any) and a
// line in stderr.log saying why, then exit_code, last and atomically. The
// returned Outcome carries the reason for the summary.
func FinishByScheduler(dir string, si models.SchedulerInfo, code int) (Outcome, error) {
	if old, err := ReadScheduler(dir); err == nil {
		if si.Node == "" {
			si.Node = old.Node
		}
		if si.Pod == "" {
			si.Pod = old.Pod
		}
	}
	now := time.Now()
	o := Outcome{ExitCode: code, Start: now, End: now, Reason: schedulerReason(si)}
	if err := writeJSON(filepath.Join(dir, SchedulerFile), si); err != nil {
		return o, err
	}
	f, err := os.OpenFile(filepath.Join(dir, StderrFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return o, err
	}
	_, werr := fmt.Fprintf(f, "\nseshat run: %s\n", o.Reason)
	if err := errors.Join(werr, f.Close()); err != nil {
		return o, err
	}
	return o, writeExitCode(dir, code)
}

func schedulerReason(si models.SchedulerInfo) string {
	msg := fmt.Sprintf("%s ended the run: %s", si.Executor, si.State)
	if si.Reason != "" {
		msg += " (" + si.Reason + ")"
	}
	msg += ", job " + si.JobID
	if si.Node != "" {
		msg += " on node " + si.Node
	}
	return msg
}
