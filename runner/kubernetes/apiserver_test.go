package kubernetes

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/seshat-bench/seshat/runner"
)

// testBinaries is where .ci/kube-testbin caches kube-apiserver and etcd
// (SESHAT_KUBE_TESTBIN overrides it).
func testBinaries() string {
	if d := os.Getenv("SESHAT_KUBE_TESTBIN"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "seshat", "kube-testbin", "kube-v1.37.2-etcd-v3.6.16")
}

// controlPlane runs etcd and kube-apiserver as envtest does: no
// scheduler, no controllers, no kubelet. The test plays all three.
type controlPlane struct {
	procs  []*exec.Cmd
	config *rest.Config
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startControlPlane(t testing.TB) *controlPlane {
	bin := testBinaries()
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			t.Skipf("no %s in %s: build them with .ci/kube-testbin (about 20 CPU-minutes, cached)", b, bin)
		}
	}
	dir := t.TempDir()
	cp := &controlPlane{}
	t.Cleanup(cp.stop)
	start := func(name string, args ...string) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		log, _ := os.Create(filepath.Join(dir, name+".log"))
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cp.procs = append(cp.procs, cmd)
	}
	etcdPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	start("etcd", "--data-dir", filepath.Join(dir, "etcd"), "--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort), "--unsafe-no-fsync")

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	saKey := filepath.Join(dir, "sa.key")
	os.WriteFile(saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
	tokens := filepath.Join(dir, "tokens.csv")
	os.WriteFile(tokens, []byte("seshat-test-token,admin,admin,system:masters\n"), 0o600)
	start("kube-apiserver", "--etcd-servers", etcdURL, "--cert-dir", filepath.Join(dir, "certs"),
		"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(apiPort), "--service-cluster-ip-range", "10.0.0.0/24",
		"--token-auth-file", tokens, "--authorization-mode", "RBAC", "--disable-admission-plugins", "ServiceAccount",
		"--service-account-issuer", "https://localhost", "--service-account-key-file", saKey,
		"--service-account-signing-key-file", saKey, "--kubelet-preferred-address-types", "InternalIP")
	cp.config = &rest.Config{Host: fmt.Sprintf("https://127.0.0.1:%d", apiPort), BearerToken: "seshat-test-token",
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	client, err := NewClient(cp.config)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		body, err := client.(*restAPI).core.Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver.log"))
			if len(log) > 3000 {
				log = log[len(log)-3000:]
			}
			t.Fatalf("kube-apiserver never became ready: %v\n%s", err, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return cp
}

func (cp *controlPlane) stop() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
}

// TestAPIServer runs the executor against a real kube-apiserver (and
// etcd), the test acting as the scheduler, the Job controller and the
// kubelet: it creates each Job's pod on a Node it registered, runs the
// container's command, sets the pod's phases, and serves the container's
// log on the kubelet endpoint the API server proxies pods/log to.
// apiServerCluster starts the control plane, the namespace "bench", and
// the test's node: a Node object whose kubelet endpoint serves the logs
// of the pods the test runs. It returns the executor's client (NewClient,
// as `seshat run` makes it) and the same REST clients as the node's API.
func apiServerCluster(t testing.TB) (Client, clusterAPI, *node) {
	cp := startControlPlane(t)
	exec, err := NewClient(cp.config)
	if err != nil {
		t.Fatal(err)
	}
	client := restCluster{exec.(*restAPI)}
	ctx := context.Background()
	if err := client.core.Post().Resource("namespaces").Body(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, client)
	// The kubelet's log endpoint: GET /containerLogs/NAMESPACE/POD/CONTAINER.
	kubelet := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
		if len(parts) != 3 {
			http.NotFound(w, r)
			return
		}
		rc, err := n.Logs(r.Context(), parts[0], parts[1])
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer rc.Close()
		w.Header().Set("Content-Type", "text/plain")
		buf := make([]byte, 32<<10)
		for {
			k, err := rc.Read(buf)
			w.Write(buf[:k])
			if err != nil {
				return
			}
		}
	}))
	kubelet.TLS = &tls.Config{}
	kubelet.StartTLS()
	t.Cleanup(kubelet.Close)
	port := kubelet.Listener.Addr().(*net.TCPAddr).Port
	nodeObj := &corev1.Node{}
	if err := client.core.Post().Resource("nodes").Body(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}).Do(ctx).Into(nodeObj); err != nil {
		t.Fatal(err)
	}
	nodeObj.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	nodeObj.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
	if err := client.core.Put().Resource("nodes").Name("node-1").SubResource("status").Body(nodeObj).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}

	return exec, client, n
}

