package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner"
)

// Executor runs every point as a Kubernetes Job (see the package doc).
type Executor struct {
	// Client talks to the API server (NewClient).
	Client Client
	// Namespace of the Jobs (default "default").
	Namespace string
	// Image holds seshat and the PIs' dependencies (the project's
	// Containerfile); required.
	Image            string
	ImagePullPolicy  corev1.PullPolicy
	ImagePullSecrets []string
	ServiceAccount   string
	NodeSelector     map[string]string
	Tolerations      []corev1.Toleration
	// Requests and Limits are every pod's resources; GPU points add
	// GPUResource (default nvidia.com/gpu) to the limits.
	Requests, Limits corev1.ResourceList
	GPUResource      corev1.ResourceName
	// Labels are added to every Job and pod.
	Labels map[string]string
	// MaxParallel caps the Jobs existing at once (0: all at once).
	MaxParallel int
	// PollInterval is how often Jobs and pods are listed (default 5s).
	PollInterval time.Duration
	// PendingTimeout is how long a pod may stay unable to start (image
	// pull errors, a bad config) before its run fails (default 5m).
	PendingTimeout time.Duration
	// Seshat is the seshat executable in the image (default "seshat").
	Seshat string
	// Logs reads a pod's log (nil: the pods/log API).
	Logs func(ctx context.Context, namespace, pod string) (io.ReadCloser, error)
	Log  *slog.Logger
	// Invocation ties the Jobs of one `seshat run` (default: random).
	Invocation string
}

func (e *Executor) namespace() string {
	if e.Namespace == "" {
		return "default"
	}
	return e.Namespace
}

func (e *Executor) gpuResource() corev1.ResourceName {
	if e.GPUResource == "" {
		return "nvidia.com/gpu"
	}
	return e.GPUResource
}

func (e *Executor) seshat() string {
	if e.Seshat == "" {
		return "seshat"
	}
	return e.Seshat
}

func (e *Executor) pendingTimeout() time.Duration {
	if e.PendingTimeout > 0 {
		return e.PendingTimeout
	}
	return 5 * time.Minute
}

func (e *Executor) pollInterval() time.Duration {
	if e.PollInterval > 0 {
		return e.PollInterval
	}
	return 5 * time.Second
}

func (e *Executor) log() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return e.Log
}

func (e *Executor) invocation() string {
	if e.Invocation == "" {
		e.Invocation = uuid.NewString()[:8]
	}
	return e.Invocation
}

func (e *Executor) selector() string {
	return LabelInvocation + "=" + e.invocation()
}

// preludePlaceholder stands for a run's archive in --dry-run manifests.
const preludePlaceholder = "<settings.yaml, .uuid, config.yaml, build.json as a base64 tar.gz>"

// DryRun implements runner.DryRunner: the Job manifests, as a YAML stream.
func (e *Executor) DryRun(w io.Writer, opts runner.Options, plan []runner.Planned) error {
	if e.Image == "" {
		return errors.New("executor.kubernetes.image is required")
	}
	first := true
	for i, pl := range plan {
		if pl.Skip {
			continue
		}
		rel, _ := filepath.Rel(opts.ResultsDir, pl.Dir)
		data, err := yaml.Marshal(e.job(opts, pl, i, e.invocation(), rel, preludePlaceholder, runner.PointGPUs(opts.Lookup, pl.Settings)))
		if err != nil {
			return err
		}
		if !first {
			io.WriteString(w, "---\n")
		}
		first = false
		w.Write(data)
	}
	return nil
}

// kubeRun is one run as a Job.
type kubeRun struct {
	i       int
	pl      runner.Planned // Dir is the absolute local run directory
	rel     string
	gpus    int
	job     string
	created bool
	begun   bool
	done    bool
	since   time.Time // first seen unable to start, or gone
}

