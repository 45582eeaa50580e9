package lts_test

import (
	"encoding/json"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// storedDocs are pi payloads as a store keeps them: JSON documents.
func storedDocs(t testing.TB, n int) [][]byte {
	t.Helper()
	var out [][]byte
	for _, p := range pitest.Payloads(n, ltstest.Options{Series: 3, Samples: 5, Seed: 9}) {
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzDecodeStoredResults: a stored document of any shape decodes to its
// results or an error, never a panic; one that decodes whole decodes to
// the same test_uuid, workload and results.
func FuzzDecodeStoredResults(f *testing.F) {
	for _, doc := range storedDocs(f, 2) {
		f.Add(doc)
	}
	f.Add([]byte(`{"metadata": {"test_uuid": "x"}}`))
	f.Add([]byte(`{"results": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		only, err := lts.DecodeStoredResults(data)
		whole, werr := lts.DecodeStored(data, false)
		if werr != nil {
			return
		}
		if err != nil {
			t.Fatalf("decodes whole but not its results: %v", err)
		}
		if only.Metadata.TestUUID != whole.Metadata.TestUUID || only.Metadata.Workload != whole.Metadata.Workload {
			t.Errorf("results only: %q %q, whole: %q %q", only.Metadata.TestUUID, only.Metadata.Workload, whole.Metadata.TestUUID, whole.Metadata.Workload)
		}
		// No results, null ones: the same absence.
		text := func(v any) string {
			if data, err := json.Marshal(v); err == nil && len(data) > 0 {
				return string(data)
			}
			return "null"
		}
		if a, b := text(only.Results), text(whole.Results); a != b {
			t.Errorf("results only %s, whole %s", a, b)
		}
	})
}

// BenchmarkDecodeStored: a stored pi payload decoded whole, and its
// results only (Query.ResultsOnly).
func BenchmarkDecodeStored(b *testing.B) {
	docs := storedDocs(b, 100)
	for _, c := range []struct {
		name   string
		decode func([]byte) error
	}{
		{"whole", func(d []byte) error { _, err := lts.DecodeStored(d, false); return err }},
		{"results-only", func(d []byte) error { _, err := lts.DecodeStoredResults(d); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if err := c.decode(docs[i%len(docs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
