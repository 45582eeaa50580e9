package pi

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/models"
)

// recorder collects decoder warnings.
type recorder struct{ warnings []string }

func (r *recorder) Warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// testdataResults is the shipped results tree (read only: tests that parse
// it as a tree copy it first).
const testdataResults = "../../testdata/results"

func readTestdata(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdataResults, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

const goodRun = "matmul_sizes/003__matrix_size=512"

// assertWarnings checks that each warning contains the matching fragment, in
// order, and that there are no others.
func assertWarnings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings = %q, want %d matching %q", got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func TestDecodePI(t *testing.T) {
	t.Parallel()
	good := string(readTestdata(t, goodRun+"/pi.json"))
	settings := models.Settings{"matrix_size": 512, "dtype": "float32", "device": "cpu", "repetitions": 30, "warmup": 3}
	rate := func(pi *models.PIResult) any {
		if pi.Result.Rate == nil {
			return nil
		}
		return *pi.Result.Rate
	}
	tests := []struct {
		name     string
		data     string
		settings models.Settings
		wantNil  bool
		check    func(t *testing.T, pi *models.PIResult)
		warnings []string
	}{
		{
			name: "shipped run", data: good, settings: settings,
			check: func(t *testing.T, pi *models.PIResult) {
				if pi.Component != "numpy" || pi.Name != "PiMatmul" || len(pi.Result.SamplesMs) != 30 {
					t.Errorf("pi = %+v", pi)
				}
				if r := rate(pi); r != 394.381 {
					t.Errorf("rate = %v, want 394.381", r)
				}
			},
		},
		{
			name:     "NaN and Infinity as Python writes them are absent values",
			data:     "{\"name\": \"PiMatmul\",\n \"@result\": {\"rate\": NaN, \"elapsed\": 1.5,\n  \"samples_ms\": [1.5, Infinity, -Infinity], \"cv\": NaN}}",
			warnings: []string{"pi.json:2: field rate: NaN is not valid JSON, read as null", "pi.json:3: Infinity is not valid JSON", "pi.json:3: -Infinity is not valid JSON", "pi.json:3: field cv: NaN"},
			check: func(t *testing.T, pi *models.PIResult) {
				if pi.Result.Rate != nil || pi.Result.Elapsed != 1.5 || !reflect.DeepEqual(pi.Result.SamplesMs, models.Samples{1.5, 0, 0}) {
					t.Errorf("result = %+v", pi.Result)
				}
			},
		},
		{
			name:     "NaN inside a string is text",
			data:     `{"name": "NaN Infinity", "@result": {"elapsed": 2}}`,
			check:    func(t *testing.T, pi *models.PIResult) { assertEqual(t, pi.Name, "NaN Infinity") },
			warnings: nil,
		},
		{
			name:     "a field of the wrong type keeps the rest",
			data:     "{\"name\": \"PiMatmul\",\n \"@result\": {\"rate\": \"412.7\", \"elapsed\": 0.65}}",
			warnings: []string{"pi.json:2: field @result.rate: cannot use JSON string as float64"},
			check: func(t *testing.T, pi *models.PIResult) {
				if pi.Result.Rate != nil || pi.Result.Elapsed != 0.65 || pi.Name != "PiMatmul" {
					t.Errorf("pi = %+v", pi)
				}
			},
		},
		{
			name:     "a version written as a number clears the versions only",
			data:     `{"name": "PiMatmul", "@result": {"rate": 2, "elapsed": 1}, "versions": {"cuda": 12.1}}`,
			warnings: []string{"pi.json:1: field versions: cannot use JSON number as string"},
			check: func(t *testing.T, pi *models.PIResult) {
				if pi.Versions != nil || rate(pi) != 2.0 {
					t.Errorf("pi = %+v", pi)
				}
			},
		},
		{
			name:     "trailing content loses the file",
			data:     good + "\n   4.7059,\n  ]\n}\n",
			wantNil:  true,
			warnings: []string{"pi.json:57: unexpected content after the JSON document"},
		},
		{
			name:     "truncated",
			data:     good[:200],
			wantNil:  true,
			warnings: []string{"pi.json:13: truncated JSON document"},
		},
		{name: "empty file", data: "", wantNil: true, warnings: []string{"pi.json:1: empty document"}},
		{name: "null", data: "null\n", wantNil: true, warnings: []string{"pi.json: empty document"}},
		{name: "array", data: "[1, 2]", wantNil: true, warnings: []string{"pi.json:1: field (document)"}},
		{name: "binary", data: "\x00\x01\xff\xfe", wantNil: true, warnings: []string{"pi.json:1: invalid character"}},
		{
			name: "impossible values are kept and named",
			data: `{"name": "PiMatmul", "@result": {"rate": -3, "elapsed": -1, "flops": -2,
				"samples_ms": [1, -1, -2], "ci95_low": 2, "ci95_high": 1, "cv": -0.1}}`,
			warnings: []string{
				"pi.json: field @result.rate: -3 is not a positive rate",
				"pi.json: field @result.elapsed: negative time -1",
				"pi.json: field @result.flops: negative count -2",
				"pi.json: field @result.samples_ms[1]: negative time -1",
				"pi.json: field @result.ci95_low: 2 above ci95_high 1",
				"pi.json: field @result.cv: negative",
			},
			check: func(t *testing.T, pi *models.PIResult) { assertEqual(t, rate(pi), -3.0) },
		},
		{
			name:     "missing elapsed",
			data:     `{"name": "PiImport", "@result": {"samples_ms": [3]}}`,
			warnings: []string{"pi.json: field @result.elapsed: missing or zero"},
		},
		{
			name:     "parameters that contradict the settings",
			data:     `{"name": "PiMatmul", "@parameters": {"matrix_size": 1024, "dtype": "float32", "repetitions": 57}, "@result": {"elapsed": 1}}`,
			settings: models.Settings{"matrix_size": 512, "dtype": "float32", "repetitions": "auto"},
			warnings: []string{"pi.json: field @parameters.matrix_size: 1024, but the settings say 512"},
		},
		{
			name:     "an int setting matches a JSON number",
			data:     `{"name": "PiMatmul", "@parameters": {"matrix_size": 512.0}, "@result": {"elapsed": 1}}`,
			settings: models.Settings{"matrix_size": 512},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w recorder
			pi := decodePI([]byte(tt.data), tt.settings, &w)
			if (pi == nil) != tt.wantNil {
				t.Fatalf("decodePI = %+v, want nil: %v", pi, tt.wantNil)
			}
			assertWarnings(t, w.warnings, tt.warnings...)
			if tt.check != nil && pi != nil {
				tt.check(t, pi)
			}
		})
	}
}