// Execute implements runner.Executor.
func (e *Executor) Execute(ctx context.Context, opts runner.Options, plan []runner.Planned, t *runner.Tracker) error {
	if e.Image == "" {
		return errors.New("executor.kubernetes.image is required")
	}
	inv := e.invocation()
	results, err := filepath.Abs(opts.ResultsDir)
	if err != nil {
		return err
	}
	todo, err := runner.PrepareRuns(ctx, opts, plan, t)
	if err != nil {
		return err
	}
	var runs []*kubeRun
	for _, i := range todo {
		pl := plan[i]
		rel, _ := filepath.Rel(results, pl.Dir)
		runs = append(runs, &kubeRun{i: i, pl: pl, rel: rel, job: jobName(inv, i), gpus: runner.PointGPUs(opts.Lookup, pl.Settings)})
	}
	if len(runs) == 0 {
		return nil
	}
	err = e.follow(ctx, opts, t, runs)
	// Whatever happened, nothing of this invocation stays in the cluster.
	e.cleanUp()
	return err
}

// follow creates the Jobs (at most MaxParallel at once) and polls until
// every run is complete, the context is cancelled or --stop-on-error
// stops it.
func (e *Executor) follow(ctx context.Context, opts runner.Options, t *runner.Tracker, runs []*kubeRun) error {
	tick := time.NewTicker(e.pollInterval())
	defer tick.Stop()
	left := len(runs)
	for left > 0 {
		if err := e.create(ctx, opts, runs); err != nil {
			if ctx.Err() != nil {
				t.Interrupt()
				return e.sweep(ctx, opts, t, runs)
			}
			return err
		}
		jobs, pods, err := e.list(ctx)
		if err != nil && ctx.Err() == nil {
			e.log().Warn(fmt.Sprintf("list the invocation's Jobs and pods: %v (retrying every %s)", err, e.pollInterval()))
		}
		if err == nil {
			for _, r := range runs {
				if !r.created || r.done {
					continue
				}
				o, ok, err := e.judge(ctx, opts, t, r, jobs[r.job], pods[r.job])
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				left--
				stop := t.End(r.i, r.pl, o)
				e.deleteJob(r.job)
				if stop {
					return e.sweep(ctx, opts, t, runs)
				}
			}
		}
		if left == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Interrupt()
			return e.sweep(ctx, opts, t, runs)
		case <-tick.C:
		}
	}
	return nil
}

// create creates the Jobs of runs not yet submitted, keeping at most
// MaxParallel unfinished.
func (e *Executor) create(ctx context.Context, opts runner.Options, runs []*kubeRun) error {
	active := 0
	for _, r := range runs {
		if r.created && !r.done {
			active++
		}
	}
	for _, r := range runs {
		if r.created {
			continue
		}
		if e.MaxParallel > 0 && active >= e.MaxParallel {
			return nil
		}
		prelude, err := runner.EncodeArchive(r.pl.Dir)
		if err != nil {
			return err
		}
		job := e.job(opts, r.pl, r.i, e.invocation(), r.rel, prelude, r.gpus)
		if err := e.Client.CreateJob(ctx, e.namespace(), job); err != nil {
			return fmt.Errorf("create Job %s/%s: %w", e.namespace(), r.job, err)
		}
		r.created = true
		active++
	}
	return nil
}

// list returns the invocation's Jobs by name and their newest pods by Job
// name.
func (e *Executor) list(ctx context.Context) (map[string]*batchv1.Job, map[string]*corev1.Pod, error) {
	jl, err := e.Client.ListJobs(ctx, e.namespace(), e.selector())
	if err != nil {
		return nil, nil, err
	}
	pl, err := e.Client.ListPods(ctx, e.namespace(), e.selector())
	if err != nil {
		return nil, nil, err
	}
	jobs := map[string]*batchv1.Job{}
	for i := range jl.Items {
		jobs[jl.Items[i].Name] = &jl.Items[i]
	}
	pods := map[string]*corev1.Pod{}
	for i := range pl.Items {
		p := &pl.Items[i]
		n, err := strconv.Atoi(p.Labels[LabelRun])
		if err != nil {
			continue
		}
		name := jobName(e.invocation(), n)
		if old := pods[name]; old == nil || old.CreationTimestamp.Before(&p.CreationTimestamp) {
			pods[name] = p
		}
	}
	return jobs, pods, nil
}

