package workloads

import (
	"fmt"
	"sort"
	"sync"

	"github.com/seshat-bench/seshat/store"
)

// Workload is a kind of benchmark Seshat knows how to parse.
type Workload interface {
	store.Parser
}

var (
	mu       sync.RWMutex
	registry = map[string]Workload{}
)

// Register adds w under w.Name(). A duplicate name panics.
func Register(w Workload) {
	mu.Lock()
	defer mu.Unlock()
	name := w.Name()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("workloads: %q registered twice", name))
	}
	registry[name] = w
}

// Add registers w under w.Name() at run time (a workload file found beside
// the results or named by a flag); a taken name is an error, not a panic.
func Add(w Workload) error {
	mu.Lock()
	defer mu.Unlock()
	name := w.Name()
	if _, dup := registry[name]; dup {
		return fmt.Errorf("workload %q is already registered", name)
	}
	registry[name] = w
	return nil
}

// Remove unregisters a workload added at run time; tests that load a
// workload file use it to leave the registry as they found it.
func Remove(name string) {
	mu.Lock()
	defer mu.Unlock()
	delete(registry, name)
}

// Get returns the workload registered under name.
func Get(name string) (Workload, bool) {
	mu.RLock()
	defer mu.RUnlock()
	w, ok := registry[name]
	return w, ok
}

// Names lists the registered workloads, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup adapts Get to store.Options.Lookup.
func Lookup(name string) (store.Parser, bool) {
	w, ok := Get(name)
	if !ok {
		return nil, false
	}
	return w, true
}
