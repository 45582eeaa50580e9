package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/workloads"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The test binary is also the seshat of the pods (run-point) and the PI
// below it (the SESHAT_HELPER modes).
func TestMain(m *testing.M) {
	if mode := os.Getenv("SESHAT_HELPER"); mode != "" {
		f := strings.Fields(mode)
		switch f[0] {
		case "exit":
			fmt.Println("helper output")
			n, _ := strconv.Atoi(f[1])
			os.Exit(n)
		case "sleep":
			time.Sleep(time.Hour)
		}
		os.Exit(99)
	}
	if len(os.Args) > 1 && os.Args[1] == "run-point" {
		os.Exit(testRunPoint(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// helperWorkload runs the test binary as the PI.
type helperWorkload struct{}

func (helperWorkload) CheckPoint(map[string]any) error { return nil }
func (helperWorkload) Command(req workloads.RunRequest) ([]string, error) {
	return []string{req.Self}, nil
}
func (helperWorkload) RunVersions(string) map[string]string {
	return map[string]string{"helper": "1.0"}
}
func (helperWorkload) GPUs(s map[string]any) int {
	n, _ := s["gpus"].(int)
	return n
}

func lookup(string) (workloads.Runner, error) { return helperWorkload{}, nil }

// testRunPoint is `seshat run-point` with the flags the Job passes.
func testRunPoint(args []string) int {
	fs := flag.NewFlagSet("run-point", flag.ContinueOnError)
	var o runner.PointOptions
	var si models.SchedulerInfo
	var archive bool
	fs.StringVar(&o.Dir, "dir", "", "")
	fs.DurationVar(&o.Timeout, "timeout", 0, "")
	fs.StringVar(&o.Prelude, "prelude", "", "")
	fs.BoolVar(&archive, "archive", false, "")
	for _, f := range []struct {
		name string
		p    *string
	}{{"executor", &si.Executor}, {"invocation", &si.Invocation}, {"job-id", &si.JobID}, {"node", &si.Node}, {"pod", &si.Pod}, {"namespace", &si.Namespace}, {"python", new(string)}} {
		fs.StringVar(f.p, f.name, "", "")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, _ := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	o.Self, o.Env, o.Scheduler, o.Lookup = os.Args[0], os.Environ(), &si, lookup
	o.HWInfo = models.HWInfo{Hostname: si.Node}
	if archive {
		o.Archive = os.Stdout
	}
	out, err := runner.RunPoint(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "run-point:", err)
		return 1
	}
	return out.ExitCode
}

// node plays the kubelet and the Job controller against a fake API: for
// each new Job it creates a pod and runs its container's command with this
// binary as seshat, or injects the fault the point's `fault` setting names.
type node struct {
	t      testing.TB
	client clusterAPI
	root   string // the pods' emptyDirs
	mu     sync.Mutex
	logs   map[string][]byte    // pod name -> log
	procs  map[string]*exec.Cmd // job name -> running container
	termed map[string]bool      // job name -> its container was sent SIGTERM
	halted bool                 // the node is stopping: no container may go on
	seen   map[string]bool
	jobs   map[string]batchv1.Job // as created
	pods   sync.WaitGroup         // runPod goroutines
	stop   chan struct{}
	done   chan struct{}
}

// nodeGrace is how long a container has between SIGTERM and SIGKILL when
// the node stops (a kubelet's terminationGracePeriodSeconds).
const nodeGrace = 10 * time.Second

// startNode starts the node; the test's cleanup stops it and waits for
// every container to exit. The executor does not wait for the pods of the
// Jobs it deletes (they write only into their emptyDir, never into the
// local results tree), so a container told to stop may still be writing
// its run directory when the test returns: the node's cleanup, registered
// after its emptyDirs' TempDir, runs before they are removed.
func startNode(t testing.TB, client clusterAPI) *node {
	n := &node{t: t, client: client, root: t.TempDir(), logs: map[string][]byte{}, procs: map[string]*exec.Cmd{},
		termed: map[string]bool{}, seen: map[string]bool{}, jobs: map[string]batchv1.Job{}, stop: make(chan struct{}), done: make(chan struct{})}
	go n.loop()
	t.Cleanup(func() {
		close(n.stop)
		<-n.done
		exited := make(chan struct{})
		go func() {
			n.pods.Wait()
			close(exited)
		}()
		select {
		case <-exited:
			return
		case <-time.After(nodeGrace):
		}
		n.mu.Lock()
		for _, p := range n.procs {
			p.Process.Kill()
		}
		n.mu.Unlock()
		<-exited
	})
	return n
}

func (n *node) loop() {
	defer close(n.done)
	for {
		select {
		case <-n.stop:
			// As a kubelet: SIGTERM, so that run-point stops its PI
			// (SIGKILL would leave it running); startNode's cleanup waits.
			n.mu.Lock()
			n.halted = true
			for _, p := range n.procs {
				p.Process.Signal(syscall.SIGTERM)
			}
			n.mu.Unlock()
			return
		case <-time.After(20 * time.Millisecond):
		}
		ctx := context.Background()
		jl, err := n.client.ListJobs(ctx, "", "")
		if err != nil {
			continue
		}
		live := map[string]bool{}
		for _, j := range jl.Items {
			live[j.Name] = true
			if !n.seen[j.Name] {
				n.seen[j.Name] = true
				n.mu.Lock()
				n.jobs[j.Name] = j
				n.mu.Unlock()
				n.pods.Add(1)
				go func() {
					defer n.pods.Done()
					n.runPod(j)
				}()
			}
		}
		// A deleted Job's pod dies (the garbage collector's part).
		n.mu.Lock()
		for name, p := range n.procs {
			if !live[name] && !n.termed[name] {
				p.Process.Signal(syscall.SIGTERM)
				n.termed[name] = true
			}
		}
		n.mu.Unlock()
	}
}

func (n *node) runPod(j batchv1.Job) {
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: j.Name + "-abcde", Namespace: j.Namespace, Labels: j.Spec.Template.Labels,
		CreationTimestamp: metav1.Now()}, Spec: j.Spec.Template.Spec}
	pod.Spec.NodeName = "node-1"
	pod.Status.Phase = corev1.PodPending
	if err := n.client.CreatePod(ctx, pod); err != nil {
		n.t.Errorf("create pod: %v", err)
		return
	}
	setStatus := func(phase corev1.PodPhase, reason string, cs *corev1.ContainerState) {
		pod.Status.Phase, pod.Status.Reason = phase, reason
		if cs != nil {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: container, State: *cs}}
		}
		n.client.UpdatePodStatus(ctx, pod)
	}
	settings := j.Annotations[AnnotationPoint]
	switch {
	case strings.Contains(settings, "fault=evict"):
		setStatus(corev1.PodFailed, "Evicted", nil)
		return
	case strings.Contains(settings, "fault=oom"):
		setStatus(corev1.PodFailed, "", &corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}})
		return
	case strings.Contains(settings, "fault=pull"):
		setStatus(corev1.PodPending, "", &corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}})
		return
	case strings.Contains(settings, "fault=deadline"):
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline"}}
		n.client.UpdateJobStatus(ctx, &j)
		setStatus(corev1.PodFailed, "DeadlineExceeded", nil)
		return
	}
	c := j.Spec.Template.Spec.Containers[0]
	// Each pod has its own emptyDir.
	emptyDir, err := os.MkdirTemp(n.root, "pod")
	if err != nil {
		n.t.Errorf("pod emptyDir: %v", err)
		return
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		a = strings.ReplaceAll(a, filepath.Dir(podDir), emptyDir)
		a = strings.ReplaceAll(a, "$(POD_NODE_NAME)", pod.Spec.NodeName)
		a = strings.ReplaceAll(a, "$(POD_NAME)", pod.Name)
		args[i] = strings.ReplaceAll(a, "$(POD_NAMESPACE)", pod.Namespace)
	}
	cmd := exec.Command(os.Args[0], args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		n.t.Errorf("start the container: %v", err)
		return
	}
	n.mu.Lock()
	n.procs[j.Name] = cmd
	if n.halted {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	n.mu.Unlock()
	setStatus(corev1.PodRunning, "", &corev1.ContainerState{Running: &corev1.ContainerStateRunning{}})
	err = cmd.Wait()
	n.mu.Lock()
	delete(n.procs, j.Name)
	n.logs[pod.Name] = log.Bytes()
	n.mu.Unlock()
	code := cmd.ProcessState.ExitCode()
	phase := corev1.PodSucceeded
	if err != nil {
		phase = corev1.PodFailed
	}
	setStatus(phase, "", &corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(code)}})
}

