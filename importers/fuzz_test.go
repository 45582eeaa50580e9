package importers

import (
	"os"
	"testing"
	"time"
)

// fuzzRead feeds any bytes to an importer's reader: runs, warnings or an
// error, never a panic, and every run has settings naming its workload.
func fuzzRead(f *testing.F, imp Importer, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := Input{Name: "/nonexistent/input", Data: data, ModTime: time.Unix(0, 0)}
		runs, _, err := imp.Read(in, Options{})
		if err != nil {
			return
		}
		for _, r := range runs {
			if _, ok := r.Settings["workload"].(string); !ok {
				t.Fatalf("run without a workload setting: %v", r.Settings)
			}
		}
	})
}

// Seeds are small excerpts of the real files in testdata: the fuzzer
// mutates (and minimises) small inputs far faster. The seed corpora in
// testdata/fuzz/<FuzzName>/ add real files, whole or trimmed to a few KB
// (one job of the Amun inspection, two pytest benchmarks), and malformed
// lines; go test runs every one of them as a test.
func FuzzGobench(f *testing.F) {
	fuzzRead(f, gobench{}, []byte("goos: linux\npkg: example.com/kernels\nUnit ns/op better=lower\n"+
		"BenchmarkDot/n=64-2   \t  753748\t        78.21 ns/op\t13092.22 MB/s\t       0 B/op\t       0 allocs/op\n"+
		"BenchmarkItoa-2 \t 1000000\t        71.5 ns/op\n"))
}

func FuzzPytestBenchmark(f *testing.F) {
	fuzzRead(f, pytestBenchmark{}, []byte(`{"machine_info": {"node": "vm", "python_version": "3.11.2", "machine": "x86_64", "cpu": {"brand": "AMD EPYC"}},`+
		` "commit_info": {"id": "32c1d3e0", "time": "2026-11-24T08:59:24+00:00", "branch": "master"},`+
		` "benchmarks": [{"group": null, "name": "test_sum[100]", "fullname": "test_kernels.py::test_sum[100]", "params": {"n": 100},`+
		` "stats": {"min": 1.1e-06, "median": 1.2e-06, "rounds": 3, "total": 0.002, "data": [1.1e-06, 1.2e-06, 1.3e-06]}}],`+
		` "datetime": "2026-11-24T08:59:29.120934", "version": "3.2.2"}`))
}

func FuzzMLPerf(f *testing.F) {
	fuzzRead(f, mlperf{}, []byte("MLPerf Results Summary\nSUT name : PySUT\nScenario : Offline\nMode     : PerformanceOnly\n"+
		"Samples per second: 0.165037\nResult is : VALID\n50.00 percentile latency (ns)   : 36448535095\n"))
}

// FuzzMLPerfDetail: the detail log's reader never panics.
func FuzzMLPerfDetail(f *testing.F) {
	data, err := os.ReadFile("testdata/mlperf/offline/mlperf_log_detail.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:4096])
	f.Fuzz(func(t *testing.T, data []byte) { detailTime(data) })
}

func FuzzThoth(f *testing.F) {
	fuzzRead(f, thoth{}, []byte(`{"@parameters": {"device": "cpu", "dtype": "float32", "matrix_size": 256, "reps": 1},`+
		` "@result": {"elapsed": 52.4, "rate": 0.64}, "framework": "tensorflow", "name": "PiMatmul"}`),
		[]byte(`{"inspection_id": "i", "created": "2020-02-12T14:54:57.643346", "job_logs": [{"exit_code": 0,`+
			` "stdout": {"@parameters": {"matrix_size": 256}, "@result": {"elapsed": 1.2, "rate": 26.3}, "framework": "tensorflow", "name": "PiMatmul"},`+
			` "hwinfo": {"cpu_info": {"brand": "Xeon", "count": 64}, "platform": {"release": "3.10.0"}}, "os_release": {"id": "rhel", "version_id": "8.1"},`+
			` "usage": {"ru_maxrss": 142376, "ru_utime": 1.4}}], "status": {"job": {"started_at": "2020-02-12T14:58:17Z", "finished_at": "2020-02-12T14:58:58Z"}}}`))
}
