package fuzzing

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	fuzzTarget  = regexp.MustCompile(`(?m)^func Fuzz\w*\(`)
	setDefaults = regexp.MustCompile(`\bfuzzing\.(Main|SetDefaults)\(`)
)

// TestEveryFuzzingPackageSetsTheDefaults: every package of the module with
// a fuzz target runs its tests through Main (or calls SetDefaults in a
// TestMain of its own). Without it a worker minimizes each new input for
// up to 60 s, and a 10 s run of the target executes a handful of inputs:
// FuzzPytestBenchmark 4 in all, FuzzParseSpec 798, before their packages
// had a TestMain.
func TestEveryFuzzingPackageSetsTheDefaults(t *testing.T) {
	root := filepath.Join("..", "..")
	targets := map[string]bool{}  // package directory: has a fuzz target
	defaults := map[string]bool{} // package directory: sets the defaults
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name[0] == '.' || name[0] == '_') {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if fuzzTarget.Match(src) {
			targets[dir] = true
		}
		if setDefaults.Match(src) {
			defaults[dir] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		t.Fatal("no fuzz target found in the module")
	}
	var missing []string
	for dir := range targets {
		if !defaults[dir] {
			rel, _ := filepath.Rel(root, dir)
			missing = append(missing, "./"+filepath.ToSlash(rel))
		}
	}
	sort.Strings(missing)
	for _, dir := range missing {
		t.Errorf("%s has fuzz targets but no TestMain calling fuzzing.Main (or fuzzing.SetDefaults): "+
			"func TestMain(m *testing.M) { fuzzing.Main(m) }", dir)
	}
}
