package workloads_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/workloads"
)

// declared stands for a workload file a command loads: the toy under
// another name.
type declared struct{ workloadtest.Toy }

func (declared) Name() string { return "toy_file" }

// TestRegistryWith: a workload a command adds joins a new registry; the
// registry it started from, and so the built-in workloads every other
// command starts from, stay as they were; a taken name is an error.
func TestRegistryWith(t *testing.T) {
	t.Parallel()
	builtin := workloads.Builtin()
	r, err := builtin.With(declared{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("toy_file"); !ok {
		t.Errorf("the added workload is not found: %v", r.Names())
	}
	if _, ok := r.Get(workloadtest.Name); !ok {
		t.Errorf("the built-in workloads are lost: %v", r.Names())
	}
	if !slices.IsSorted(r.Names()) || len(r.Names()) != len(builtin.Names())+1 {
		t.Errorf("Names = %v, want the built-in ones and toy_file, sorted", r.Names())
	}
	for _, b := range []*workloads.Registry{builtin, workloads.Builtin()} {
		if _, ok := b.Get("toy_file"); ok {
			t.Errorf("With changed the registry it started from: %v", b.Names())
		}
	}
	if _, err := r.With(declared{}); err == nil || !strings.Contains(err.Error(), `"toy_file" is already registered`) {
		t.Errorf("adding a taken name: %v", err)
	}
}
