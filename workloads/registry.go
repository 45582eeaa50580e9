package workloads

import (
	"fmt"
	"maps"
	"slices"

	"github.com/seshat-bench/seshat/store"
)

// Workload is a kind of benchmark Seshat knows how to parse.
type Workload interface {
	store.Parser
}

// builtin holds the workloads compiled in, filled by Register from the init
// functions of workload packages and only read afterwards.
var builtin = map[string]Workload{}

// Register adds w under w.Name() to the built-in workloads, from an init
// function. A duplicate name panics, as a programming error.
func Register(w Workload) {
	name := w.Name()
	if _, dup := builtin[name]; dup {
		panic(fmt.Sprintf("workloads: %q registered twice", name))
	}
	builtin[name] = w
}

// Registry is the set of workloads a command knows, by name: the built-in
// ones and the workload files it was given or found. A Registry is never
// changed once built (With returns a new one), so one may be shared freely.
type Registry struct {
	byName map[string]Workload
}

// Builtin returns the registry of the built-in workloads (those registered
// in init).
func Builtin() *Registry {
	return &Registry{byName: builtin}
}

// With returns a registry of r's workloads and w; r is left as it is. A
// name r already holds is an error.
func (r *Registry) With(w Workload) (*Registry, error) {
	name := w.Name()
	if _, dup := r.byName[name]; dup {
		return nil, fmt.Errorf("workload %q is already registered", name)
	}
	m := maps.Clone(r.byName)
	if m == nil {
		m = map[string]Workload{}
	}
	m[name] = w
	return &Registry{byName: m}, nil
}

// Get returns the workload of that name.
func (r *Registry) Get(name string) (Workload, bool) {
	w, ok := r.byName[name]
	return w, ok
}

// Names lists the workloads, sorted.
func (r *Registry) Names() []string {
	return slices.Sorted(maps.Keys(r.byName))
}

// Lookup adapts Get to store.Options.Lookup.
func (r *Registry) Lookup(name string) (store.Parser, bool) {
	w, ok := r.Get(name)
	if !ok {
		return nil, false
	}
	return w, true
}
