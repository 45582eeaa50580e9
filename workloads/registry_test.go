package workloads_test

import (
	"slices"
	"strings"
	"sync/atomic"
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

// lazyToy is a built-in workload registered lazily, as the importers'
// workload files are.
type lazyToy struct{ workloadtest.Toy }

func (lazyToy) Name() string { return "toy_lazy" }

var lazyLoads atomic.Int32

func init() {
	workloads.RegisterLazy("toy_lazy", func() (workloads.Workload, error) {
		lazyLoads.Add(1)
		return lazyToy{}, nil
	})
}

// TestRegisterLazy: a lazily registered workload is listed without being
// built, is built the first time it is asked for, once, and is then the
// workload itself (its optional abilities too).
func TestRegisterLazy(t *testing.T) {
	if n := lazyLoads.Load(); n != 0 {
		t.Fatalf("built %d times before anyone asked", n)
	}
	b := workloads.Builtin()
	if !slices.Contains(b.Names(), "toy_lazy") {
		t.Fatalf("Names = %v, want toy_lazy listed", b.Names())
	}
	if n := lazyLoads.Load(); n != 0 {
		t.Fatalf("listing the names built it %d times", n)
	}
	for range 3 {
		w, ok := b.Get("toy_lazy")
		if !ok || w.Name() != "toy_lazy" {
			t.Fatalf("Get = %v, %v", w, ok)
		}
		if _, ok := w.(lazyToy); !ok {
			t.Errorf("Get = %T, want the built workload itself (its optional abilities are asserted on it)", w)
		}
	}
	if n := lazyLoads.Load(); n != 1 {
		t.Errorf("built %d times, want once", n)
	}
}
