package kubernetes

import (
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// Config is the config file's `executor.kubernetes` section as the
// executor takes it (docs/run.md): the Jobs' shape, the context and
// namespace of the cluster. Its values are checked by New.
type Config struct {
	Context          string
	Namespace        string
	Image            string
	ImagePullPolicy  string
	ImagePullSecrets []string
	ServiceAccount   string
	NodeSelector     map[string]string
	Tolerations      []Toleration
	// Requests and Limits map resource names to quantities ("2", "4Gi").
	Requests, Limits map[string]string
	GPUResource      string
	Labels           map[string]string
	MaxParallel      int
	PollInterval     time.Duration
	Seshat           string
}

// Toleration is one entry of `executor.kubernetes.tolerations`, as in a
// pod spec.
type Toleration struct {
	Key, Operator, Value, Effect string
	TolerationSeconds            *int64
}

// Cluster is where the executor finds its API server, as the command
// layer resolved it (kubectl's rules): the kubeconfig the config file
// names, else the files to merge, else the pod's service account.
type Cluster struct {
	// Kubeconfig is the file the config file names: it must exist.
	Kubeconfig string
	// Search lists the kubeconfig files merged when Kubeconfig is "",
	// first wins; missing ones are skipped.
	Search []string
	// InCluster is https://host:port of the API server of the pod seshat
	// runs in ("" outside a pod).
	InCluster string
}

// New builds the executor from c, talking to the API server of cluster.
// Bad values are InvalidInput errors naming the config key. A dry run
// contacts nothing: without a cluster to talk to it still prints the Jobs,
// in c.Namespace or else "default", unless a kubeconfig the config names
// cannot be read.
func New(c Config, cluster Cluster, dryRun bool, log *slog.Logger) (*Executor, error) {
	bad := func(key, format string, args ...any) error {
		return exitcode.Errorf(exitcode.InvalidInput, "config key executor.kubernetes.%s: "+format, append([]any{key}, args...)...)
	}
	if c.Image == "" {
		return nil, bad("image", "required: an image with seshat and the PIs' dependencies (see the Containerfile)")
	}
	e := &Executor{Namespace: c.Namespace, Image: c.Image, ImagePullPolicy: corev1.PullPolicy(c.ImagePullPolicy),
		ImagePullSecrets: c.ImagePullSecrets, ServiceAccount: c.ServiceAccount, NodeSelector: c.NodeSelector,
		GPUResource: corev1.ResourceName(c.GPUResource), Labels: c.Labels, MaxParallel: c.MaxParallel,
		PollInterval: c.PollInterval, Seshat: c.Seshat, Log: log}
	switch e.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return nil, bad("image_pull_policy", "%q is not Always, IfNotPresent or Never", c.ImagePullPolicy)
	}
	var err error
	if e.Requests, err = resourceList("requests", c.Requests); err != nil {
		return nil, err
	}
	if e.Limits, err = resourceList("limits", c.Limits); err != nil {
		return nil, err
	}
	for i, t := range c.Tolerations {
		op := corev1.TolerationOperator(t.Operator)
		if op != "" && op != corev1.TolerationOpExists && op != corev1.TolerationOpEqual {
			return nil, bad(fmt.Sprintf("tolerations[%d].operator", i), "%q is not Exists or Equal", t.Operator)
		}
		e.Tolerations = append(e.Tolerations, corev1.Toleration{Key: t.Key, Operator: op, Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	if c.MaxParallel < 0 {
		return nil, bad("max_parallel", "must not be negative")
	}
	rc, ns, err := restConfig(cluster, c.Context)
	if err != nil && dryRun && cluster.Kubeconfig == "" {
		if e.Namespace == "" {
			e.Namespace = "default"
		}
		e.log().Warn(fmt.Sprintf("--executor kubernetes: no cluster to talk to (%v); a dry run needs none: the Jobs are shown in namespace %s", err, e.Namespace))
		return e, nil
	}
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--executor kubernetes: no cluster to talk to: %w", err)
	}
	if e.Namespace == "" {
		e.Namespace = ns
	}
	if dryRun {
		return e, nil // no client: nothing is contacted
	}
	if e.Client, err = NewClient(rc); err != nil {
		return nil, fmt.Errorf("--executor kubernetes: %w", err)
	}
	return e, nil
}

// serviceAccount is where a pod finds its service account's credentials.
const serviceAccount = "/var/run/secrets/kubernetes.io/serviceaccount/"

// restConfig is the client configuration of the cluster and the namespace
// it names. It is built from the files named, never from client-go's
// default loading rules, which read KUBECONFIG and HOME themselves.
func restConfig(cl Cluster, kubeContext string) (*rest.Config, string, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: cl.Kubeconfig, Precedence: cl.Search}
	kc, err := rules.Load()
	if err != nil {
		return nil, "", err
	}
	if cl.Kubeconfig == "" && len(kc.Clusters) == 0 {
		if cl.InCluster == "" {
			return nil, "", fmt.Errorf("no kubeconfig found (looked for %s) and not in a pod", strings.Join(cl.Search, ", "))
		}
		// The pod's service account, as rest.InClusterConfig finds it.
		if _, err := os.Stat(serviceAccount + "token"); err != nil {
			return nil, "", fmt.Errorf("in a pod, but no service account token: %w", err)
		}
		ns, _ := os.ReadFile(serviceAccount + "namespace")
		return &rest.Config{Host: cl.InCluster, BearerTokenFile: serviceAccount + "token",
			TLSClientConfig: rest.TLSClientConfig{CAFile: serviceAccount + "ca.crt"}}, strings.TrimSpace(string(ns)), nil
	}
	cc := clientcmd.NewNonInteractiveClientConfig(*kc, kubeContext, &clientcmd.ConfigOverrides{CurrentContext: kubeContext}, rules)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", err
	}
	return rc, ns, nil
}

func resourceList(key string, m map[string]string) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := corev1.ResourceList{}
	var bad []string
	for _, k := range names {
		q, err := resource.ParseQuantity(m[k])
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %q: %v", k, m[k], err))
			continue
		}
		out[corev1.ResourceName(k)] = q
	}
	if len(bad) > 0 {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "config key executor.kubernetes.%s: %s", key, strings.Join(bad, "; "))
	}
	return out, nil
}
