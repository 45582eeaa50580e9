package kubernetes

import (
	"context"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// Client is what the executor asks of the API server: Jobs created,
// listed and deleted, pods listed, a container's log read.
type Client interface {
	CreateJob(ctx context.Context, namespace string, job *batchv1.Job) error
	ListJobs(ctx context.Context, namespace, selector string) (*batchv1.JobList, error)
	// DeleteJob deletes a Job with propagation Background: its pods go too.
	DeleteJob(ctx context.Context, namespace, name string) error
	ListPods(ctx context.Context, namespace, selector string) (*corev1.PodList, error)
	PodLog(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)
}

// NewClient is the Client of the API server cfg names, client-go's REST
// client on a scheme of core/v1 and batch/v1 only.
//
// Why not the clientset (k8s.io/client-go/kubernetes): it imports every
// API group Kubernetes serves (56 packages of k8s.io/api, their typed
// clients and apply configurations, the OpenAPI models), for the five
// calls above. Without it a cold `go build ./cmd/seshat` compiles 575
// packages instead of 798: 146 CPU-seconds instead of 211, 79 s instead
// of 111 s on 2 idle cores. The tests use client-go's object tracker, not
// the fake clientset, which would add 234 packages to a cold `go test ./...`.
func NewClient(cfg *rest.Config) (Client, error) {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	codecs := serializer.NewCodecFactory(scheme).WithoutConversion()
	core, err := restClient(cfg, corev1.SchemeGroupVersion, "/api", codecs)
	if err != nil {
		return nil, err
	}
	batch, err := restClient(cfg, batchv1.SchemeGroupVersion, "/apis", codecs)
	if err != nil {
		return nil, err
	}
	return &restAPI{core: core, batch: batch, params: runtime.NewParameterCodec(scheme)}, nil
}

func restClient(cfg *rest.Config, gv schema.GroupVersion, path string, codecs runtime.NegotiatedSerializer) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = path
	c.NegotiatedSerializer = codecs
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", gv, err)
	}
	return rc, nil
}

// restAPI is the Client over REST.
type restAPI struct {
	core, batch *rest.RESTClient
	params      runtime.ParameterCodec
}

func (c *restAPI) CreateJob(ctx context.Context, ns string, job *batchv1.Job) error {
	return c.batch.Post().Namespace(ns).Resource("jobs").
		VersionedParams(&metav1.CreateOptions{}, c.params).Body(job).Do(ctx).Error()
}

func (c *restAPI) ListJobs(ctx context.Context, ns, selector string) (*batchv1.JobList, error) {
	var l batchv1.JobList
	err := c.batch.Get().Namespace(ns).Resource("jobs").
		VersionedParams(&metav1.ListOptions{LabelSelector: selector}, c.params).Do(ctx).Into(&l)
	return &l, err
}

func (c *restAPI) DeleteJob(ctx context.Context, ns, name string) error {
	background := metav1.DeletePropagationBackground
	return c.batch.Delete().Namespace(ns).Resource("jobs").Name(name).
		Body(&metav1.DeleteOptions{PropagationPolicy: &background}).Do(ctx).Error()
}

func (c *restAPI) ListPods(ctx context.Context, ns, selector string) (*corev1.PodList, error) {
	var l corev1.PodList
	err := c.core.Get().Namespace(ns).Resource("pods").
		VersionedParams(&metav1.ListOptions{LabelSelector: selector}, c.params).Do(ctx).Into(&l)
	return &l, err
}

func (c *restAPI) PodLog(ctx context.Context, ns, pod, container string) (io.ReadCloser, error) {
	return c.core.Get().Namespace(ns).Resource("pods").Name(pod).SubResource("log").
		VersionedParams(&corev1.PodLogOptions{Container: container}, c.params).Stream(ctx)
}
