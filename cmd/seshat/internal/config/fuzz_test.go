package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("seshat.yaml", data)
		if err != nil {
			if exitcode.Of(err) != exitcode.InvalidInput {
				t.Fatalf("error %v is not InvalidInput", err)
			}
			return
		}
		for _, key := range []string{"results_dir", "parse.filters", "lts.opensearch.url", "regression_analyses.comparison_keys"} {
			l.lookup(key)
		}
	})
}