func assertEqual(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestNonFiniteToNull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, out string
		found         []string
	}{
		{name: "none", in: `{"a": 1}`, out: `{"a": 1}`},
		{name: "object member", in: `{"a": NaN}`, out: `{"a": null}`, found: []string{"1:a=NaN"}},
		{name: "array elements", in: "[NaN,\n-Infinity ,Infinity]", out: "[null,\nnull ,null]", found: []string{"1:=NaN", "2:=-Infinity", "2:=Infinity"}},
		{name: "escaped quote in a string", in: `{"a\"": "x\"NaN", "b": NaN}`, out: `{"a\"": "x\"NaN", "b": null}`, found: []string{"1:b=NaN"}},
		{name: "escaped key", in: `{"a\"b": NaN}`, out: `{"a\"b": null}`, found: []string{`1:a"b=NaN`}},
		{name: "not a literal", in: `[NaNa, xNaN, Infinityy]`, out: `[NaNa, xNaN, Infinityy]`},
		{name: "document", in: `NaN`, out: `null`, found: []string{"1:=NaN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, found := nonFiniteToNull([]byte(tt.in))
			assertEqual(t, string(out), tt.out)
			var got []string
			for _, f := range found {
				got = append(got, f.String())
			}
			assertEqual(t, got, tt.found)
		})
	}
}

