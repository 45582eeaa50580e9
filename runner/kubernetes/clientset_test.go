package kubernetes

import (
	"context"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
)

// clientset is the executor's Client over a client-go clientset: the fake
// one of the executor tests, whose reactors stand in for the cluster.
type clientset struct{ k8s.Interface }

func (c clientset) CreateJob(ctx context.Context, ns string, job *batchv1.Job) error {
	_, err := c.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	return err
}

func (c clientset) ListJobs(ctx context.Context, ns, selector string) (*batchv1.JobList, error) {
	return c.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
}

func (c clientset) DeleteJob(ctx context.Context, ns, name string) error {
	background := metav1.DeletePropagationBackground
	return c.BatchV1().Jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
}

func (c clientset) ListPods(ctx context.Context, ns, selector string) (*corev1.PodList, error) {
	return c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
}

func (c clientset) PodLog(ctx context.Context, ns, pod, container string) (io.ReadCloser, error) {
	return c.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container}).Stream(ctx)
}