// Logs serves the pod logs: the fake API has none of its own.
func (n *node) Logs(_ context.Context, _, pod string) (io.ReadCloser, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	data, ok := n.logs[pod]
	if !ok {
		return nil, errors.New("no log")
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (n *node) job(name string) batchv1.Job {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.jobs[name]
}

func kubeOpts(t testing.TB, src string) runner.Options {
	t.Helper()
	b, err := runner.ParseBenchmark("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exps, _ := b.Select(nil)
	points, err := runner.Expand(b, exps, "helper", nil)
	if err != nil {
		t.Fatal(err)
	}
	return runner.Options{ResultsDir: t.TempDir(), Points: points, Self: os.Args[0], Lookup: lookup, Env: os.Environ()}
}

func newExecutor(client *fakeAPI, n *node) *Executor {
	return &Executor{Client: client, Namespace: "bench", Image: "registry.example/seshat:1", ServiceAccount: "seshat",
		NodeSelector: map[string]string{"gpu": "a100"}, Labels: map[string]string{"team": "perf"},
		Tolerations:  []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		PollInterval: 50 * time.Millisecond, PendingTimeout: 200 * time.Millisecond, Logs: n.Logs, Invocation: "0123abcd"}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestKubernetesRunsTheMatrix: runs come back complete from the pods'
// logs, and every way a pod can fail becomes a failed run with its reason.
func TestKubernetesRunsTheMatrix(t *testing.T) {
	t.Parallel()
	client := newFakeAPI(t)
	n := startNode(t, client)
	e := newExecutor(client, n)
	opts := kubeOpts(t, "common_settings:\n  matrix_size: 512\nexpe:\n  e:\n    helper: exit 0\n    fault: [none, evict, oom, deadline, pull, fail]\n    gpus: 1\n")
	// The last point fails by itself: its exit code travels back like any data.
	opts.Points[5].Settings["helper"] = "exit 3"
	opts.Executor = e
	build := &models.Build{ID: "github-4242", Commit: "89abcdef", CI: &models.CI{Engine: "github", RunID: "4242"}}
	opts.Build = build
	var log bytes.Buffer
	opts.Progress = &runner.LogProgress{W: &log, ResultsDir: opts.ResultsDir}
	s, err := runner.Run(context.Background(), opts)
	if err == nil || s.Succeeded != 1 || s.Failed != 5 || s.NotRun != 0 {
		t.Fatalf("summary %+v, error %v\n%s", s, err, log.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(opts.ResultsDir, "e", "*"))
	sort.Strings(dirs)
	want := []struct{ code, state string }{{"0", ""}, {"143", "Evicted"}, {"137", "OOMKilled"}, {"124", "DeadlineExceeded"}, {"1", "ImagePullBackOff"}, {"3", ""}}
	if len(dirs) != len(want) {
		t.Fatalf("run directories %v", dirs)
	}
	for i, dir := range dirs {
		if got := strings.TrimSpace(readFile(t, filepath.Join(dir, runner.ExitCodeFile))); got != want[i].code {
			t.Errorf("%s: exit_code %s, want %s", filepath.Base(dir), got, want[i].code)
		}
		var si models.SchedulerInfo
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, runner.SchedulerFile))), &si); err != nil {
			t.Fatal(err)
		}
		if si.State != want[i].state || si.Executor != "kubernetes" || si.JobID != jobName("0123abcd", i) || si.Namespace != "bench" || si.Node != "node-1" {
			t.Errorf("%s: scheduler.json %+v", filepath.Base(dir), si)
		}
		if want[i].state == "" {
			// Measured in the pod: what the node ran, with the PI's output.
			var hw models.HWInfo
			json.Unmarshal([]byte(readFile(t, filepath.Join(dir, runner.HWInfoFile))), &hw)
			if hw.Hostname != "node-1" || hw.Versions["helper"] != "1.0" || si.Pod != si.JobID+"-abcde" {
				t.Errorf("%s: hwinfo %+v, scheduler %+v", filepath.Base(dir), hw, si)
			}
			if got := readFile(t, filepath.Join(dir, runner.StdoutFile)); got != "helper output\n" {
				t.Errorf("%s: stdout.log %q", filepath.Base(dir), got)
			}
			for _, f := range []string{runner.SettingsFile, runner.UUIDFile, runner.ConfigFile, runner.BuildFile, runner.UsageFile, runner.StderrFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s: %v", filepath.Base(dir), err)
				}
			}
		} else if got := readFile(t, filepath.Join(dir, runner.StderrFile)); !strings.Contains(got, "kubernetes ended the run: "+want[i].state) {
			t.Errorf("%s: stderr.log %q", filepath.Base(dir), got)
		}
	}
	// The Jobs carried what the config asked for, and the pod got the
	// run's first files, build.json among them.
	j := n.job(jobName("0123abcd", 0))
	args := j.Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--prelude"); i < 0 || i+1 >= len(args) {
		t.Errorf("job args %q lack --prelude", args)
	} else {
		pod := t.TempDir()
		names, err := runner.ExtractPayload([]byte(args[i+1]), pod)
		var b models.Build
		if err == nil {
			err = json.Unmarshal([]byte(readFile(t, filepath.Join(pod, runner.BuildFile))), &b)
		}
		if err != nil || !reflect.DeepEqual(&b, build) {
			t.Errorf("prelude %q: build.json %+v (%v), want %+v", names, b, err, *build)
		}
	}
	spec := j.Spec.Template.Spec
	if j.Labels[LabelInvocation] != "0123abcd" || j.Labels["team"] != "perf" || j.Labels[LabelManagedBy] != "seshat" ||
		spec.ServiceAccountName != "seshat" || spec.NodeSelector["gpu"] != "a100" || len(spec.Tolerations) != 1 ||
		spec.Containers[0].Resources.Limits.Name("nvidia.com/gpu", "").Value() != 1 || *j.Spec.BackoffLimit != 0 {
		t.Errorf("job %+v", j)
	}
	// Everything the invocation created is gone, deleted with its pods.
	if jl, _ := client.ListJobs(context.Background(), "bench", ""); len(jl.Items) != 0 {
		t.Errorf("%d Jobs left", len(jl.Items))
	}
	deletes := 0
	for _, a := range client.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && d.GetResource().Resource == "jobs" {
			deletes++
			if p := d.DeleteOptions.PropagationPolicy; p == nil || *p != metav1.DeletePropagationBackground {
				t.Errorf("Job %s deleted without propagation to its pods", d.Name)
			}
		}
	}
	if deletes != 6 {
		t.Errorf("%d Jobs deleted, want 6", deletes)
	}
}