func TestDecodeHWInfo(t *testing.T) {
	t.Parallel()
	good := string(readTestdata(t, goodRun+"/hwinfo.json"))
	tests := []struct {
		name     string
		data     string
		wantNil  bool
		check    func(t *testing.T, hw *models.HWInfo)
		warnings []string
	}{
		{
			name: "shipped run", data: good,
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.CPU.Model, "AMD EPYC 7763 64-Core Processor")
				assertEqual(t, hw.CPU.Threads, 16)
				assertEqual(t, *hw.CgroupCPULimit, 8.0)
				if !strings.Contains(strings.Join(hw.CPU.Flags, " "), "avx2") {
					t.Errorf("flags = %v", hw.CPU.Flags)
				}
			},
		},
		{
			name:     "truncated as shipped",
			data:     string(readTestdata(t, "matmul_sizes/005__matrix_size=2048/hwinfo.json")),
			wantNil:  true,
			warnings: []string{"hwinfo.json:59: truncated JSON document"},
		},
		{
			name:     "negative memory keeps the rest",
			data:     "{\"hostname\": \"h\",\n\"memory_bytes\": -1}",
			warnings: []string{"hwinfo.json:2: field memory_bytes: cannot use JSON number -1 as uint64"},
			check:    func(t *testing.T, hw *models.HWInfo) { assertEqual(t, hw.Hostname, "h") },
		},
		{
			name:     "a cgroup limit as text is absent, not zero",
			data:     `{"hostname": "h", "cgroup_cpu_limit": "8"}`,
			warnings: []string{"hwinfo.json:1: field cgroup_cpu_limit"},
			check: func(t *testing.T, hw *models.HWInfo) {
				if hw.CgroupCPULimit != nil {
					t.Errorf("cgroup_cpu_limit = %v, want absent", *hw.CgroupCPULimit)
				}
			},
		},
		{
			name:     "gpus of the wrong shape",
			data:     `{"hostname": "h", "gpus": {"name": "A100"}}`,
			warnings: []string{"hwinfo.json:1: field gpus"},
			check:    func(t *testing.T, hw *models.HWInfo) { assertEqual(t, len(hw.GPUs), 0) },
		},
		{name: "deeply nested", data: strings.Repeat("[", 20000), wantNil: true, warnings: []string{"hwinfo.json:1:"}},
		{
			name: "Amun's document",
			data: string(readTestdata(t, "../amun/amun_inspection/000__run/hwinfo.json")),
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.OS, models.OSRelease{ID: "rhel", VersionID: "8.3", PrettyName: "Red Hat Enterprise Linux 8.3 (Ootpa)"})
				assertEqual(t, hw.CPU.Model, "Intel Xeon Processor (Skylake, IBRS)")
				assertEqual(t, hw.Kernel, "4.18.0-240.10.1.el8_3.x86_64")
				assertEqual(t, hw.CPU.Threads, 16)
			},
		},
		{
			name: "os_release with /etc/os-release's own names",
			data: `{"os_release": {"ID": "ubuntu", "VERSION_ID": "22.04", "PRETTY_NAME": "Ubuntu 22.04.4 LTS"}}`,
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.OS, models.OSRelease{ID: "ubuntu", VersionID: "22.04", PrettyName: "Ubuntu 22.04.4 LTS"})
			},
		},
		{
			name: "os_release as the file's text",
			data: `{"os_release": "NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=39\n"}`,
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.OS, models.OSRelease{ID: "fedora", VersionID: "39"})
			},
		},
		{
			name: "os_release as a name",
			data: `{"os_release": "Red Hat Enterprise Linux 8.2 (Ootpa)"}`,
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.OS.PrettyName, "Red Hat Enterprise Linux 8.2 (Ootpa)")
			},
		},
		{
			name: "os wins over os_release",
			data: `{"os": {"id": "debian", "version_id": "12"}, "os_release": {"id": "rhel", "version_id": "8.2"}}`,
			check: func(t *testing.T, hw *models.HWInfo) {
				assertEqual(t, hw.OS, models.OSRelease{ID: "debian", VersionID: "12"})
			},
		},
		{
			name:     "os_release of the wrong shape",
			data:     `{"hostname": "h", "os_release": 8.2}`,
			warnings: []string{"hwinfo.json: field os_release: neither an object of os-release fields nor a string"},
			check:    func(t *testing.T, hw *models.HWInfo) { assertEqual(t, hw.OS, models.OSRelease{}) },
		},
		{name: "nothing known", data: `{"colour": "blue"}`, wantNil: true, warnings: []string{"hwinfo.json: empty document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w recorder
			hw := decodeHWInfo([]byte(tt.data), &w)
			if (hw == nil) != tt.wantNil {
				t.Fatalf("decodeHWInfo = %+v, want nil: %v", hw, tt.wantNil)
			}
			assertWarnings(t, w.warnings, tt.warnings...)
			if tt.check != nil && hw != nil {
				tt.check(t, hw)
			}
		})
	}
}

