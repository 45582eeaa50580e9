package pipeline

import (
	"fmt"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/seshat-bench/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/runner/kubernetes"
)

// newKubernetes builds the kubernetes executor from `executor.kubernetes`:
// the API server from the cluster the command layer found (kubeconfig
// files, else the pod's service account), the Jobs' shape from the rest.
// Bad values are InvalidInput errors naming the key. A dry run contacts
// nothing: without a cluster to talk to it still prints the Jobs, in
// executor.kubernetes.namespace or else "default", unless a kubeconfig the
// config names cannot be read.
func newKubernetes(env Env, c config.Kubernetes, cluster config.Cluster, dryRun bool) (runner.Executor, error) {
	bad := func(key, format string, args ...any) error {
		return exitcode.Errorf(exitcode.InvalidInput, "config key executor.kubernetes.%s: "+format, append([]any{key}, args...)...)
	}
	if c.Image == "" {
		return nil, bad("image", "required: an image with seshat and the PIs' dependencies (see the Containerfile)")
	}
	e := &kubernetes.Executor{Namespace: c.Namespace, Image: c.Image, ImagePullPolicy: corev1.PullPolicy(c.ImagePullPolicy),
		ImagePullSecrets: c.ImagePullSecrets, ServiceAccount: c.ServiceAccount, NodeSelector: c.NodeSelector,
		GPUResource: corev1.ResourceName(c.GPUResource), Labels: c.Labels, MaxParallel: c.MaxParallel, Seshat: c.Seshat, Log: env.Log}
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
	if e.PollInterval, err = configDuration("executor.kubernetes.poll_interval", c.PollInterval); err != nil {
		return nil, err
	}
	if c.MaxParallel < 0 {
		return nil, bad("max_parallel", "must not be negative")
	}
	rc, ns, err := restConfig(cluster, c.Context)
	if err != nil && dryRun && cluster.Kubeconfig == "" {
		if e.Namespace == "" {
			e.Namespace = "default"
		}
		env.Log.Warn(fmt.Sprintf("--executor kubernetes: no cluster to talk to (%v); a dry run needs none: the Jobs are shown in namespace %s", err, e.Namespace))
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
	if e.Client, err = kubernetes.NewClient(rc); err != nil {
		return nil, fmt.Errorf("--executor kubernetes: %w", err)
	}
	return e, nil
}

// serviceAccount is where a pod finds its service account's credentials.
const serviceAccount = "/var/run/secrets/kubernetes.io/serviceaccount/"

// restConfig is the client configuration of the cluster and the namespace
// it names. It is built from the files named, never from client-go's
// default loading rules, which read KUBECONFIG and HOME themselves.
func restConfig(cl config.Cluster, kubeContext string) (*rest.Config, string, error) {
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