// Container waiting reasons that keep a pod from ever starting unless
// someone intervenes.
var stuckReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true,
}

// judge looks at one created run. ok is true when the run is now complete
// locally (its outcome is o).
func (e *Executor) judge(ctx context.Context, opts runner.Options, t *runner.Tracker, r *kubeRun, job *batchv1.Job, pod *corev1.Pod) (o runner.Outcome, ok bool, err error) {
	si := models.SchedulerInfo{Executor: "kubernetes", Invocation: e.invocation(), JobID: r.job, Namespace: e.namespace()}
	if pod != nil {
		si.Pod, si.Node = pod.Name, pod.Spec.NodeName
		if pod.Status.Phase == corev1.PodRunning && !r.begun {
			r.begun = true
			t.Begin(r.i, r.pl)
		}
	}
	term := terminated(pod)
	failed := jobFailed(job)
	switch {
	case term != nil || (pod != nil && (pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)):
		// The container ran: its log carries the run directory.
		lastLine, err := e.collect(ctx, r, pod)
		if err == nil {
			o, err := runner.ReadOutcome(r.pl.Dir, opts.Timeout)
			if err != nil {
				return o, false, err
			}
			e.begin(t, r)
			return o, true, nil
		}
		if !errors.Is(err, runner.ErrNoArchive) {
			si.Reason = err.Error()
		}
		switch {
		case failed != nil:
			si.State, si.Reason = failed.Reason, failed.Message
		case pod.Status.Reason != "":
			si.State, si.Reason = pod.Status.Reason, pod.Status.Message
		case term != nil && term.Reason != "" && term.Reason != "Completed" && term.Reason != "Error":
			si.State, si.Reason = term.Reason, term.Message
		default:
			si.State = "Failed"
			if si.Reason == "" {
				si.Reason = "the pod ended without a run archive"
				if lastLine != "" {
					si.Reason += ": " + lastLine
				}
			}
		}
	case failed != nil:
		si.State, si.Reason = failed.Reason, failed.Message
	case pod != nil && pod.Status.Phase == corev1.PodPending:
		w := waiting(pod)
		if w == nil || !stuckReasons[w.Reason] {
			r.since = time.Time{}
			return o, false, nil
		}
		if r.since.IsZero() {
			r.since = time.Now()
		}
		if time.Since(r.since) < e.pendingTimeout() {
			return o, false, nil
		}
		si.State, si.Reason = w.Reason, w.Message
	case job == nil:
		// Deleted behind seshat's back (or not listed yet: wait a poll).
		if r.since.IsZero() {
			r.since = time.Now()
			return o, false, nil
		}
		if time.Since(r.since) < 2*e.pollInterval() {
			return o, false, nil
		}
		si.State, si.Reason = "Lost", "the Job no longer exists"
	default:
		return o, false, nil
	}
	o, err = runner.FinishByScheduler(r.pl.Dir, si, exitCode(si.State))
	if err != nil {
		t.Broken(r.i, r.pl, o, err)
		return o, false, err
	}
	e.begin(t, r)
	return o, true, nil
}

func (e *Executor) begin(t *runner.Tracker, r *kubeRun) {
	r.done = true
	if !r.begun {
		r.begun = true
		t.Begin(r.i, r.pl)
	}
}

// exitCode is what the executor writes in exit_code for a run Kubernetes
// ended in state (docs/artifacts.md).
func exitCode(state string) int {
	switch state {
	case "DeadlineExceeded":
		return runner.TimeoutExitCode
	case "OOMKilled":
		return runner.SchedulerKillExitCode
	case "Evicted", "Preempting", "Terminated", "Shutdown":
		return runner.SchedulerCancelExitCode
	}
	return runner.SchedulerLostExitCode
}

