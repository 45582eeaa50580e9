package lts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
)

// Opener opens the store named by rawURL, whose scheme is one the opener
// was registered for. opts has its defaults applied. A URL the opener
// cannot read is InvalidInput; a store that does not exist, with
// opts.MustExist, an error wrapping ErrNoStore.
type Opener func(ctx context.Context, rawURL string, opts StoreOptions) (Store, error)

type backend struct {
	form string
	open Opener
}

// The registry of backends, filled by the init functions of the backend
// packages (lts/sqlite, lts/opensearch), as workloads fill theirs.
var (
	registryMu sync.RWMutex
	backends   = map[string]backend{}
)

// Register makes open the opener of the URLs of a scheme ("sqlite",
// "https"); form shows such a URL as a user writes it ("sqlite:PATH"), in
// messages and help. Registering a scheme twice panics: it is a programming
// error. Backends register in init; a program imports the backends it
// offers for that side effect (cmd/seshat imports both), and adding one
// changes nothing else.
func Register(scheme, form string, open Opener) {
	scheme = strings.ToLower(scheme)
	registryMu.Lock()
	defer registryMu.Unlock()
	if scheme == "" || open == nil {
		panic("lts: Register without a scheme or an opener")
	}
	if _, dup := backends[scheme]; dup {
		panic(fmt.Sprintf("lts: store scheme %q registered twice", scheme))
	}
	backends[scheme] = backend{form: form, open: open}
}

// lookup returns the backend of a URL's scheme.
func lookup(rawURL string) (backend, bool) {
	scheme, _, ok := strings.Cut(rawURL, ":")
	if !ok {
		return backend{}, false
	}
	registryMu.RLock()
	defer registryMu.RUnlock()
	b, ok := backends[strings.ToLower(scheme)]
	return b, ok
}

// IsStoreURL tells whether s names a store: its scheme is registered.
func IsStoreURL(s string) bool {
	_, ok := lookup(s)
	return ok
}

// Forms lists the URL forms of the registered backends, sorted, each once.
func Forms() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for _, b := range backends {
		if !slices.Contains(out, b.form) {
			out = append(out, b.form)
		}
	}
	slices.Sort(out)
	return out
}

// Open opens the store named by a URL, by its scheme's registered backend.
// An empty URL is DefaultStoreURL, whose directory (.seshat) is seshat's
// own: it is created when missing, whatever opts.CreateDirs says. A URL no
// backend answers to is InvalidInput.
func Open(ctx context.Context, rawURL string, opts StoreOptions) (Store, error) {
	if rawURL == "" {
		rawURL = DefaultStoreURL
	}
	if rawURL == DefaultStoreURL {
		opts.CreateDirs = true
	}
	b, ok := lookup(rawURL)
	if !ok {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: unknown kind (want %s)", redact.URL(rawURL), strings.Join(Forms(), " or "))
	}
	return b.open(ctx, rawURL, opts.WithDefaults())
}
