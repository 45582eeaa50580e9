package pi

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// Fuzz targets for the artifact decoders, seeded with every file of that
// name in the shipped results tree (good, corrupt and truncated ones).
// Run one with: go test ./workloads/pi -run '^$' -fuzz FuzzPIJSON

func seedFrom(f *testing.F, name string, extra ...string) {
	f.Helper()
	n := 0
	err := filepath.WalkDir(testdataResults, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != name {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil {
			f.Add(data)
			n++
		}
		return err
	})
	if err != nil || n == 0 {
		f.Fatalf("seeds for %s: %d files, %v", name, n, err)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkDecoded asserts what the cache and the matrix rely on: a decoded value
// always encodes to JSON, and reads back to the same JSON; every warning
// names the file.
func checkDecoded(t *testing.T, name string, v any, warnings []string) {
	t.Helper()
	for _, w := range warnings {
		if !strings.HasPrefix(w, name) {
			t.Errorf("warning %q does not name %s", w, name)
		}
	}
	if reflect.ValueOf(v).IsNil() {
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("decoded %s does not encode: %v", name, err)
	}
	back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	if err := json.Unmarshal(raw, back); err != nil {
		t.Fatalf("decoded %s does not read back: %v\n%s", name, err, raw)
	}
	again, err := json.Marshal(back)
	if err != nil || !bytes.Equal(raw, again) {
		t.Fatalf("decoded %s changes through JSON (%v):\n%s\n%s", name, err, raw, again)
	}
}

func FuzzPIJSON(f *testing.F) {
	seedFrom(f, PIFile,
		`{"name": "PiMatmul", "@result": {"rate": NaN, "elapsed": -Infinity, "samples_ms": [Infinity]}}`,
		`{"@result": {"rate": "fast"}, "versions": {"cuda": 12.1}}`)
	settings := models.Settings{"matrix_size": 512, "dtype": "float32", "repetitions": "auto"}
	f.Fuzz(func(t *testing.T, data []byte) {
		replaced, found := nonFiniteToNull(data)
		if bytes.Count(replaced, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("NaN replacement changed the line count")
		}
		if len(found) == 0 && !bytes.Equal(replaced, data) {
			t.Fatalf("nothing found but the data changed")
		}
		var w recorder
		pi := decodePI(data, settings, &w)
		checkDecoded(t, PIFile, pi, w.warnings)
	})
}

func FuzzHWInfoJSON(f *testing.F) {
	amun, err := os.ReadFile(filepath.Join(testdataResults, "..", "amun", "amun_inspection", "000__run", HWInfoFile))
	if err != nil {
		f.Fatal(err)
	}
	seedFrom(f, HWInfoFile, `{"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_bytes": 85520809984}]}`,
		string(amun), `{"os_release": "ID=x\nVERSION_ID=1"}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		var w recorder
		hw := decodeHWInfo(data, &w)
		checkDecoded(t, HWInfoFile, hw, w.warnings)
	})
}

func FuzzUsageJSON(f *testing.F) {
	seedFrom(f, UsageFile, `{"start": "2025-03-14T03:30:00+01:00", "end": 3}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		var w recorder
		u := decodeUsage(data, &w)
		checkDecoded(t, UsageFile, u, w.warnings)
		if u != nil && (u.Start.Location().String() != "UTC" || u.End.Location().String() != "UTC") {
			t.Fatalf("times not in UTC: %v %v", u.Start, u.End)
		}
	})
}

func FuzzConfigYAML(f *testing.F) {
	seedFrom(f, ConfigFile, "a: .nan\nb: {1: [2025-03-14, .inf]}\n", "- 1\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		var w recorder
		cfg := decodeConfig(data, &w)
		for _, msg := range w.warnings {
			if !strings.HasPrefix(msg, ConfigFile) {
				t.Errorf("warning %q does not name %s", msg, ConfigFile)
			}
		}
		if cfg == nil {
			return
		}
		// A JSON object, which encodes again to the same text (numbers
		// kept as written: an integer beyond float64 stays exact).
		var back map[string]any
		dec := json.NewDecoder(bytes.NewReader(cfg))
		dec.UseNumber()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("config is not a JSON object: %v\n%s", err, cfg)
		}
		if again, err := json.Marshal(back); err != nil || string(again) != string(cfg) {
			t.Fatalf("config changes through JSON (%v):\n%s\n%s", err, cfg, again)
		}
	})
}