// TestKubernetesInterrupt: SIGINT deletes the Jobs and leaves the running
// run without exit_code; the run completed before stays.
func TestKubernetesInterrupt(t *testing.T) {
	t.Parallel()
	client := newFakeAPI(t)
	n := startNode(t, client)
	e := newExecutor(client, n)
	e.MaxParallel = 1
	opts := kubeOpts(t, "expe:\n  e:\n    helper: [exit 0, sleep, exit 1]\n")
	opts.Executor = e
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if pl, _ := client.ListPods(context.Background(), "bench", ""); len(pl.Items) == 2 && pl.Items[1].Status.Phase == corev1.PodRunning {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	s, err := runner.Run(ctx, opts)
	if !s.Interrupted || err == nil || s.Succeeded != 1 || s.NotRun != 2 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	dirs, _ := filepath.Glob(filepath.Join(opts.ResultsDir, "e", "*"))
	sort.Strings(dirs)
	if len(dirs) != 3 {
		t.Fatalf("dirs %v", dirs)
	}
	if _, err := os.Stat(filepath.Join(dirs[1], runner.ExitCodeFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted run has exit_code: %v", err)
	}
	if jl, _ := client.ListJobs(context.Background(), "bench", ""); len(jl.Items) != 0 {
		t.Errorf("%d Jobs left", len(jl.Items))
	}
}

// TestKubernetesStopOnError: --stop-on-error stops at the first failed
// run: the Job running beside it is deleted and its run left without
// exit_code, no further Job is created, and nothing stays in the cluster.
func TestKubernetesStopOnError(t *testing.T) {
	t.Parallel()
	client := newFakeAPI(t)
	n := startNode(t, client)
	e := newExecutor(client, n)
	e.MaxParallel = 2
	opts := kubeOpts(t, "expe:\n  e:\n    helper: [exit 2, sleep, exit 0]\n")
	opts.Executor = e
	opts.StopOnError = true
	// Without --stop-on-error the sleeping run would last an hour: fail
	// within a minute instead.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := runner.Run(ctx, opts)
	if err == nil || !s.StoppedOnError || s.Failed != 1 || s.Succeeded != 0 || s.NotRun != 2 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	dirs, _ := filepath.Glob(filepath.Join(opts.ResultsDir, "e", "*"))
	sort.Strings(dirs)
	if len(dirs) != 3 {
		t.Fatalf("dirs %v", dirs)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(dirs[0], runner.ExitCodeFile))); got != "2" {
		t.Errorf("the failed run's exit_code %q", got)
	}
	for _, d := range dirs[1:] {
		if _, err := os.Stat(filepath.Join(d, runner.ExitCodeFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, not run, has exit_code: %v", filepath.Base(d), err)
		}
	}
	created := map[string]bool{}
	for _, a := range client.Actions() {
		if c, ok := a.(k8stesting.CreateActionImpl); ok && c.GetResource().Resource == "jobs" {
			created[c.GetObject().(*batchv1.Job).Name] = true
		}
	}
	if len(created) != 2 || created[jobName("0123abcd", 2)] {
		t.Errorf("Jobs created %v, want the first two only", created)
	}
	if jl, _ := client.ListJobs(context.Background(), "bench", ""); len(jl.Items) != 0 {
		t.Errorf("%d Jobs left", len(jl.Items))
	}
}

// TestKubernetesDryRun: the Job manifests --dry-run prints (a golden).
func TestKubernetesDryRun(t *testing.T) {
	t.Parallel()
	opts := kubeOpts(t, "expe:\n  e:\n    helper: exit 0\n    gpus: [0, 2]\n")
	opts.ResultsDir = "/results"
	opts.Timeout = 10 * time.Minute
	e := newExecutor(newFakeAPI(t), &node{})
	e.Logs = nil
	plan, err := runner.Plan(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := e.DryRun(&out, opts, plan); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "dryrun.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, out.Bytes(), 0o644)
	}
	if want, err := os.ReadFile(path); err != nil || !bytes.Equal(out.Bytes(), want) {
		t.Errorf("manifests differ from %s (go test -update to accept): %v\n%s", path, err, out.String())
	}
	if !reflect.DeepEqual(strings.Count(out.String(), "kind: Job"), 2) {
		t.Errorf("want two Jobs:\n%s", out.String())
	}
}
