package kubernetes

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// apiRequest is one request the REST client sent.
type apiRequest struct {
	method, path, query string
	body                map[string]any
}

// TestRESTClient checks each call of NewClient's client on the wire: the
// method, path and query the API server expects, the body it sends, and
// what it makes of the answer, a 404 included (the executor ignores a
// Job already gone).
func TestRESTClient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []apiRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := apiRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery}
		if data, _ := io.ReadAll(r.Body); len(data) > 0 {
			if err := json.Unmarshal(data, &req.body); err != nil {
				t.Errorf("%s %s: body %q: %v", r.Method, r.URL.Path, data, err)
			}
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces/bench/pods/p1/log":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "line 1\nline 2\n")
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j1", "namespace": "bench"}}`)
		case r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/gone"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"apiVersion": "v1", "kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404,
				"message": "jobs.batch \"gone\" not found", "details": {"name": "gone", "group": "batch", "kind": "jobs"}}`)
		case r.Method == http.MethodDelete:
			io.WriteString(w, `{"apiVersion": "v1", "kind": "Status", "status": "Success"}`)
		case strings.HasSuffix(r.URL.Path, "/jobs"):
			io.WriteString(w, `{"apiVersion": "batch/v1", "kind": "JobList", "items": [{"metadata": {"name": "j1"}, "status": {"succeeded": 1}}]}`)
		case strings.HasSuffix(r.URL.Path, "/pods"):
			io.WriteString(w, `{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "p1"}, "status": {"phase": "Succeeded"}}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j1", Labels: map[string]string{LabelRun: "0"}}}
	if err := c.CreateJob(ctx, "bench", job); err != nil {
		t.Errorf("CreateJob: %v", err)
	}
	if jl, err := c.ListJobs(ctx, "bench", "a=b,c=d"); err != nil || len(jl.Items) != 1 || jl.Items[0].Name != "j1" || jl.Items[0].Status.Succeeded != 1 {
		t.Errorf("ListJobs: %+v, %v", jl, err)
	}
	if err := c.DeleteJob(ctx, "bench", "j1"); err != nil {
		t.Errorf("DeleteJob: %v", err)
	}
	if err := c.DeleteJob(ctx, "bench", "gone"); !apierrors.IsNotFound(err) {
		t.Errorf("DeleteJob of a missing Job: %v, want a NotFound error", err)
	}
	if pl, err := c.ListPods(ctx, "bench", "a=b"); err != nil || len(pl.Items) != 1 || pl.Items[0].Status.Phase != corev1.PodSucceeded {
		t.Errorf("ListPods: %+v, %v", pl, err)
	}
	rc, err := c.PodLog(ctx, "bench", "p1", container)
	if err != nil {
		t.Fatalf("PodLog: %v", err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(data) != "line 1\nline 2\n" {
		t.Errorf("PodLog: %q, %v", data, err)
	}

	want := []apiRequest{
		{method: "POST", path: "/apis/batch/v1/namespaces/bench/jobs"},
		{method: "GET", path: "/apis/batch/v1/namespaces/bench/jobs", query: "labelSelector=a%3Db%2Cc%3Dd"},
		{method: "DELETE", path: "/apis/batch/v1/namespaces/bench/jobs/j1"},
		{method: "DELETE", path: "/apis/batch/v1/namespaces/bench/jobs/gone"},
		{method: "GET", path: "/api/v1/namespaces/bench/pods", query: "labelSelector=a%3Db"},
		{method: "GET", path: "/api/v1/namespaces/bench/pods/p1/log", query: "container=seshat"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.method != w.method || g.path != w.path || g.query != w.query {
			t.Errorf("request %d: %s %s?%s, want %s %s?%s", i, g.method, g.path, g.query, w.method, w.path, w.query)
		}
	}
	if md, _ := got[0].body["metadata"].(map[string]any); got[0].body["kind"] != "Job" || got[0].body["apiVersion"] != "batch/v1" || md["name"] != "j1" {
		t.Errorf("CreateJob sent %v, want the Job j1 of batch/v1", got[0].body)
	}
	for _, i := range []int{2, 3} {
		if got[i].body["propagationPolicy"] != "Background" {
			t.Errorf("DeleteJob sent %v, want propagationPolicy Background (the Job's pods go too)", got[i].body)
		}
	}
}
