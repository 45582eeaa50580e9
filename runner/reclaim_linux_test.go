package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startSeshat starts a process of its own standing in for seshat: it
// Executes a child that starts a grandchild, both sleeping, in the given
// containment. It returns that process and the pids of the child and the
// grandchild.
func startSeshat(t *testing.T, containment string) (*exec.Cmd, int, int) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pids")
	c := startHelper(t, "execute "+pidfile+" "+containment)
	pids := pidsIn(t, waitFile(t, pidfile))
	t.Cleanup(func() { killAll(pids) })
	return c, pids[0], pids[1]
}

// runCgroups lists the run cgroups of pid below this process's cgroup.
func runCgroups(t *testing.T, pid int) []string {
	t.Helper()
	own, err := ownCgroup()
	if err != nil {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(own, fmt.Sprintf("%s%d-*", runCgroupPrefix, pid)))
	return m
}

// TestSIGKILLedSeshatTakesItsRunWithIt: a seshat killed with SIGKILL
// takes its run's child with it at once (PR_SET_PDEATHSIG), so no PI
// writes into a run directory after seshat is gone; what the child had
// started, and the run's cgroup, are removed by the next seshat's
// Reclaim, which leaves alone the runs of a seshat still alive, in
// another process or in this one.
func TestSIGKILLedSeshatTakesItsRunWithIt(t *testing.T) {
	cgroups := cgroupsHere(t)
	for _, containment := range []string{"cgroup", "subreaper"} {
		t.Run(containment, func(t *testing.T) {
			if containment == "cgroup" && !cgroups {
				t.Skip("no cgroup v2 a run's cgroup can be created in")
			}
			// A live seshat in another process, and a live run in this one.
			live, liveChild, liveGrandchild := startSeshat(t, containment)
			ctx, cancel := context.WithCancel(context.Background())
			x := helperExec(t, "")
			x.noCgroup = containment == "subreaper"
			mine := filepath.Join(x.Dir, "pids")
			x.Env = append(x.Env, "SESHAT_HELPER=grandchild "+mine)
			ran := make(chan Outcome, 1)
			go func() { ran <- Execute(ctx, x) }()
			myPids := pidsIn(t, waitFile(t, mine))
			t.Cleanup(func() { cancel(); <-ran })

			dead, child, grandchild := startSeshat(t, containment)
			if containment == "cgroup" && len(runCgroups(t, dead.Process.Pid)) != 1 {
				t.Fatalf("the run has no cgroup: %v", runCgroups(t, dead.Process.Pid))
			}
			dead.Process.Signal(unix.SIGKILL)
			dead.Wait()
			assertDead(t, child)
			// Any seshat run on this machine reclaims at its start: one
			// of another package's tests can take the grandchild, and
			// remove the run's cgroup, before this test's Reclaim (seen
			// in CI, before and after the check below). A grandchild
			// that died with seshat would leave its cgroup behind: the
			// kernel removes none.
			reclaimedElsewhere := func() bool {
				return containment == "cgroup" && len(runCgroups(t, dead.Process.Pid)) == 0
			}
			if !alive(grandchild) && !reclaimedElsewhere() {
				t.Fatalf("the grandchild %d died with seshat: nothing left for Reclaim to do", grandchild)
			}

			r, err := Reclaim()
			if err != nil {
				t.Fatal(err)
			}
			assertDead(t, grandchild)
			if r.Processes < 1 {
				// That the grandchild is dead is what counts.
				t.Logf("Reclaim killed %d processes: a concurrent seshat run reclaimed the grandchild first", r.Processes)
			}
			if containment == "cgroup" {
				if left := runCgroups(t, dead.Process.Pid); len(left) != 0 {
					t.Errorf("the cgroup of the killed seshat is still there: %v", left)
				}
				// When this Reclaim killed the grandchild, it says it
				// removed the run's cgroup too.
				if r.Processes >= 1 && !slices.ContainsFunc(r.Cgroups, func(c string) bool {
					return strings.HasPrefix(c, fmt.Sprintf("%s%d-", runCgroupPrefix, dead.Process.Pid))
				}) {
					t.Errorf("Reclaim says it removed %v", r.Cgroups)
				}
				if len(runCgroups(t, live.Process.Pid)) != 1 {
					t.Errorf("the cgroup of the live seshat %d was removed", live.Process.Pid)
				}
			}
			for _, pid := range append([]int{liveChild, liveGrandchild}, myPids...) {
				if !alive(pid) {
					t.Errorf("process %d of a live seshat's run was killed", pid)
				}
			}
		})
	}
}

// TestChildOutlivesTheCallersThread: the thread that forks a child is the
// one whose end PR_SET_PDEATHSIG reports; a child started from a goroutine
// whose thread then ends (it exits locked to it) must keep running.
func TestChildOutlivesTheCallersThread(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "sleep")
	type started struct {
		cmd  *exec.Cmd
		done <-chan error
		tid  int
		main bool
	}
	ch := make(chan started)
	release := make(chan struct{})
	defer close(release)
	var s started
	for s.cmd == nil {
		go func() {
			runtime.LockOSThread()
			if unix.Gettid() == unix.Getpid() {
				// The main thread is never ended: keep it, so that the next
				// goroutine runs on another.
				ch <- started{main: true}
				<-release
				runtime.UnlockOSThread()
				return
			}
			// Never unlocked: the thread ends with the goroutine.
			cmd, done, err := startOnThread(nil, func() (*exec.Cmd, error) {
				cmd := exec.Command(x.Args[0])
				cmd.Env = x.Env
				cmd.SysProcAttr = &unix.SysProcAttr{Pdeathsig: unix.SIGKILL}
				return cmd, cmd.Start()
			})
			if err != nil {
				t.Error(err)
			}
			ch <- started{cmd: cmd, done: done, tid: unix.Gettid()}
		}()
		if s = <-ch; !s.main && s.cmd == nil {
			t.FailNow()
		}
	}
	defer s.cmd.Process.Kill()
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(task); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("the caller's thread %d did not end: nothing to test", s.tid)
		}
	}
	// A PR_SET_PDEATHSIG signal would be on its way: give it time to land.
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-s.done:
		t.Fatalf("the child died with its caller's thread: %v", err)
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}
