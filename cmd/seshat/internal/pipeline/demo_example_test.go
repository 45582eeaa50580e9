package pipeline

import (
	"bytes"
	"os"
	"testing"
)

// TestDemoBenchmarkIsTheExample holds examples/demo.yaml, the file README's
// short tour runs by hand, equal to the benchmark the demo embeds (go:embed
// cannot reach outside this package's directory).
func TestDemoBenchmarkIsTheExample(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("../../../../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(example, demoBenchmark) {
		t.Error("examples/demo.yaml differs from cmd/seshat/internal/pipeline/demodata/benchmark.yaml, which seshat demo embeds: copy one onto the other")
	}
}