func TestDecodeUsage(t *testing.T) {
	t.Parallel()
	good := string(readTestdata(t, goodRun+"/usage.json"))
	tests := []struct {
		name     string
		data     string
		wantNil  bool
		check    func(t *testing.T, u *models.Usage)
		warnings []string
	}{
		{
			name: "shipped run", data: good,
			check: func(t *testing.T, u *models.Usage) {
				assertEqual(t, u.Start, time.Date(2025, 3, 14, 2, 30, 15, 38218000, time.UTC))
				if d := u.End.Sub(u.Start).Seconds(); math.Abs(d-u.WallSeconds) > 1e-6 {
					t.Errorf("end - start = %v, wall_seconds %v", d, u.WallSeconds)
				}
				if u.Rusage.MaxRSSBytes <= 0 || u.Rusage.UtimeSeconds <= 0 {
					t.Errorf("rusage = %+v", u.Rusage)
				}
			},
		},
		{
			name: "times in another zone are read in UTC",
			data: `{"start": "2025-03-14T03:30:00+01:00", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60}`,
			check: func(t *testing.T, u *models.Usage) {
				assertEqual(t, u.Start, time.Date(2025, 3, 14, 2, 30, 0, 0, time.UTC))
			},
		},
		{
			name:     "a malformed time names its field and keeps the rest",
			data:     `{"start": "14/03/2025 02:30", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60}`,
			warnings: []string{`usage.json: field start: "14/03/2025 02:30" is not an RFC 3339 time`},
			check: func(t *testing.T, u *models.Usage) {
				if !u.Start.IsZero() || u.End.IsZero() || u.WallSeconds != 60 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name:     "a time of the wrong type",
			data:     "{\"start\": 1741919400,\n \"end\": \"2025-03-14T02:31:00Z\"}",
			warnings: []string{"usage.json:1: field start: cannot use JSON number as string", "usage.json: field start: missing"},
		},
		{
			name:     "missing end, negative times",
			data:     `{"start": "2025-03-14T02:31:00Z", "wall_seconds": -1, "rusage": {"utime_seconds": -2}}`,
			warnings: []string{"usage.json: field end: missing", "usage.json: field wall_seconds: negative time -1", "usage.json: field rusage: negative CPU time"},
		},
		{
			name:     "end before start",
			data:     `{"start": "2025-03-14T02:31:00Z", "end": "2025-03-14T02:30:00Z", "wall_seconds": 60}`,
			warnings: []string{"usage.json: field end: 2025-03-14T02:30:00Z is before start 2025-03-14T02:31:00Z"},
		},
		{
			name:     "a year JSON cannot hold once in UTC",
			data:     `{"start": "0000-01-01T00:00:00+01:00", "end": "2025-03-14T02:31:00Z"}`,
			warnings: []string{`usage.json: field start: "0000-01-01T00:00:00+01:00" is out of range`},
		},
		{
			name: "the CPUs and the host around the run",
			data: `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "cpus": "0-1",
				"host_start": {"loadavg": [0.5, 0.25, 0.125], "governor": "performance"}, "host_end": {"loadavg": [1, 0.5, 0.25]}}`,
			check: func(t *testing.T, u *models.Usage) {
				assertEqual(t, u.CPUs, "0-1")
				assertEqual(t, u.HostStart, &models.HostState{LoadAvg: []float64{0.5, 0.25, 0.125}, Governor: "performance"})
				assertEqual(t, u.HostEnd, &models.HostState{LoadAvg: []float64{1, 0.5, 0.25}})
			},
		},
		{
			name: "a broken record of the host is dropped, the usage kept",
			data: `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60,
				"host_start": {"loadavg": "high"}, "host_end": {"loadavg": [1, -2], "governor": "powersave"}}`,
			warnings: []string{"usage.json: field host_start: json: cannot unmarshal string",
				"usage.json: field host_end.loadavg: [1 -2] is not three load averages"},
			check: func(t *testing.T, u *models.Usage) {
				if u.HostStart != nil || u.WallSeconds != 60 {
					t.Errorf("usage = %+v", u)
				}
				assertEqual(t, u.HostEnd, &models.HostState{Governor: "powersave"})
			},
		},
		{
			name: "seshat's own peak",
			data: `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "seshat_maxrss_bytes": 41943040}`,
			check: func(t *testing.T, u *models.Usage) {
				assertEqual(t, u.SeshatMaxRSSBytes, int64(40<<20))
			},
		},
		{
			name:     "seshat's own peak negative",
			data:     `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "seshat_maxrss_bytes": -1}`,
			warnings: []string{"usage.json: field seshat_maxrss_bytes: negative size -1"},
			check: func(t *testing.T, u *models.Usage) {
				if u.SeshatMaxRSSBytes != 0 || u.WallSeconds != 60 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name:     "seshat's own peak of the wrong type",
			data:     `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "seshat_maxrss_bytes": "big"}`,
			warnings: []string{"usage.json:1: field seshat_maxrss_bytes: cannot use JSON string as int64"},
			check: func(t *testing.T, u *models.Usage) {
				if u.SeshatMaxRSSBytes != 0 || u.WallSeconds != 60 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name: "the kernel's peak beside the reported one",
			data: `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "rusage": {"maxrss_bytes": 20971520}, "kernel_maxrss_bytes": 52428800}`,
			check: func(t *testing.T, u *models.Usage) {
				assertEqual(t, u.KernelMaxRSSBytes, int64(50<<20))
				assertEqual(t, u.Rusage.MaxRSSBytes, int64(20<<20))
			},
		},
		{
			name:     "the kernel's peak negative",
			data:     `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "kernel_maxrss_bytes": -5}`,
			warnings: []string{"usage.json: field kernel_maxrss_bytes: negative size -5"},
			check: func(t *testing.T, u *models.Usage) {
				if u.KernelMaxRSSBytes != 0 || u.WallSeconds != 60 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name:     "a negative stall count",
			data:     `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "host_start": {"loadavg": [1, 1, 1], "cpu_stall_us": -3}, "host_end": {"cpu_stall_us": 60000000}}`,
			warnings: []string{"usage.json: field host_start.cpu_stall_us: -3 is not a count of microseconds"},
			check: func(t *testing.T, u *models.Usage) {
				if u.HostStart == nil || u.HostStart.CPUStallUS != nil || u.HostEnd == nil || *u.HostEnd.CPUStallUS != 60000000 {
					t.Errorf("usage = %+v", u)
				}
				if _, ok := u.CPUPressure(); ok {
					t.Errorf("a CPU pressure from a dropped count")
				}
			},
		},
		{
			name:     "the GPUs around a run on the GPU",
			data:     `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "host_start": {"gpus": [{"index": 0, "utilization_percent": 0, "sm_clock_mhz": 405, "temperature_c": 36, "power_w": 94.51}]}, "host_end": {"gpus": [{"index": 0, "utilization_percent": -1, "sm_clock_mhz": 1650}]}}`,
			warnings: []string{"usage.json: field host_end.gpus: GPU 0 has a negative index, utilization, clock or power"},
			check: func(t *testing.T, u *models.Usage) {
				if u.HostStart == nil || len(u.HostStart.GPUs) != 1 || *u.HostStart.GPUs[0].SMClockMHz != 405 || *u.HostStart.GPUs[0].UtilizationPercent != 0 {
					t.Errorf("host_start %+v", u.HostStart)
				}
				if u.HostEnd != nil {
					t.Errorf("host_end %+v, want none: its one record dropped", u.HostEnd)
				}
			},
		},
		{
			name: "a list of GPUs of the wrong type drops that record only",
			data: `{"start": "2025-03-14T02:30:00Z", "end": "2025-03-14T02:31:00Z", "wall_seconds": 60, "host_start": {"loadavg": [1, 1, 1], "gpus": "H100"}, "host_end": {"loadavg": [1, 1, 1], "gpus": [{"index": "zero"}]}}`,
			warnings: []string{"usage.json: field host_start: json: cannot unmarshal string",
				"usage.json: field host_end: json: cannot unmarshal string"},
			check: func(t *testing.T, u *models.Usage) {
				if u.HostStart != nil || u.HostEnd != nil || u.WallSeconds != 60 {
					t.Errorf("usage = %+v, want the wall time kept and both host records dropped", u)
				}
			},
		},
		{name: "garbage", data: "Killed\n", wantNil: true, warnings: []string{"usage.json:1: invalid character 'K'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w recorder
			u := decodeUsage([]byte(tt.data), &w)
			if (u == nil) != tt.wantNil {
				t.Fatalf("decodeUsage = %+v, want nil: %v", u, tt.wantNil)
			}
			assertWarnings(t, w.warnings, tt.warnings...)
			if tt.check != nil && u != nil {
				tt.check(t, u)
			}
		})
	}
}

// TestUsageDocMirrorsModel keeps usageDoc, which decodes usage.json, in step
// with models.Usage, the contract type.
func TestUsageDocMirrorsModel(t *testing.T) {
	t.Parallel()
	names := func(v any) []string {
		var out []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			out = append(out, typ.Field(i).Tag.Get("json"))
		}
		return out
	}
	assertEqual(t, names(usageDoc{}), names(models.Usage{}))
}

func TestDecodeConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     string
		want     string // the JSON text; "" for none
		warnings []string
	}{
		{
			name: "numbers are JSON numbers, keys sorted",
			data: "repeat: 3\nexpe: e\npoint:\n  matrix_size: 512\n  ratio: 0.50\n",
			want: `{"expe":"e","point":{"matrix_size":512,"ratio":0.5},"repeat":3}`,
		},
		{
			name: "what JSON cannot hold",
			data: "a: .inf\nb: .nan\nc: {1: x, 2: y}\nd: 2025-03-14\ne: 2025-03-14T02:30:00Z\n",
			want: `{"a":".inf","b":".nan","c":{"1":"x","2":"y"},"d":"2025-03-14","e":"2025-03-14T02:30:00Z"}`,
		},
		{name: "empty", data: ""},
		{name: "not a map", data: "- a\n- b\n", warnings: []string{"config.yaml:1: cannot unmarshal"}},
		{name: "bad YAML", data: "a: b\n c: [\n", warnings: []string{"config.yaml:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w recorder
			got := decodeConfig([]byte(tt.data), &w)
			assertEqual(t, string(got), tt.want)
			assertWarnings(t, w.warnings, tt.warnings...)
		})
	}
}

func TestDecodeUUID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want, warning string
	}{
		{name: "v4 with newline", data: "3F2504E0-4F89-41D3-9A0C-0305E82C3301\n", want: "3f2504e0-4f89-41d3-9a0c-0305e82c3301"},
		{name: "empty", data: "\n", warning: ".uuid:1: empty UUID"},
		{name: "garbage", data: "run-42", warning: `.uuid:1: invalid UUID "run-42"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w recorder
			assertEqual(t, decodeUUID([]byte(tt.data), &w), tt.want)
			if tt.warning == "" {
				assertWarnings(t, w.warnings)
			} else {
				assertWarnings(t, w.warnings, tt.warning)
			}
		})
	}
}

func TestLogText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "plain", in: []byte("ok\n"), want: "ok\n"},
		{name: "cut inside a character", in: []byte("\xa9t\xc3\xa9\n"), want: "té\n"},
		{name: "invalid bytes", in: []byte("a\xffb"), want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := logText(tt.in)
			assertEqual(t, got, tt.want)
			// The cache stores it as JSON: it must come back the same.
			raw, _ := json.Marshal(got)
			var back string
			if err := json.Unmarshal(raw, &back); err != nil || back != got || !utf8.ValidString(got) {
				t.Errorf("round trip %q -> %q (%v)", got, back, err)
			}
		})
	}
}
