package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seshat.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunCommandExecutorDryRun: --dry-run with a scheduler prints what
// would be submitted and submits (and writes) nothing; no cluster is needed.
func TestRunCommandExecutorDryRun(t *testing.T) {
	t.Parallel()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: bench}}]
current-context: x
`), 0o600)
	config := writeConfig(t, "executor:\n  slurm:\n    partition: cpu\n  kubernetes:\n    kubeconfig: "+kubeconfig+"\n    image: registry.example/seshat:1\n")
	tests := []struct {
		executor string
		want     []string
	}{
		{"slurm", []string{"#!/bin/bash\n", "#SBATCH --array=0-3\n", "#SBATCH --partition=cpu\n", "matmul/003__matrix_size=32_dtype=float64'", " run-point "}},
		{"kubernetes", []string{"kind: Job\n", "namespace: bench\n", "image: registry.example/seshat:1\n", "seshat.dev/run-dir: matmul/003__matrix_size=32_dtype=float64\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.executor, func(t *testing.T) {
			t.Parallel()
			results := filepath.Join(t.TempDir(), "results")
			r := runSeshat(t, nil, "--config", config, "run", "--executor", tc.executor, "--dry-run",
				"--benchmark", writeBenchmark(t, gonumBenchmark), "--results-dir", results, "--expe", "matmul")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, "4 points, 4 to run, nothing submitted") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			if _, err := os.Stat(results); err == nil {
				t.Error("--dry-run wrote the results directory")
			}
		})
	}
}

func TestRunCommandExecutorInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config, executor, want string
	}{
		{"unknown executor", "", "pbs", `--executor: unknown executor "pbs"`},
		{"kubernetes without image", "", "kubernetes", "executor.kubernetes.image: required"},
		{"bad quantity", "executor:\n  kubernetes:\n    image: x\n    requests: {cpu: lots}\n", "kubernetes", `executor.kubernetes.requests: cpu: "lots"`},
		{"bad duration", "executor:\n  slurm:\n    poll_interval: often\n", "slurm", `executor.slurm.poll_interval: invalid duration "often"`},
		{"from the config file", "executor:\n  name: lsf\n", "", `unknown executor "lsf"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--config", writeConfig(t, tc.config), "run", "--dry-run", "--benchmark", writeBenchmark(t, gonumBenchmark)}
			if tc.executor != "" {
				args = append(args, "--executor", tc.executor)
			}
			r := runSeshat(t, nil, args...)
			if r.code != 4 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// TestRunCommandFindsTheCluster: the kubernetes executor finds its cluster
// as kubectl does, from the fake process's environment only: the config's
// kubeconfig (`~/` is HOME), else the KUBECONFIG list, else
// ~/.kube/config, else the pod's service account. A dry run contacts
// nothing: without any of them it still prints the Jobs (namespace
// default), saying why no cluster was found; a kubeconfig the config names
// must be readable all the same.
func TestRunCommandFindsTheCluster(t *testing.T) {
	t.Parallel()
	kubeconfig := func(dir, namespace string) string {
		path := filepath.Join(dir, namespace+".yaml")
		os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: `+namespace+`}}]
current-context: x
`), 0o600)
		return path
	}
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".kube"), 0o755)
	os.Rename(kubeconfig(home, "home"), filepath.Join(home, ".kube", "config"))
	kubeconfig(home, "perf")
	other := kubeconfig(t.TempDir(), "listed")
	empty := t.TempDir()
	tests := []struct {
		name, kubeconfig string
		env              map[string]string
		code             int
		stdout, stderr   string // what each must hold
	}{
		{"config file, ~ expanded", "~/perf.yaml", map[string]string{"HOME": home, "KUBECONFIG": other}, 0, "namespace: perf\n", ""},
		{"KUBECONFIG list", "", map[string]string{"HOME": home, "KUBECONFIG": filepath.Join(empty, "missing") + ":" + other}, 0, "namespace: listed\n", ""},
		{"~/.kube/config", "", map[string]string{"HOME": home}, 0, "namespace: home\n", ""},
		{"nothing", "", map[string]string{"HOME": empty}, 0, "namespace: default\n",
			"no cluster to talk to (no kubeconfig found (looked for " + filepath.Join(empty, ".kube", "config") + ") and not in a pod); a dry run needs none"},
		{"in a pod", "", map[string]string{"HOME": empty, "KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}, 0, "namespace: default\n", "in a pod, but no service account token"},
		{"missing file", "~/absent.yaml", map[string]string{"HOME": home}, 4, "", filepath.Join(home, "absent.yaml")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			config := "executor:\n  kubernetes:\n    image: registry.example/seshat:1\n"
			if tc.kubeconfig != "" {
				config += "    kubeconfig: " + tc.kubeconfig + "\n"
			}
			r := runSeshat(t, tc.env, "--config", writeConfig(t, config), "run", "--executor", "kubernetes", "--dry-run",
				"--benchmark", writeBenchmark(t, gonumBenchmark), "--results-dir", filepath.Join(t.TempDir(), "results"), "--expe", "matmul")
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, want %d with %q on stdout and %q on stderr\nstdout:\n%.300s\nstderr:\n%s", r.code, tc.code, tc.stdout, tc.stderr, r.stdout, r.stderr)
			}
		})
	}
}

// TestRunCommandKubernetesNeedsCluster: a real run, unlike a dry one,
// refuses without a cluster before creating anything.
func TestRunCommandKubernetesNeedsCluster(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshat(t, map[string]string{"HOME": t.TempDir()}, "--config", writeConfig(t, "executor:\n  kubernetes:\n    image: registry.example/seshat:1\n"),
		"run", "--executor", "kubernetes", "--benchmark", writeBenchmark(t, gonumBenchmark), "--results-dir", results, "--expe", "matmul")
	if r.code != 4 || !strings.Contains(r.stderr, "--executor kubernetes: no cluster to talk to: no kubeconfig found") {
		t.Errorf("exit %d, want 4 naming the missing cluster\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(results); err == nil {
		t.Error("the refused run wrote the results directory")
	}
}
