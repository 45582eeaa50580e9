package kubernetes

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seshat-bench/seshat/runner"
)

// Labels and annotations on every Job (and, through the template, pod) an
// invocation creates.
const (
	LabelManagedBy  = "app.kubernetes.io/managed-by"
	LabelInvocation = "seshat.dev/invocation"
	LabelRun        = "seshat.dev/run"
	AnnotationDir   = "seshat.dev/run-dir"
	AnnotationPoint = "seshat.dev/settings"
)

// container is the name of the pod's one container.
const container = "seshat"

// podDir is where the run directory lives in the pod (an emptyDir).
const podDir = "/seshat/run"

// jobName is the Job of run i of an invocation.
func jobName(inv string, i int) string { return fmt.Sprintf("seshat-%s-%04d", inv, i) }

// deadline is the Job's activeDeadlineSeconds: --timeout plus the time a
// pod may take to start (image pull) plus a minute of seshat's own work,
// so that seshat's timeout fires first and the run ends as it would
// locally. Nil without --timeout.
func (e *Executor) deadline(timeout time.Duration) *int64 {
	if timeout <= 0 {
		return nil
	}
	s := int64((timeout + e.pendingTimeout() + time.Minute).Seconds())
	return &s
}

// job builds the Job of run i. prelude is the run directory's first files
// (runner.EncodeArchive); rel the run directory relative to the results.
func (e *Executor) job(opts runner.Options, pl runner.Planned, i int, inv, rel, prelude string, gpus int) *batchv1.Job {
	name := jobName(inv, i)
	labels := map[string]string{}
	for k, v := range e.Labels {
		labels[k] = v
	}
	labels[LabelManagedBy] = "seshat"
	labels[LabelInvocation] = inv
	labels[LabelRun] = strconv.Itoa(i)
	annotations := map[string]string{AnnotationDir: filepath.ToSlash(rel), AnnotationPoint: runner.SettingsText(pl.Settings)}

	args := []string{"run-point", "--dir", podDir, "--archive", "--prelude", prelude,
		"--executor", "kubernetes", "--invocation", inv, "--job-id", name,
		"--node", "$(POD_NODE_NAME)", "--pod", "$(POD_NAME)", "--namespace", "$(POD_NAMESPACE)"}
	if opts.Timeout > 0 {
		args = append(args, "--timeout", opts.Timeout.String())
	}
	if opts.Python != "" {
		args = append(args, "--python", opts.Python)
	}
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for k, v := range e.Requests {
		res.Requests[k] = v
	}
	for k, v := range e.Limits {
		res.Limits[k] = v
	}
	if gpus > 0 {
		res.Limits[e.gpuResource()] = *resource.NewQuantity(int64(gpus), resource.DecimalSI)
	}
	var pullSecrets []corev1.LocalObjectReference
	for _, s := range e.ImagePullSecrets {
		pullSecrets = append(pullSecrets, corev1.LocalObjectReference{Name: s})
	}
	field := func(env, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	zero := int32(0)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.namespace(), Labels: labels, Annotations: annotations},
		Spec: batchv1.JobSpec{
			// A failed run is data: never retried behind seshat's back.
			BackoffLimit:          &zero,
			ActiveDeadlineSeconds: e.deadline(opts.Timeout),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: e.ServiceAccount,
					NodeSelector:       e.NodeSelector,
					Tolerations:        e.Tolerations,
					ImagePullSecrets:   pullSecrets,
					Containers: []corev1.Container{{
						Name:            container,
						Image:           e.Image,
						ImagePullPolicy: e.ImagePullPolicy,
						Command:         []string{e.seshat()},
						Args:            args,
						Env: []corev1.EnvVar{
							field("POD_NODE_NAME", "spec.nodeName"),
							field("POD_NAME", "metadata.name"),
							field("POD_NAMESPACE", "metadata.namespace"),
						},
						Resources:    res,
						VolumeMounts: []corev1.VolumeMount{{Name: "run", MountPath: filepath.Dir(podDir)}},
					}},
					Volumes: []corev1.Volume{{Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}
