package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/fuzzing"
)

// The test binary doubles as the child process of the executor tests (the
// standard helper-process pattern): when SESHAT_HELPER is set it acts as
// that helper instead of running tests. In runner tests the variable comes
// from the `helper` setting, exported like every setting.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SESHAT_HELPER"); mode != "" {
		os.Exit(helper(strings.Fields(mode)))
	}
	if len(os.Args) > 1 && os.Args[1] == "run-point" {
		os.Exit(testRunPoint(os.Args[2:])) // a Slurm task of slurm_test.go
	}
	fuzzing.SetDefaults()
	code := m.Run()
	stopSlurm()
	os.Exit(code)
}

// helper modes:
//
//	exit N                      print the SESHAT_ environment, exit N
//	signal                      die of SIGTERM
//	sleep                       sleep an hour
//	grandchild PIDFILE          start a sleeping grandchild, write both pids, sleep
//	background PIDFILE          start a sleeping grandchild, write its pid, exit 0
//	once FILE                   if FILE exists exit 0, else create it and sleep
//	setsid PIDFILE exit|sleep   start a sleeping grandchild in a session of its own
//	                            (out of the process group), write its pid, then
//	                            exit 0 or sleep
//	daemon PIDFILE exit|sleep   double-fork a sleeping daemon (setsid, its parent
//	                            exits, it is orphaned), write its pid, then exit 0
//	                            or sleep
//	daemon-noenv ...            the same, the daemon's environment cleared
//	fork PIDFILE [noenv]        daemon's middle process: start the daemon, exit
//	lock DIR READY              hold DIR's results lock, create READY, sleep
//	extract LOG DIR             ExtractArchive the file LOG into DIR, print
//	                            the peak RSS (VmHWM); exit 3 with the error
//	                            on stderr when it fails
//	execute PIDFILE cgroup|subreaper
//	                            be seshat: Execute a grandchild-mode child
//	                            (PIDFILE gets its pid and its child's)
func helper(args []string) int {
	switch args[0] {
	case "extract":
		f, err := os.Open(args[1])
		if err == nil {
			_, err = ExtractArchive(f, args[2])
		}
		status, _ := os.ReadFile("/proc/self/status")
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Println(strings.Join(strings.Fields(line), " "))
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		return 0
	case "execute":
		x := Exec{Args: []string{os.Args[0]}, Env: append(os.Environ(), "SESHAT_HELPER=grandchild "+args[1]),
			Dir: os.TempDir(), Stdout: os.Stderr, Stderr: os.Stderr, noCgroup: args[2] == "subreaper"}
		Execute(context.Background(), x)
		return 0
	case "lock":
		if _, err := LockResults(args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		writePids(args[2], os.Getpid())
		time.Sleep(time.Hour)
	case "setsid", "daemon", "daemon-noenv":
		var c *exec.Cmd
		if args[0] == "setsid" {
			c = exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "SESHAT_HELPER=sleep")
		} else {
			mode := "fork " + args[1]
			if args[0] == "daemon-noenv" {
				mode += " noenv"
			}
			c = exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "SESHAT_HELPER="+mode)
		}
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if args[0] == "setsid" {
			if err := c.Start(); err != nil {
				return 2
			}
			writePids(args[1], c.Process.Pid)
		} else if err := c.Run(); err != nil { // the middle process exits at once
			return 2
		}
		if args[2] == "exit" {
			return 0
		}
		time.Sleep(time.Hour)
	case "fork":
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "SESHAT_HELPER=sleep")
		if len(args) > 2 && args[2] == "noenv" {
			c.Env = []string{"SESHAT_HELPER=sleep"}
		}
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			return 2
		}
		writePids(args[1], c.Process.Pid)
		return 0
	case "exit":
		var env []string
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, "SESHAT_") {
				env = append(env, kv)
			}
		}
		sort.Strings(env)
		fmt.Println(strings.Join(env, "\n"))
		fmt.Fprintln(os.Stderr, "helper stderr")
		n, _ := strconv.Atoi(args[1])
		return n
	case "signal":
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(time.Hour)
	case "sleep":
		time.Sleep(time.Hour)
	case "grandchild", "background":
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "SESHAT_HELPER=sleep")
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		pids := fmt.Sprintf("%d %d", os.Getpid(), gc.Process.Pid)
		if err := os.WriteFile(args[1]+".tmp", []byte(pids), 0o644); err != nil {
			return 2
		}
		os.Rename(args[1]+".tmp", args[1])
		if args[0] == "background" {
			return 0
		}
		time.Sleep(time.Hour)
	case "once":
		if _, err := os.Stat(args[1]); err == nil {
			return 0
		}
		os.WriteFile(args[1], nil, 0o644)
		time.Sleep(time.Hour)
	}
	return 99
}

// startHelper starts the test binary as a helper process in mode, killed
// when the test ends.
func startHelper(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "SESHAT_HELPER="+mode)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

// cgroupsHere tells whether a run's cgroup can be created here; when not,
// the test says why.
func cgroupsHere(t *testing.T) bool {
	t.Helper()
	dir, err := createRunCgroup()
	if err != nil {
		t.Logf("no cgroup of a run here (%v): testing the fallback only", err)
		return false
	}
	removeCgroup(dir)
	return true
}

// writePids writes pids to path atomically.
func writePids(path string, pids ...int) {
	var b strings.Builder
	for _, p := range pids {
		fmt.Fprintf(&b, "%d ", p)
	}
	os.WriteFile(path+".tmp", []byte(b.String()), 0o644)
	os.Rename(path+".tmp", path)
}

// waitFile waits for a file the helper writes, failing after a generous
// deadline (a hang, not a timing assertion).
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			return data
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return nil
}

// alive reports whether pid is a live process (zombies count as dead: they
// only wait for their new parent to reap them).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	state := data[i+2]
	return state != 'Z' && state != 'X'
}

// assertDead waits for the pids to die, failing after a generous deadline.
func assertDead(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is still running", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func pidsIn(t *testing.T, data []byte) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// killAll kills what a failed test left running.
func killAll(pids []int) {
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
