//go:build linux

package runner

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// containment holds every process of one run, however it detaches from
// the run's process group (setsid, a double fork), so that none outlives
// the run:
//
//   - a cgroup (v2) of its own, below seshat's cgroup, when the cgroup
//     filesystem lets seshat create one (root in a container, a delegated
//     systemd unit): the child starts inside it (clone3 CLONE_INTO_CGROUP,
//     so even its first fork is inside), and cgroup.kill ends everything
//     in it, whatever became of its parents;
//   - otherwise seshat makes itself a child subreaper (PR_SET_CHILD_SUBREAPER:
//     orphaned descendants are re-parented to it instead of init) and marks
//     the child's environment with a cookie: a run's processes are those
//     carrying the cookie and the descendants of the child, found in /proc,
//     as Jenkins' ProcessTreeKiller finds a build's. A descendant that
//     clears its environment and daemonises escapes this fallback.
type containment struct {
	cgroup   string // the run's cgroup directory; "" in the fallback
	cgroupFD int
	cookie   string // NAME=VALUE added to the child's environment in the fallback
	self     int
	killed   map[int]bool // processes of the run killed so far
}

// cookieName is the environment variable marking a run's processes in the
// fallback. It cannot collide with a setting: those are SESHAT_<KEY>.
const cookieName = "_SESHAT_RUN"

// newContainment prepares the containment of one run; cgroups are tried
// unless noCgroup.
func newContainment(noCgroup bool) *containment {
	c := &containment{self: os.Getpid(), cgroupFD: -1, killed: map[int]bool{}}
	if !noCgroup {
		if dir, err := createRunCgroup(); err == nil {
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err == nil {
				// Held while seshat lives, released however it ends: what
				// tells Reclaim, in any pid namespace, that the run's
				// cgroup is not stale.
				_ = retryEINTR(func() error { return unix.Flock(fd, unix.LOCK_EX) })
				c.cgroup, c.cgroupFD = dir, fd
				return c
			}
			_ = unix.Rmdir(dir)
		}
	}
	c.useFallback()
	return c
}

