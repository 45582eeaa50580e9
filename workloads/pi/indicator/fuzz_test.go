package indicator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzValidatePIJSON: the exec PI's validator meets whatever a command
// prints; it must never panic and must name the document in its errors.
func FuzzValidatePIJSON(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "results", "*", "*", "pi.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no pi.json seeds: %v", err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"component": "x", "name": "y", "@result": {"elapsed": 1e400}}`))
	f.Add([]byte(`{"component": "x", "name": "y", "@result": {"elapsed": 1, "rate": -1}} trailing`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := ValidatePIJSON("out", data); err != nil && !strings.HasPrefix(err.Error(), "out") {
			t.Errorf("error does not name the document: %v", err)
		}
	})
}

// FuzzDecode: settings come from YAML files users write; decoding never
// panics whatever the values.
func FuzzDecode(f *testing.F) {
	f.Add("matmul", "gonum", "float32", int64(512), "auto", 0.01, "NCHW", "same")
	f.Add("conv1d", "numpy", "float16", int64(-3), "12", 1e300, "NWC", "7")
	f.Fuzz(func(t *testing.T, pi, backend, dtype string, size int64, reps string, target float64, format, padding string) {
		s := map[string]any{"pi": pi, "backend": backend, "dtype": dtype, "matrix_size": int(size),
			"repetitions": reps, "target_ci": target, "data_format": format, "padding": padding,
			"command": []any{pi, "{backend}"}}
		p, err := Decode(s)
		if err == nil {
			p.Parameters()
			if f := p.FLOPs(); f < 0 {
				t.Errorf("negative FLOPs %v", f)
			}
		}
	})
}
