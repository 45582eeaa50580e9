package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func helperExec(t *testing.T, mode string) Exec {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close(); errf.Close() })
	return Exec{
		Args:   []string{os.Args[0]},
		Env:    append(os.Environ(), "SESHAT_HELPER="+mode, "SESHAT_MATRIX_SIZE=512"),
		Dir:    dir,
		Stdout: out,
		Stderr: errf,
	}
}

func TestExecuteExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mode string
		code int
	}{
		{"success", "exit 0", 0},
		{"failure", "exit 3", 3},
		{"killed by a signal", "signal", 128 + 15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := helperExec(t, tc.mode)
			o := Execute(context.Background(), x)
			if o.ExitCode != tc.code || o.Err != nil || o.TimedOut || o.Interrupted {
				t.Fatalf("outcome %+v, want exit code %d", o, tc.code)
			}
			if o.Rusage == nil || o.Rusage.Maxrss <= 0 || !o.End.After(o.Start) {
				t.Errorf("rusage %+v, start %v end %v", o.Rusage, o.Start, o.End)
			}
			if tc.mode == "exit 0" {
				out, _ := os.ReadFile(filepath.Join(x.Dir, "stdout.log"))
				errOut, _ := os.ReadFile(filepath.Join(x.Dir, "stderr.log"))
				if !strings.Contains(string(out), "SESHAT_MATRIX_SIZE=512") || string(errOut) != "helper stderr\n" {
					t.Errorf("stdout %q stderr %q", out, errOut)
				}
			}
		})
	}
}

func TestExecuteStartFailure(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "exit 0")
	x.Args = []string{filepath.Join(t.TempDir(), "no-such-program")}
	o := Execute(context.Background(), x)
	if o.ExitCode != StartFailureExitCode || o.Err == nil || !strings.HasPrefix(o.Describe(0), "failed to start") {
		t.Errorf("outcome %+v", o)
	}
}

func TestExecuteTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "")
	pidfile := filepath.Join(x.Dir, "pids")
	x.Env = append(x.Env, "SESHAT_HELPER=grandchild "+pidfile)
	x.Timeout = 2 * time.Second
	done := make(chan Outcome, 1)
	go func() { done <- Execute(context.Background(), x) }()
	pids := pidsIn(t, waitFile(t, pidfile))
	o := <-done
	if !o.TimedOut || o.ExitCode != TimeoutExitCode || o.Interrupted {
		t.Fatalf("outcome %+v", o)
	}
	if !strings.HasPrefix(o.Describe(x.Timeout), "timed out after 2s") {
		t.Errorf("describe %q", o.Describe(x.Timeout))
	}
	assertDead(t, pids...) // the child and its grandchild
}

func TestExecuteCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "")
	pidfile := filepath.Join(x.Dir, "pids")
	x.Env = append(x.Env, "SESHAT_HELPER=grandchild "+pidfile)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome, 1)
	go func() { done <- Execute(ctx, x) }()
	pids := pidsIn(t, waitFile(t, pidfile))
	cancel() // what SIGINT does to seshat's context
	o := <-done
	if !o.Interrupted || !errors.Is(o.Err, ErrInterrupted) || o.TimedOut {
		t.Fatalf("outcome %+v", o)
	}
	assertDead(t, pids...)
}

func TestExecuteKillsStragglers(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "")
	pidfile := filepath.Join(x.Dir, "pids")
	x.Env = append(x.Env, "SESHAT_HELPER=background "+pidfile)
	o := Execute(context.Background(), x)
	if o.ExitCode != 0 {
		t.Fatalf("outcome %+v", o)
	}
	pids := pidsIn(t, waitFile(t, pidfile))
	assertDead(t, pids[1]) // left running in the group by the child
}

// TestExecuteKillsEscapedDescendants: a PI's child that leaves the process
// group (setsid) or daemonises (double fork, orphaned) must not outlive the
// run, whether the run ends by itself or by --timeout: in a cgroup of the
// run where the host allows one (even a daemon that clears its
// environment), and in the subreaper fallback.
func TestExecuteKillsEscapedDescendants(t *testing.T) {
	t.Parallel()
	cgroups := cgroupsHere(t)
	for _, containment := range []string{"cgroup", "subreaper"} {
		for _, mode := range []string{"setsid", "daemon", "daemon-noenv"} {
			for _, end := range []string{"exit", "sleep"} {
				t.Run(containment+" "+mode+" "+end, func(t *testing.T) {
					t.Parallel()
					if containment == "cgroup" && !cgroups {
						t.Skip("no cgroup v2 a run's cgroup can be created in")
					}
					if containment == "subreaper" && mode == "daemon-noenv" {
						t.Skip("the fallback finds a daemon by the environment it inherited")
					}
					x := helperExec(t, "")
					x.noCgroup = containment == "subreaper"
					pidfile := filepath.Join(x.Dir, "pids")
					x.Env = append(x.Env, "SESHAT_HELPER="+mode+" "+pidfile+" "+end)
					if end == "sleep" {
						x.Timeout = 2 * time.Second
					}
					o := Execute(context.Background(), x)
					if o.Err != nil || o.TimedOut != (end == "sleep") || o.Stray != 1 {
						t.Errorf("outcome %+v, want 1 stray process", o)
					}
					pids := pidsIn(t, waitFile(t, pidfile))
					t.Cleanup(func() { killAll(pids) })
					for _, pid := range pids {
						if alive(pid) {
							t.Errorf("process %d (%s) survived the run", pid, mode)
						}
					}
				})
			}
		}
	}
}

// peakBallast is memory TestChildPeakHoldsSeshats keeps resident while a
// child runs.
var peakBallast []byte

// TestChildPeakHoldsSeshats: a child that runs /bin/true reports as its
// peak (ru_maxrss) the peak of this process's memory, which Linux takes
// into a child started with vfork semantics at exec; the usage records
// this process's peak beside it, so that readers can tell them apart.
func TestChildPeakHoldsSeshats(t *testing.T) {
	const ballast = 256 << 20
	peakBallast = make([]byte, ballast)
	for i := 0; i < len(peakBallast); i += 4096 {
		peakBallast[i] = 1
	}
	defer func() { peakBallast = nil }()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	o := Execute(context.Background(), Exec{Args: []string{"/bin/true"}, Dir: dir, Stdout: out, Stderr: out})
	if o.ExitCode != 0 || o.Rusage == nil {
		t.Fatalf("outcome %+v", o)
	}
	u := usageOf(o)
	if u.Rusage.MaxRSSBytes < ballast {
		t.Errorf("/bin/true's maxrss %d MiB: want at least this process's %d MiB (the kernel's rule this guards against changed?)", u.Rusage.MaxRSSBytes>>20, ballast>>20)
	}
	if u.SeshatMaxRSSBytes < u.Rusage.MaxRSSBytes || u.SeshatMaxRSSBytes != o.SelfMaxRSS*1024 {
		t.Errorf("seshat_maxrss_bytes %d, want this process's peak, at least the child's %d", u.SeshatMaxRSSBytes, u.Rusage.MaxRSSBytes)
	}
}
