package perfseries

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBadInput: an empty, truncated, wrong-typed or inconsistent file
// is an error naming the file (and the series), never a panic.
func TestReadBadInput(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ doc, want string }{
		"empty":          {"", "unexpected end of JSON input"},
		"truncated":      {`{"series": [{"signature": "a", "values": [1,`, "unexpected end"},
		"wrong type":     {`{"series": [{"signature": "a", "values": "fast"}]}`, "values of type []float64"},
		"null series":    {`{"series": [null]}`, "series 0: null"},
		"revisions":      {`{"series": [{"signature": "a", "values": [1, 2], "revisions": ["r1"]}]}`, "series 0 (a): 1 revisions for 2 values"},
		"samples":        {`{"series": [{"signature": "a", "values": [1], "revisions": ["r1"], "samples": [[1], [2]]}]}`, "2 sample lists for 1 values"},
		"label past end": {`{"series": [{"signature": "a", "values": [1], "revisions": ["r1"], "labels": [{"index": 3}]}]}`, "label index 3 out of range"},
	} {
		path := filepath.Join(t.TempDir(), "series.json")
		if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, path, c.want)
		}
	}
}

func TestReadShared(t *testing.T) {
	t.Parallel()
	all, err := Read("../../realdata/testdata/host-series.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || len(all[0].Samples) != len(all[0].Values) || !all[0].Labels[0].Confirmed() {
		t.Errorf("host-series.json: %d series, want 3 with samples and confirmed labels", len(all))
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"series": [{"signature": "a", "values": [1, 2], "revisions": ["r1", "r2"], "labels": [{"index": 1, "status": "TP"}]}]}`))
	f.Add([]byte(`{"series": [null]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		path := filepath.Join(t.TempDir(), "series.json")
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		all, err := Read(path)
		if err != nil {
			return
		}
		for _, s := range all {
			for _, l := range s.Labels {
				_ = s.Values[l.Index] // every label is within its series
			}
		}
	})
}
