package sqlite

import (
	"encoding/json"
	"math"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/internal/fuzzing"
)

func TestMain(m *testing.M) { fuzzing.Main(m) }

// recordDocs are documents of a record's KPI values and of the summaries
// of its samples: as they are stored, and in other forms JSON allows or
// does not.
var recordDocs = []string{
	`{"cpu_seconds":1.95,"elapsed_ci95_rel":0,"elapsed_ms":0.010238,"max_rss_bytes":67108864,"rate_gflops":51.21000195350654}`,
	`{"elapsed_ms":{"n":5,"log_mean":-4.562900503474768,"log_var":0.000618791546004506},"rate_gflops":{"n":5,"log_mean":3.9171863761494548,"log_var":6.1e-4}}`,
	`{}`, `null`, ``, `{"a":1,"a":2}`, `{"a": 1}`, ` {"a":1}`, `{"a":1} `, `{"a":1}x`, `{"a":1,}`, `{"a":-0}`, `{"a":1E+2}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e400}`, `{"a":1e-400}`, `{"a":"1"}`, `{"a":null}`, `{"a":true}`, `{"\u00e9":1}`, `{"é":1}`,
	`{"a\"b":1}`, `{"a":{"n":5.0,"log_mean":1,"log_var":0}}`, `{"a":{"N":5,"log_mean":1,"log_var":0}}`, `{"a":{"n":5,"other":1}}`,
	`{"a":{"n":99999999999999999999}}`, `{"a":{"n":-0}}`, `{"a":{}}`, `{"a":{"n":1,"n":2}}`, `{"a":{"n":1}`, `{"a":1e5,"b":{"n":1}}`,
}

// TestDecodeRecordDocs: the documents as stored are read without the
// JSON engine (their names the known ones), and every document decodes
// to what the engine gives.
func TestDecodeRecordDocs(t *testing.T) {
	t.Parallel()
	names := map[string]string{"elapsed_ms": "elapsed_ms"}
	if _, ok := scanKPIValues([]byte(recordDocs[0]), names); !ok {
		t.Errorf("%s: not read directly", recordDocs[0])
	}
	m, ok := scanRunStats([]byte(recordDocs[1]), names)
	if want := (analyze.RunStats{N: 5, LogMean: 3.9171863761494548, LogVar: 6.1e-4}); !ok || m["rate_gflops"] != want {
		t.Errorf("%s: read directly %v (%v), want rate_gflops %+v", recordDocs[1], m, ok, want)
	}
	for _, doc := range recordDocs {
		checkRecordDoc(t, []byte(doc), names)
	}
	// The summaries of samples as encoding/json writes them.
	doc, err := json.Marshal(map[string]analyze.RunStats{"x": {N: 12, LogMean: -1e-9, LogVar: 1.5e21}, "elapsed_ms": {N: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := scanRunStats(doc, names); !ok {
		t.Errorf("%s: not read directly", doc)
	}
	checkRecordDoc(t, doc, names)
}

func FuzzDecodeRecordDocs(f *testing.F) {
	for _, doc := range recordDocs {
		f.Add([]byte(doc))
	}
	names := map[string]string{"a": "a"}
	f.Fuzz(func(t *testing.T, doc []byte) { checkRecordDoc(t, doc, names) })
}

// checkRecordDoc checks that decodeKPIValues and decodeRunStats give
// what the JSON engine gives for doc, values and errors.
func checkRecordDoc(t *testing.T, doc []byte, names map[string]string) {
	t.Helper()
	values, err := decodeKPIValues(doc, names)
	want := map[string]float64{}
	wantErr := jsonv2.Unmarshal(doc, &want, v1Semantics)
	if (err != nil) != (wantErr != nil) || (err == nil && !sameFloats(values, want)) {
		t.Errorf("KPI values of %q: %v (%v), the JSON engine's %v (%v)", doc, values, err, want, wantErr)
	}
	stats, err := decodeRunStats(doc, names)
	var wantStats map[string]analyze.RunStats
	wantErr = jsonv2.Unmarshal(doc, &wantStats, v1Semantics)
	if (err != nil) != (wantErr != nil) || (err == nil && !sameStats(stats, wantStats)) {
		t.Errorf("summaries of samples of %q: %v (%v), the JSON engine's %v (%v)", doc, stats, err, wantStats, wantErr)
	}
}

func sameFloats(a, b map[string]float64) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || math.Float64bits(v) != math.Float64bits(w) {
			return false
		}
	}
	return true
}

func sameStats(a, b map[string]analyze.RunStats) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.N != w.N || math.Float64bits(v.LogMean) != math.Float64bits(w.LogMean) || math.Float64bits(v.LogVar) != math.Float64bits(w.LogVar) {
			return false
		}
	}
	return true
}

// BenchmarkDecodeRecordDocs is what decode.go's direct reading of a
// record's two documents saves against the JSON engine it falls back to
// (the figure that justifies a second reader of that form): per record,
// its KPI values and the summaries of its samples, as stored.
func BenchmarkDecodeRecordDocs(b *testing.B) {
	values, stats := []byte(recordDocs[0]), []byte(recordDocs[1])
	names := map[string]string{}
	for _, n := range []string{"cpu_seconds", "elapsed_ci95_rel", "elapsed_ms", "max_rss_bytes", "rate_gflops"} {
		names[n] = n
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeKPIValues(values, names); err != nil {
				b.Fatal(err)
			}
			if _, err := decodeRunStats(stats, names); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := map[string]float64{}
			if err := jsonv2.Unmarshal(values, &v, v1Semantics); err != nil {
				b.Fatal(err)
			}
			var s map[string]analyze.RunStats
			if err := jsonv2.Unmarshal(stats, &s, v1Semantics); err != nil {
				b.Fatal(err)
			}
		}
	})
}
