package host

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture copies testdata/hosts/name into a temporary directory and returns
// it with a wait that moves the copy one watch later: every
// proc/<pid>/stat.later replaces its stat.
func fixture(t *testing.T, name string) (Host, func(context.Context, time.Duration) error) {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "hosts", name))); err != nil {
		t.Fatal(err)
	}
	wait := func(context.Context, time.Duration) error {
		later, err := filepath.Glob(filepath.Join(root, "proc", "*", "stat.later"))
		if err != nil {
			return err
		}
		for _, p := range later {
			if err := os.Rename(p, strings.TrimSuffix(p, ".later")); err != nil {
				return err
			}
		}
		return nil
	}
	return Host{Root: root}, wait
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "hosts", name)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (go test -update to accept):\n%s", golden, got)
	}
}

// TestInspectFixtures: the report a person reads of three recorded hosts,
// and its verdict line.
func TestInspectFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host    string
		verdict string
	}{
		{"quiet-bare-metal", "host: quiet"},
		{"noisy-laptop", "host: noisy (load 5.1 on 8 CPUs; CPU pressure 32%; governor powersave (0-5), performance (6-7); turbo on; busy: stress-ng, cc1, Web Content (x); CPU quota 1.5 CPUs of 8)"},
		{"vm-cgroupv1", "host: quiet"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			h, wait := fixture(t, tc.host)
			r, err := Inspect(context.Background(), h, Options{Sample: time.Second, Self: 1, wait: wait})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Verdict(); got != tc.verdict {
				t.Errorf("verdict %q, want %q", got, tc.verdict)
			}
			if r.Noisy() != strings.HasPrefix(tc.verdict, "host: noisy") {
				t.Errorf("Noisy() = %v for %q", r.Noisy(), tc.verdict)
			}
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(text.String(), "\n"+tc.verdict+"\n") {
				t.Errorf("the text does not end with the verdict:\n%s", text.String())
			}
			checkGolden(t, tc.host+".check.golden.txt", text.Bytes())
			var js bytes.Buffer
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.host+".check.golden.json", js.Bytes())
		})
	}
}

// TestInspectLeavesSelfOut: the process running the check is not busy.
func TestInspectLeavesSelfOut(t *testing.T) {
	t.Parallel()
	h, wait := fixture(t, "noisy-laptop")
	r, err := Inspect(context.Background(), h, Options{Sample: time.Second, Self: 4242, wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Busy {
		if p.PID == 4242 {
			t.Errorf("self listed as busy: %+v", r.Busy)
		}
	}
	if len(r.Busy) != 2 {
		t.Errorf("busy %+v, want cc1 and Web Content", r.Busy)
	}
}

// TestInspectNotWatched: without a sample the busy check says so, and the
// rest of the report is there.
func TestInspectNotWatched(t *testing.T) {
	t.Parallel()
	h, _ := fixture(t, "quiet-bare-metal")
	r, err := Inspect(context.Background(), h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := find(t, r, "busy")
	if c.Status != Unknown || c.State != "not watched" {
		t.Errorf("busy check %+v", c)
	}
	if r.Verdict() != "host: quiet" || r.CPUs != 4 {
		t.Errorf("verdict %q, %d CPUs", r.Verdict(), r.CPUs)
	}
}

// TestInspectCancelled: an interrupted watch is the context's error.
func TestInspectCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h, _ := fixture(t, "quiet-bare-metal")
	if _, err := Inspect(ctx, h, Options{Sample: time.Hour}); err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestInspectEmptyRoot: a host that exposes nothing gives unknown checks,
// each naming the file it lacks, and no verdict of noise.
func TestInspectEmptyRoot(t *testing.T) {
	t.Parallel()
	r, err := Inspect(context.Background(), Host{Root: t.TempDir()}, Options{Sample: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Noisy() || r.Verdict() != "host: quiet" {
		t.Errorf("verdict %q", r.Verdict())
	}
	want := map[string]string{
		"load":     "not exposed (no /proc/loadavg)",
		"governor": "no cpufreq: the firmware or the hypervisor sets the frequency",
		"turbo":    "no switch exposed (a VM, or a driver without one)",
		"smt":      "not exposed (no /sys/devices/system/cpu/smt/active)",
		"aslr":     "not exposed (no /proc/sys/kernel/randomize_va_space)",
		"cgroup":   "no CPU quota",
	}
	for name, state := range want {
		if c := find(t, r, name); c.State != state {
			t.Errorf("%s: state %q, want %q", name, c.State, state)
		}
	}
	if c := find(t, r, "busy"); c.Status != Unknown || !strings.Contains(c.State, "/proc") {
		t.Errorf("busy: %+v", c)
	}
}

// TestTurboSources: intel_pstate's no_turbo and cpufreq's boost say the
// opposite with the same digit.
func TestTurboSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, value string
		status            Status
	}{
		{"intel on", "intel_pstate/no_turbo", "0", Noisy},
		{"intel off", "intel_pstate/no_turbo", "1", OK},
		{"boost on", "cpufreq/boost", "1", Noisy},
		{"boost off", "cpufreq/boost", "0", OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, "sys/devices/system/cpu/"+tc.file, tc.value+"\n")
			c := Host{Root: root}.checkTurbo()
			if c.Status != tc.status || !strings.Contains(c.State, tc.file+" = "+tc.value) {
				t.Errorf("%+v, want %s", c, tc.status)
			}
		})
	}
}

// TestBusyLoad is the test `seshat run` warns with.
func TestBusyLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		load, online string
		busy, ok     bool
		what         string
	}{
		{"0.31 0.22 0.12 1/96 1", "0-1", false, true, "load 0.3 on 2 CPUs"},
		{"1.00 0.22 0.12 1/96 1", "0-1", true, true, "load 1.0 on 2 CPUs"},
		{"1.92 0.22 0.12 1/96 1", "0", true, true, "load 1.9 on 1 CPU"},
		{"3.9 1 1 1/96 1", "0-7", false, true, "load 3.9 on 8 CPUs"},
		{"garbage", "0-1", false, false, ""},
		{"0.1 0.1 0.1 1/1 1", "", false, false, ""},
	}
	for _, tc := range tests {
		root := t.TempDir()
		write(t, root, "proc/loadavg", tc.load)
		if tc.online != "" {
			write(t, root, "sys/devices/system/cpu/online", tc.online+"\n")
		}
		busy, what, ok := Host{Root: root}.Busy()
		if busy != tc.busy || what != tc.what || ok != tc.ok {
			t.Errorf("%q on %q: Busy() = %v, %q, %v; want %v, %q, %v", tc.load, tc.online, busy, what, ok, tc.busy, tc.what, tc.ok)
		}
	}
}

