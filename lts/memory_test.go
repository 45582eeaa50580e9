package lts_test

import (
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
)

// The in-memory store answers queries as the stored ones do.
func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	ltstest.Conformance(t, func(_ testing.TB, opts lts.StoreOptions) lts.Store {
		m := lts.NewMemory("memory")
		m.Samples = opts.Samples
		return m
	})
}
