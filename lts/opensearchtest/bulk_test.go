package opensearchtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzParseBulk: the bulk reader never panics, and what it accepts framed
// again the way the store frames it reads back as the same actions.
func FuzzParseBulk(f *testing.F) {
	files, _ := filepath.Glob("testdata/bulk/*.ndjson")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		actions, err := parseBulk(body)
		if err != nil {
			if actions != nil || err.status < 400 {
				t.Fatalf("error %v with %d actions", err, len(actions))
			}
			return
		}
		var again bytes.Buffer
		for _, a := range actions {
			line, _ := json.Marshal(map[string]map[string]string{a.Action: {"_index": a.Index, "_id": a.ID}})
			again.Write(append(line, '\n'))
			if a.Action == "index" {
				again.Write(append(bytes.Clone(a.source), '\n'))
			}
		}
		back, err := parseBulk(again.Bytes())
		if err != nil || !slices.EqualFunc(actions, back, func(x, y bulkAction) bool {
			return x.BulkItem == y.BulkItem && bytes.Equal(x.source, y.source)
		}) {
			t.Fatalf("%q read as %+v, framed again as %q: %+v, %v", body, actions, again.Bytes(), back, err)
		}
	})
}
