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

func FuzzGoogleBenchmark(f *testing.F) {
	fuzzRead(f, googleBenchmark{}, []byte(`{"context": {"date": "2026-11-26T17:45:44+00:00", "host_name": "vm", "num_cpus": 2, "library_build_type": "debug"},`+
		` "benchmarks": [{"name": "BM_Sort/256", "run_name": "BM_Sort/256", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,`+
		` "threads": 1, "iterations": 8252, "real_time": 8.4e+00, "cpu_time": 8.3e+00, "time_unit": "us", "items_per_second": 2.9e+07},`+
		` {"name": "BM_Sort/256_median", "run_name": "BM_Sort/256", "run_type": "aggregate", "aggregate_name": "median", "aggregate_unit": "time",`+
		` "threads": 1, "iterations": 2, "real_time": 8.5e+00, "cpu_time": 8.5e+00, "time_unit": "us"},`+
		` {"name": "BM_Read", "run_name": "BM_Read", "run_type": "iteration", "threads": 1, "error_occurred": true, "error_message": "no input"}]}`))
}

func FuzzHyperfine(f *testing.F) {
	fuzzRead(f, hyperfine{}, []byte(`{"results": [{"command": "gzip -c -1 data.bin", "mean": 0.03, "stddev": 0.006, "median": 0.028,`+
		` "user": 0.021, "system": 0.006, "min": 0.027, "max": 0.041, "times": [0.027, 0.028, 0.041], "exit_codes": [0, 0, null],`+
		` "parameters": {"level": "1"}}]}`))
}

func FuzzAsv(f *testing.F) {
	fuzzRead(f, asv{}, []byte(`{"commit_hash": "05baf11f", "env_name": "virtualenv-py3.12", "date": 1753724236000,`+
		` "params": {"machine": "Docker_Container", "num_cpu": "64", "python": "3.12", "numpy": ""}, "python": "3.12", "requirements": {"numpy": ""},`+
		` "result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples"],`+
		` "results": {"b.T.time_x": [[0.0056, null], [["1", "'a'"]], "2025.07.02", 1753844943275, 0.46, [0.0056, null], [0.0059, null], [0.0056, null], [0.0057, null], [2, null], [10, null], [[0.0055, 0.0057], null]],`+
		` "b.T.peakmem_y": [[1048576], [], "1"]}, "version": 2}`))
}

func FuzzJMH(f *testing.F) {
	fuzzRead(f, jmh{}, []byte(`[{"jmhVersion": "1.37", "benchmark": "org.x.B.enforce", "mode": "thrpt", "threads": 1, "forks": 1,`+
		` "jdkVersion": "17.0.8", "warmupIterations": 1, "warmupTime": "1 s", "measurementIterations": 3, "measurementTime": "1 s",`+
		` "params": {"dataScale": "small"}, "primaryMetric": {"score": 20.3, "scoreError": "NaN", "scoreUnit": "ops/ms", "rawData": [[15.8, 21.0, 24.1]]},`+
		` "secondaryMetrics": {"·gc.alloc.rate.norm": {"score": 1024, "scoreUnit": "B/op"}}}]`))
}

// FuzzCriterion feeds a benchmark.json, estimates.json and sample.json to
// the reader of one criterion benchmark.
func FuzzCriterion(f *testing.F) {
	f.Add([]byte(`{"group_id":"sum","function_id":"iter","value_str":null,"throughput":{"Bytes":32768},"full_id":"sum/iter"}`),
		[]byte(`{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":570.0,"upper_bound":586.9},"point_estimate":577.1,"standard_error":4.5},`+
			`"median":{"point_estimate":575.0},"slope":{"point_estimate":576.0},"std_dev":{"point_estimate":20.0}}`),
		[]byte(`{"sampling_mode":"Linear","iters":[100.0,200.0],"times":[57000.0,115000.0]}`))
	f.Fuzz(func(t *testing.T, bench, est, sample []byte) {
		in := Input{Name: "/nonexistent/new/benchmark.json", Data: bench, ModTime: time.Unix(0, 0)}
		runs, _, err := criterionRun(in, est, sample, Options{})
		if err != nil {
			return
		}
		for _, r := range runs {
			if r.Settings["workload"] != "criterion" {
				t.Fatalf("run without the criterion workload: %v", r.Settings)
			}
		}
	})
}
