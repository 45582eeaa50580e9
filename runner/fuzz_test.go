package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFiles adds every file matching the globs to the fuzz corpus.
func addFiles(f *testing.F, globs ...string) {
	f.Helper()
	n := 0
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			n++
		}
	}
	if n == 0 {
		f.Fatalf("no seeds in %v", globs)
	}
}

func FuzzParseBenchmark(f *testing.F) {
	addFiles(f, filepath.Join("..", "examples", "*.yaml"))
	f.Add([]byte("expe:\n  a:\n    command: [[x], []]\n    repeat: 2\n"))
	f.Add([]byte("common_settings: &a {x: *a}\nexpe: {b: *a}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, parseErr := ParseBenchmark("fuzz.yaml", data)
		if parseErr != nil {
			for _, line := range strings.Split(parseErr.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") && !strings.HasPrefix(line, "... and ") {
					t.Errorf("a problem does not name the file: %q in %v", line, parseErr)
				}
			}
			if b == nil {
				return
			}
		}
		// With problems, what was read is still checked (every problem at
		// once): it must expand without a panic.
		exps, err := b.Select(nil)
		if err != nil {
			return
		}
		// Expansion of a valid file never fails without a checker; bound
		// the product so the fuzzer does not explode memory.
		total := 1
		for _, e := range exps {
			n := max(e.Repeat, 1)
			for _, v := range merge(b.Common, e.Settings).Values {
				n *= len(v.Values)
			}
			total += n
		}
		if total > 10000 {
			return
		}
		points, err := Expand(b, exps, "pi", nil)
		if err != nil && parseErr == nil {
			t.Fatalf("expand: %v", err)
		}
		for _, p := range points {
			s := p.Slug()
			if s == "" || strings.ContainsAny(s, "/\x00") || strings.HasPrefix(s, ".") || len(s) > maxSlug {
				t.Errorf("unsafe slug %q", s)
			}
		}
	})
}

func FuzzParseCPUInfo(f *testing.F) {
	addFiles(f, filepath.Join("testdata", "hosts", "*", "proc", "cpuinfo"), filepath.Join("testdata", "hosts", "*", "proc", "meminfo"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := parseCPUInfo(data)
		if c.Threads < 0 || c.Cores < 0 || c.Sockets < 0 || (c.Threads > 0 && c.Sockets < 1) {
			t.Errorf("impossible topology %+v", c)
		}
		parseMemTotal(data)
	})
}