func (c *containment) useFallback() {
	if c.cgroupFD >= 0 {
		unix.Close(c.cgroupFD)
		_ = unix.Rmdir(c.cgroup)
		c.cgroup, c.cgroupFD = "", -1
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	c.cookie = fmt.Sprintf("%s=%s.%s", cookieName, ownerTag(), hex.EncodeToString(b[:]))
	// Orphans come back to seshat, where they can be found and reaped.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// start starts cmd inside the containment. When it cannot start in the
// cgroup (clone3 unsupported, no permission to move a process there; the
// error does not tell this from a bad program), it is started again, built
// anew by build, with the fallback.
func (c *containment) start(build func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := build()
	// The child dies with seshat, even of SIGKILL (startOnThread keeps the
	// thread that forks it); what the child started is left to the cgroup
	// or the cookie, and to the next seshat's Reclaim.
	cmd.SysProcAttr.Pdeathsig = unix.SIGKILL
	if c.cgroupFD >= 0 {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = c.cgroupFD
		if err := cmd.Start(); err == nil {
			return cmd, nil
		}
		c.useFallback()
		cmd = build()
		cmd.SysProcAttr.Pdeathsig = unix.SIGKILL
	}
	cmd.Env = append(cmd.Env, c.cookie)
	return cmd, cmd.Start()
}

// kill kills every process of the run and waits until they are gone. It
// returns how many processes other than main it killed this time. main
// (the child, waited for by exec.Cmd) is killed but never reaped here.
func (c *containment) kill(main int) int {
	live, signal := func() []int { return c.members(main) }, true
	n := 0
	if c.cgroup != "" {
		live = func() []int { return cgroupProcs(c.cgroup) }
		// cgroup.kill (Linux 5.14) kills the whole subtree at once, and what
		// it forks meanwhile; before it, kill what is listed until nothing is.
		if pids := live(); len(pids) > 0 {
			n += c.count(pids, main)
			signal = os.WriteFile(filepath.Join(c.cgroup, "cgroup.kill"), []byte("1"), 0) != nil
		}
	}
	deadline := time.Now().Add(killDeadline)
	retry(deadline, func() bool {
		pids := live()
		n += c.count(pids, main)
		for _, pid := range pids {
			if signal {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
		}
		return len(pids) == 0
	})
	// A killed process no longer shows its environment, nor is listed in
	// its cgroup, while it tears down: wait until it is a zombie or gone.
	// (SIGKILL is pending: never signal a pid twice, it may be reused.)
	retry(deadline, func() bool {
		for pid := range c.killed {
			if st, err := readStat(pid); pid != main && err == nil && st.state != 'Z' && st.state != 'X' {
				return false
			}
		}
		return true
	})
	c.reap(main)
	return n
}

// retry calls done until it reports true or deadline passes, pausing 1 ms,
// then twice as long each time, up to 50 ms.
func retry(deadline time.Time, done func() bool) {
	for pause := time.Millisecond; !done() && time.Now().Before(deadline); pause = min(2*pause, 50*time.Millisecond) {
		time.Sleep(pause)
	}
}

// release removes the cgroup.
func (c *containment) release() {
	if c.cgroupFD < 0 {
		return
	}
	unix.Close(c.cgroupFD)
	removeCgroup(c.cgroup)
}

func (c *containment) count(pids []int, main int) int {
	n := 0
	for _, pid := range pids {
		if pid != main && !c.killed[pid] {
			c.killed[pid] = true
			n++
		}
	}
	return n
}

// killDeadline bounds the wait for killed processes to disappear (a
// process in uninterruptible sleep dies when its I/O ends).
const killDeadline = 10 * time.Second

// reap collects the killed processes that were re-parented to seshat (it
// is a subreaper in the fallback, and may be one anyway), so that they do
// not stay zombies.
func (c *containment) reap(main int) {
	for pid := range c.killed {
		if pid == main {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid == c.self {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// members returns the live processes of the run: those whose environment
// carries the cookie, and the descendants of those and of main.
func (c *containment) members(main int) []int {
	procs := scanProcs()
	children := map[int][]int{}
	for pid, st := range procs {
		children[st.ppid] = append(children[st.ppid], pid)
	}
	in := map[int]bool{}
	var mark func(pid int)
	mark = func(pid int) {
		if in[pid] || pid == c.self {
			return
		}
		in[pid] = true
		for _, ch := range children[pid] {
			mark(ch)
		}
	}
	if _, ok := procs[main]; ok {
		mark(main)
	}
	cookie := []byte(c.cookie + "\x00")
	for pid := range procs {
		if in[pid] || pid == c.self {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil && (bytes.Contains(env, append([]byte{0}, cookie...)) || bytes.HasPrefix(env, cookie)) {
			mark(pid)
		}
	}
	var live []int
	for pid := range in {
		if st := procs[pid]; st.state != 'Z' && st.state != 'X' {
			live = append(live, pid)
		}
	}
	return live
}

type procStat struct {
	ppid  int
	state byte
	// start is when the process started, in clock ticks since boot: with
	// the pid, what tells a process from a later one given its pid.
	start uint64
}

// readStat reads the parent, state and start of pid from /proc/PID/stat
// (the command name in parentheses may hold anything, so fields are
// counted from the last ')').
func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 of proc(5), state; f[1] ppid; f[19] starttime.
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, err
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, err
	}
	return procStat{ppid: ppid, state: f[0][0], start: start}, nil
}

// scanProcs reads the parent and state of every process.
func scanProcs() map[int]procStat {
	out := map[int]procStat{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil {
			out[pid] = st
		}
	}
	return out
}

// createRunCgroup creates an empty cgroup below seshat's own in the cgroup
// v2 hierarchy.
func createRunCgroup() (string, error) {
	own, err := ownCgroup()
	if err != nil {
		return "", err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	dir := filepath.Join(own, fmt.Sprintf("%s%d-%s", runCgroupPrefix, os.Getpid(), hex.EncodeToString(b[:])))
	if err := unix.Mkdir(dir, 0o755); err != nil {
		return "", &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return dir, nil
}

// ownCgroup is the directory of seshat's cgroup in the cgroup v2 mount:
// the "0::" line of /proc/self/cgroup below the mount's root, as
// /proc/self/mountinfo gives it.
func ownCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path := ""
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" || strings.HasSuffix(path, "(deleted)") {
		return "", errors.New("no cgroup v2 membership")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(pre)
		if !ok || len(fields) < 5 || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		root, mnt := unescapeMountinfo(fields[3]), unescapeMountinfo(fields[4])
		rel, err := filepath.Rel(root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("no cgroup v2 mount")
}

// unescapeMountinfo undoes the octal escapes of mountinfo (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupProcs lists the processes of a cgroup and of the cgroups below it
// (a nested seshat makes its own).
func cgroupProcs(dir string) []int {
	var pids []int
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		if err != nil {
			return nil
		}
		for _, f := range strings.Fields(string(data)) {
			// 0 is a process of another pid namespace: cgroup.kill ends it,
			// kill(0) would signal seshat's own process group.
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids
}

// removeCgroup removes an emptied cgroup and those below it, deepest first.
func removeCgroup(dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		// The kernel may still be tearing a killed process down: retry.
		for try := 0; try < 50; try++ {
			err := unix.Rmdir(dirs[i])
			if err == nil || errors.Is(err, syscall.ENOENT) || !errors.Is(err, syscall.EBUSY) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
