package kubernetes

import (
	"context"
	"io"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	k8stesting "k8s.io/client-go/testing"
)

// clusterAPI is what the tests' node (kubelet and Job controller) asks of
// the API server besides the executor's Client: pods created, pod and Job
// statuses written.
type clusterAPI interface {
	Client
	CreatePod(ctx context.Context, pod *corev1.Pod) error
	UpdatePodStatus(ctx context.Context, pod *corev1.Pod) error
	UpdateJobStatus(ctx context.Context, job *batchv1.Job) error
}

var (
	jobsResource = batchv1.SchemeGroupVersion.WithResource("jobs")
	jobKind      = batchv1.SchemeGroupVersion.WithKind("Job")
	podsResource = corev1.SchemeGroupVersion.WithResource("pods")
	podKind      = corev1.SchemeGroupVersion.WithKind("Pod")
)

// fakeAPI is the executor tests' API server: client-go's object tracker
// behind client-go's testing.Fake, which records every action, on a scheme
// of core/v1 and batch/v1 only, as NewClient's. Not the fake clientset
// (k8s.io/client-go/kubernetes/fake): that one compiles every API group's
// typed client and fake, about 440 packages, for this one test package.
type fakeAPI struct {
	k8stesting.Fake
}

func newFakeAPI(t testing.TB) *fakeAPI {
	t.Helper()
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	tracker := k8stesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	f := &fakeAPI{}
	f.AddReactor("*", "*", k8stesting.ObjectReaction(tracker))
	return f
}

func (f *fakeAPI) CreateJob(_ context.Context, ns string, job *batchv1.Job) error {
	_, err := f.Invokes(k8stesting.NewCreateAction(jobsResource, ns, job), &batchv1.Job{})
	return err
}

// ListJobs lists the Jobs of ns ("" for every namespace) that selector
// matches, as the fake clientset did: the tracker lists, the client
// filters by label.
func (f *fakeAPI) ListJobs(_ context.Context, ns, selector string) (*batchv1.JobList, error) {
	l, err := f.list(jobsResource, jobKind, &batchv1.JobList{}, ns, selector)
	if err != nil {
		return nil, err
	}
	return l.(*batchv1.JobList), nil
}

func (f *fakeAPI) DeleteJob(_ context.Context, ns, name string) error {
	background := metav1.DeletePropagationBackground
	_, err := f.Invokes(k8stesting.NewDeleteActionWithOptions(jobsResource, ns, name, metav1.DeleteOptions{PropagationPolicy: &background}), &batchv1.Job{})
	return err
}

func (f *fakeAPI) ListPods(_ context.Context, ns, selector string) (*corev1.PodList, error) {
	l, err := f.list(podsResource, podKind, &corev1.PodList{}, ns, selector)
	if err != nil {
		return nil, err
	}
	return l.(*corev1.PodList), nil
}

// list lists resource in ns and keeps the items selector matches.
func (f *fakeAPI) list(resource schema.GroupVersionResource, kind schema.GroupVersionKind, empty runtime.Object, ns, selector string) (runtime.Object, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	l, err := f.Invokes(k8stesting.NewListActionWithOptions(resource, kind, ns, metav1.ListOptions{LabelSelector: selector}), empty)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	var kept []runtime.Object
	for _, item := range items {
		if m, err := meta.Accessor(item); err == nil && sel.Matches(labels.Set(m.GetLabels())) {
			kept = append(kept, item)
		}
	}
	return l, meta.SetList(l, kept)
}

// PodLog is the fake clientset's: "fake logs" (the node serves the real
// ones through Executor.Logs).
func (f *fakeAPI) PodLog(_ context.Context, ns, pod, container string) (io.ReadCloser, error) {
	action := k8stesting.GenericActionImpl{ActionImpl: k8stesting.ActionImpl{Namespace: ns, Verb: "get", Resource: podsResource, Subresource: "log"},
		Value: &corev1.PodLogOptions{Container: container}}
	_, _ = f.Invokes(action, nil)
	return io.NopCloser(strings.NewReader("fake logs")), nil
}

func (f *fakeAPI) CreatePod(_ context.Context, pod *corev1.Pod) error {
	_, err := f.Invokes(k8stesting.NewCreateAction(podsResource, pod.Namespace, pod), &corev1.Pod{})
	return err
}

func (f *fakeAPI) UpdatePodStatus(_ context.Context, pod *corev1.Pod) error {
	_, err := f.Invokes(k8stesting.NewUpdateSubresourceAction(podsResource, "status", pod.Namespace, pod), &corev1.Pod{})
	return err
}

func (f *fakeAPI) UpdateJobStatus(_ context.Context, job *batchv1.Job) error {
	_, err := f.Invokes(k8stesting.NewUpdateSubresourceAction(jobsResource, "status", job.Namespace, job), &batchv1.Job{})
	return err
}

// restCluster is clusterAPI over NewClient's REST clients: the real API
// server of TestAPIServer.
type restCluster struct{ *restAPI }

func (c restCluster) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	return c.core.Post().Namespace(pod.Namespace).Resource("pods").
		VersionedParams(&metav1.CreateOptions{}, c.params).Body(pod).Do(ctx).Error()
}

func (c restCluster) UpdatePodStatus(ctx context.Context, pod *corev1.Pod) error {
	return c.core.Put().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("status").
		VersionedParams(&metav1.UpdateOptions{}, c.params).Body(pod).Do(ctx).Error()
}

func (c restCluster) UpdateJobStatus(ctx context.Context, job *batchv1.Job) error {
	return c.batch.Put().Namespace(job.Namespace).Resource("jobs").Name(job.Name).SubResource("status").
		VersionedParams(&metav1.UpdateOptions{}, c.params).Body(job).Do(ctx).Error()
}
