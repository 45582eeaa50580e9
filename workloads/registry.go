package workloads

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/seshat-bench/seshat/store"
)

// Workload is a kind of benchmark Seshat knows how to parse.
type Workload interface {
	store.Parser
}

// builtin holds the workloads compiled in, filled by Register and
// RegisterLazy from the init functions of workload packages and only read
// afterwards; each entry returns its workload.
var builtin = map[string]func() Workload{}

// Register adds w under w.Name() to the built-in workloads, from an init
// function. A duplicate name panics, as a programming error.
func Register(w Workload) {
	add(w.Name(), func() Workload { return w })
}

// RegisterLazy adds, from an init function, a built-in workload that load
// builds the first time a command asks for it by name: the importers'
// embedded workload files are parsed only by the commands that read their
// runs, not by every start of seshat (each `seshat pi` of every run).
// load must return a workload of that name; a duplicate name panics, and
// so does load's failure when it is called, as programming errors.
func RegisterLazy(name string, load func() (Workload, error)) {
	add(name, sync.OnceValue(func() Workload {
		w, err := load()
		if err != nil {
			panic(fmt.Sprintf("workloads: built-in %q: %v", name, err))
		}
		if w.Name() != name {
			panic(fmt.Sprintf("workloads: built-in %q loaded as %q", name, w.Name()))
		}
		return w
	}))
}

func add(name string, get func() Workload) {
	if _, dup := builtin[name]; dup {
		panic(fmt.Sprintf("workloads: %q registered twice", name))
	}
	builtin[name] = get
}

// Registry is the set of workloads a command knows, by name: the built-in
// ones and the workload files it was given or found. A Registry is never
// changed once built (With returns a new one), so one may be shared freely.
type Registry struct {
	byName map[string]func() Workload
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
		m = map[string]func() Workload{}
	}
	m[name] = func() Workload { return w }
	return &Registry{byName: m}, nil
}

// Get returns the workload of that name.
func (r *Registry) Get(name string) (Workload, bool) {
	get, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return get(), true
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