// TestState is what each run records at its start and end.
func TestState(t *testing.T) {
	t.Parallel()
	h, _ := fixture(t, "noisy-laptop")
	s, err := h.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.LoadAvg) != 3 || s.LoadAvg[0] != 5.12 || s.LoadAvg[2] != 2.01 {
		t.Errorf("loadavg %v", s.LoadAvg)
	}
	if s.Governor != "powersave (0-5), performance (6-7)" {
		t.Errorf("governor %q", s.Governor)
	}
	if s.CPUStallUS == nil || *s.CPUStallUS != 8123456789 {
		t.Errorf("cpu_stall_us %v, want /proc/pressure/cpu's some total", s.CPUStallUS)
	}
	// A VM: no governor, the load still recorded; a kernel without
	// pressure stall information is no error.
	vm, _ := fixture(t, "vm-cgroupv1")
	if s, err := vm.State(); err != nil || s.Governor != "" || len(s.LoadAvg) != 3 || s.CPUStallUS != nil {
		t.Errorf("vm state %+v, %v", s, err)
	}
	// Nothing readable: an error naming the file, an empty state.
	s, err = Host{Root: t.TempDir()}.State()
	if err == nil || !strings.Contains(err.Error(), "/proc/loadavg") || s.LoadAvg != nil {
		t.Errorf("empty root: %+v, %v", s, err)
	}
}

// TestRealHost runs on this machine's /proc and /sys: every check that
// Linux always exposes is read, and the report has its verdict.
func TestRealHost(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg: not Linux")
	}
	r, err := Inspect(context.Background(), Host{}, Options{Sample: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.CPUs == 0 {
		t.Error("no online CPUs read")
	}
	for _, name := range []string{"load", "busy", "aslr"} {
		if c := find(t, r, name); c.Status == Unknown {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if v := r.Verdict(); v != "host: quiet" && !strings.HasPrefix(v, "host: noisy (") {
		t.Errorf("verdict %q", v)
	}
	s, err := Host{}.State()
	if err != nil && !strings.Contains(err.Error(), "scaling_governor") {
		t.Errorf("state: %v", err)
	}
	if len(s.LoadAvg) != 3 {
		t.Errorf("state %+v", s)
	}
}

func find(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", name, r.Checks)
	return Check{}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseStall(t *testing.T) {
	t.Parallel()
	p, err := parsePSI("some avg10=0.00 avg60=0.10 avg300=0.05 total=120\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7")
	if err != nil || p.total != 120 {
		t.Errorf("parsePSI total = %d, %v; want the some line's 120", p.total, err)
	}
	for text, want := range map[string]string{
		"":                                  "no some line",
		"full total=3":                      "no some line",
		"some avg10=1.00":                   "the some line has no total",
		"some total=-4":                     `total "-4" is not a count`,
		"some total=12x":                    `total "12x" is not a count`,
		"some total=9999999999999999999999": "is not a count",
		"some avg10=120.00 total=5":         `avg10 "120.00" is not a percentage`,
		"some avg10=0.1 avg60=x total=5":    `avg60 "x" is not a percentage`,
	} {
		if _, err := parsePSI(text); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "/proc/pressure/cpu: ") {
			t.Errorf("parsePSI(%q) error %v, want one naming the file and %q", text, err, want)
		}
	}
}

// FuzzParseStall: the file is the kernel's, but a parser never panics nor
// returns a negative count.
func FuzzParseStall(f *testing.F) {
	f.Add("some avg10=0.00 avg60=0.00 avg300=0.00 total=31888781617\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
	f.Add("some total=")
	f.Fuzz(func(t *testing.T, text string) {
		if p, err := parsePSI(text); err == nil && p.total < 0 {
			t.Errorf("parsePSI(%q) total = %d", text, p.total)
		}
	})
}