func TestAPIServer(t *testing.T) {
	exec, client, n := apiServerCluster(t)
	ctx := context.Background()
	e := &Executor{Client: exec, Namespace: "bench", Image: "registry.example/seshat:1", Labels: map[string]string{"team": "perf"},
		PollInterval: 100 * time.Millisecond, PendingTimeout: 500 * time.Millisecond}
	opts := kubeOpts(t, "common_settings:\n  matrix_size: 512\nexpe:\n  e:\n    helper: exit 0\n    fault: [none, evict, oom, deadline, fail]\n    gpus: [0, 1]\n")
	for i := range opts.Points {
		if opts.Points[i].Settings["fault"] == "fail" {
			opts.Points[i].Settings["helper"] = "exit 3"
		}
	}
	opts.Executor = e
	start := time.Now()
	s, err := runner.Run(ctx, opts)
	t.Logf("%d runs through the API server in %s", s.Total, time.Since(start))
	if err == nil || s.Succeeded != 2 || s.Failed != 8 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	codes := map[string]int{}
	dirs, _ := filepath.Glob(filepath.Join(opts.ResultsDir, "e", "*"))
	for _, d := range dirs {
		o, err := runner.ReadOutcome(d, 0)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		codes[strings.SplitN(filepath.Base(d), "__", 2)[1]] = o.ExitCode
	}
	want := map[string]int{"fault=none_gpus=0": 0, "fault=none_gpus=1": 0, "fault=evict_gpus=0": 143, "fault=oom_gpus=1": 137,
		"fault=deadline_gpus=0": 124, "fault=fail_gpus=1": 3}
	for k, v := range want {
		if codes[k] != v {
			t.Errorf("%s: exit code %d, want %d (all: %v)", k, codes[k], v, codes)
		}
	}
	// pi-less helper output came back through the API server's pods/log.
	if got := readFile(t, filepath.Join(opts.ResultsDir, "e", "000__fault=none_gpus=0", runner.StdoutFile)); got != "helper output\n" {
		t.Errorf("stdout.log %q", got)
	}
	if jl, _ := client.ListJobs(ctx, "bench", ""); len(jl.Items) != 0 {
		t.Errorf("%d Jobs left", len(jl.Items))
	}
	j := n.job(jobName(e.invocation(), 1))
	if q := j.Spec.Template.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("GPU point limits %v", j.Spec.Template.Spec.Containers[0].Resources.Limits)
	}
}

var kubeBenchPoints = flag.Int("kube-points", 200, "points of BenchmarkAPIServerSubmitAndTrack")

// BenchmarkAPIServerSubmitAndTrack: the time to run a matrix of trivial
// points (the helper exiting 0) as Jobs through a real kube-apiserver, at
// most 8 at once, per point; the node is this test, so the figure is the
// executor's and the API server's overhead plus the cost of the point.
//
//	go test -run '^$' -bench APIServerSubmitAndTrack -benchtime 1x ./runner/kubernetes
func BenchmarkAPIServerSubmitAndTrack(b *testing.B) {
	exec, _, _ := apiServerCluster(b)
	src := fmt.Sprintf("expe:\n  e:\n    helper: exit 0\n    repeat: %d\n", *kubeBenchPoints)
	var total time.Duration
	for b.Loop() {
		opts := kubeOpts(b, src)
		opts.Executor = &Executor{Client: exec, Namespace: "bench", Image: "x", MaxParallel: 8, PollInterval: 200 * time.Millisecond}
		start := time.Now()
		s, err := runner.Run(context.Background(), opts)
		if err != nil || s.Succeeded != *kubeBenchPoints {
			b.Fatalf("%+v %v", s, err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(total.Seconds()/float64(b.N)/float64(*kubeBenchPoints)*1e3, "ms/point")
	b.ReportMetric(0, "ns/op")
}