// collect reads the pod's log and unpacks the run archive into the local
// run directory. It returns the log's last line that is not part of an
// archive (for a failure's reason).
func (e *Executor) collect(ctx context.Context, r *kubeRun, pod *corev1.Pod) (string, error) {
	if pod == nil {
		return "", runner.ErrNoArchive
	}
	logs := e.Logs
	if logs == nil {
		logs = func(ctx context.Context, ns, name string) (io.ReadCloser, error) {
			return e.Client.PodLog(ctx, ns, name, container)
		}
	}
	rc, err := logs(ctx, pod.Namespace, pod.Name)
	if err != nil {
		return "", fmt.Errorf("read the log of pod %s: %w", pod.Name, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	_, err = runner.ExtractArchive(io.TeeReader(rc, &lastLines{w: &buf}), r.pl.Dir)
	return lastLineOf(buf.String()), err
}

// lastLines keeps the tail of what passes through it.
type lastLines struct{ w *bytes.Buffer }

func (l *lastLines) Write(p []byte) (int, error) {
	l.w.Write(p)
	if l.w.Len() > 8192 {
		tail := append([]byte(nil), l.w.Bytes()[l.w.Len()-4096:]...)
		l.w.Reset()
		l.w.Write(tail)
	}
	return len(p), nil
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "-----") && strings.Contains(l, " ") {
			return l
		}
	}
	return ""
}

func terminated(pod *corev1.Pod) *corev1.ContainerStateTerminated {
	if pod == nil {
		return nil
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == container && cs.State.Terminated != nil {
			return cs.State.Terminated
		}
	}
	return nil
}

func waiting(pod *corev1.Pod) *corev1.ContainerStateWaiting {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == container && cs.State.Waiting != nil {
			return cs.State.Waiting
		}
	}
	return nil
}

func jobFailed(job *batchv1.Job) *batchv1.JobCondition {
	if job == nil {
		return nil
	}
	for i, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// sweep takes the runs whose pods finished before the executor stopped,
// then returns; Execute deletes the Jobs.
func (e *Executor) sweep(ctx context.Context, opts runner.Options, t *runner.Tracker, runs []*kubeRun) error {
	bg := context.WithoutCancel(ctx)
	_, pods, err := e.list(bg)
	if err != nil {
		return nil
	}
	for _, r := range runs {
		pod := pods[r.job]
		if !r.created || r.done || pod == nil || (pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed) {
			continue
		}
		if _, err := e.collect(bg, r, pod); err != nil {
			continue
		}
		if o, err := runner.ReadOutcome(r.pl.Dir, opts.Timeout); err == nil {
			e.begin(t, r)
			t.End(r.i, r.pl, o)
		}
	}
	return nil
}

func (e *Executor) deleteJob(name string) {
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	err := e.Client.DeleteJob(ctx, e.namespace(), name)
	if err != nil && !apierrors.IsNotFound(err) {
		e.log().Warn(fmt.Sprintf("delete Job %s/%s: %v", e.namespace(), name, err))
	}
}

// cleanUp deletes every Job of the invocation still there, with its pods.
func (e *Executor) cleanUp() {
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	jl, err := e.Client.ListJobs(ctx, e.namespace(), e.selector())
	if err != nil {
		e.log().Warn(fmt.Sprintf("list Jobs to delete (%s): %v; delete them with kubectl delete jobs -l %s", e.selector(), err, e.selector()))
		return
	}
	names := make([]string, 0, len(jl.Items))
	for _, j := range jl.Items {
		names = append(names, j.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		e.deleteJob(n)
	}
	if len(names) > 0 {
		e.log().Info(fmt.Sprintf("deleted %d Jobs of invocation %s", len(names), e.invocation()))
	}
}
