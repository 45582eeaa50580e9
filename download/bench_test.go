package download

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// benchRuns is the size of the tree of the target: --mode
// important of 2,000 runs in 10 s and 200 MB at most on 2 cores.
const benchRuns = 2000

// benchTree writes a tree of runs as seshat run writes them (the files of
// a real pi run from ../testdata) plus a 64 KiB file no workload declares,
// ten experiments of benchRuns/10 runs.
func benchTree(b *testing.B) string {
	b.Helper()
	src := filepath.Join("..", "testdata", "results", "matmul_sizes", "001__matrix_size=128")
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	files := map[string]string{"trace.bin": strings.Repeat("t", 64<<10)}
	for _, e := range entries {
		if e.Name() == ".seshat_cache.json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	files["settings.yaml"] = "workload: pi\nmatrix_size: 128\n"
	root := b.TempDir()
	for i := range benchRuns {
		dir := filepath.Join(root, "results", fmt.Sprintf("expe_%02d", i%10), fmt.Sprintf("%03d__matrix_size=128", i/10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// piFiles declares what workloads/pi does (its ImportantFiles).
func piFiles(string) (FileSet, error) {
	return func(models.Settings) ([]Pattern, error) {
		var ps []Pattern
		for _, n := range []string{".uuid", "config.yaml", "pi.json", "hwinfo.json", "usage.json", "stdout.log", "stderr.log"} {
			ps = append(ps, Pattern{Name: n})
		}
		return ps, nil
	}, nil
}

// BenchmarkImportant2000: one op is a download of the whole tree in
// important mode into an empty directory, from net/http.FileServer in the
// same process (its work counts too). files/op is what was fetched
// (settings.yaml, exit_code and the seven pi files of each run: not
// trace.bin).
func BenchmarkImportant2000(b *testing.B) {
	root := benchTree(b)
	var requests atomic.Int64
	fsrv := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fsrv.ServeHTTP(w, r)
	}))
	defer srv.Close()
	b.ReportAllocs()
	b.ResetTimer()
	var fetched int
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		r, err := Run(context.Background(), Options{URL: srv.URL + "/results/", Dir: dir, Mode: Important, Declared: piFiles})
		if err != nil || !r.Complete() {
			b.Fatalf("%v %+v", err, r)
		}
		fetched = r.Fetched
	}
	b.ReportMetric(float64(fetched), "files/op")
	b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/op")
}

// BenchmarkPreferCacheAgain2000: one op is prefer-cache over a complete
// copy: the listings are read again, no file is (files/op is 0).
func BenchmarkPreferCacheAgain2000(b *testing.B) {
	root := benchTree(b)
	var files atomic.Int64
	fsrv := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			files.Add(1)
		}
		fsrv.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := b.TempDir()
	o := Options{URL: srv.URL + "/results/", Dir: dir, Mode: Important, Declared: piFiles}
	if r, err := Run(context.Background(), o); err != nil || !r.Complete() {
		b.Fatalf("%v %+v", err, r)
	}
	files.Store(0)
	o.Mode = PreferCache
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r, err := Run(context.Background(), o); err != nil || !r.Complete() || r.Fetched != 0 {
			b.Fatalf("%v %+v", err, r)
		}
	}
	b.ReportMetric(float64(files.Load())/float64(b.N), "files/op")
}
