//go:build linux

package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// runCgroupPrefix begins the name of a run's cgroup:
// seshat-run-<pid of seshat>-<random>.
const runCgroupPrefix = "seshat-run-"

var runCgroupName = regexp.MustCompile(`^` + runCgroupPrefix + `(\d+)-[0-9a-f]+$`)

// Reclaimed is what Reclaim cleaned up after a seshat that is gone.
type Reclaimed struct {
	// Cgroups are the run cgroups removed.
	Cgroups []string
	// Processes counts the processes killed.
	Processes int
}

// Reclaim kills what the runs of a seshat that is gone left running, and
// removes their cgroups: a seshat killed with SIGKILL takes its runs'
// children with it (PR_SET_PDEATHSIG), but not what they started. It
// looks at the run cgroups beside the ones this process would make (below
// its own cgroup) and at the processes carrying a run's cookie (the
// subreaper fallback), and leaves alone everything that belongs to a live
// seshat, in this pid namespace or any other:
//
//   - a run cgroup is stale when the flock its seshat holds on it is free
//     and no process of its pid is alive here (a seshat older than the
//     lock holds none, but is alive);
//   - a process carrying a cookie is stale when neither its ancestors nor
//     the cookie's pid are the seshat that started the run (the cookie
//     names it by pid and start time; a live seshat is a subreaper of its
//     runs, so it is an ancestor of all they start).
//
// The error reports what could not be removed; the rest is done.
func Reclaim() (Reclaimed, error) {
	var r Reclaimed
	var errs []error
	if own, err := ownCgroup(); err == nil {
		entries, _ := os.ReadDir(own)
		for _, e := range entries {
			m := runCgroupName.FindStringSubmatch(e.Name())
			if m == nil || !e.IsDir() {
				continue
			}
			pid, _ := strconv.Atoi(m[1])
			n, removed, err := reclaimCgroup(filepath.Join(own, e.Name()), pid)
			r.Processes += n
			if removed {
				r.Cgroups = append(r.Cgroups, e.Name())
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	r.Processes += reclaimCookies()
	return r, errors.Join(errs...)
}

// reclaimCgroup kills the processes of a stale run cgroup and removes it.
// It does nothing to a cgroup whose seshat (pid) lives.
func reclaimCgroup(dir string, pid int) (killed int, removed bool, err error) {
	if st, err := readStat(pid); err == nil && st.state != 'Z' && st.state != 'X' {
		return 0, false, nil
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false, nil // gone meanwhile, or not ours to open
	}
	if err := retryEINTR(func() error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) }); err != nil {
		unix.Close(fd)
		return 0, false, nil // its seshat lives (in another pid namespace)
	}
	c := &containment{cgroup: dir, cgroupFD: fd, self: os.Getpid(), killed: map[int]bool{}}
	c.count(cgroupProcs(dir), 0)
	// Whatever cgroup.procs shows (a process of another pid namespace is
	// listed as 0).
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	c.kill(0)
	killed = len(c.killed)
	c.release()
	if _, err := os.Stat(dir); err == nil {
		return killed, false, fmt.Errorf("remove the cgroup %s of a seshat that is gone: still busy", dir)
	}
	return killed, true, nil
}

// ownerTag names this seshat in its runs' cookies: its pid and start time.
func ownerTag() string {
	pid := os.Getpid()
	st, _ := readStat(pid)
	return fmt.Sprintf("%d-%d", pid, st.start)
}

// reclaimCookies kills the processes carrying the cookie of a run whose
// seshat is gone, and returns how many.
func reclaimCookies() int {
	procs := scanProcs()
	self := os.Getpid()
	var stale []int
	prefix := []byte(cookieName + "=")
	for pid := range procs {
		if pid == self {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok && ownerGone(string(v), pid, procs) {
				stale = append(stale, pid)
				break
			}
		}
	}
	if len(stale) == 0 {
		return 0
	}
	c := &containment{self: self, killed: map[int]bool{}}
	n := c.count(stale, 0)
	for _, pid := range stale {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	retry(time.Now().Add(killDeadline), func() bool {
		for _, pid := range stale {
			if st, err := readStat(pid); err == nil && st.state != 'Z' && st.state != 'X' {
				return false
			}
		}
		return true
	})
	c.reap(0)
	return n
}

// ownerGone tells whether the seshat a cookie value (PID-START.RANDOM)
// names is neither an ancestor of pid nor alive. A value of another shape
// (a seshat before the owner was written in it) is never stale.
func ownerGone(cookie string, pid int, procs map[int]procStat) bool {
	owner, _, ok := strings.Cut(cookie, ".")
	if !ok {
		return false
	}
	p, s, ok := strings.Cut(owner, "-")
	opid, err1 := strconv.Atoi(p)
	ostart, err2 := strconv.ParseUint(s, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	if st, ok := procs[opid]; ok && st.start == ostart && st.state != 'Z' && st.state != 'X' {
		return false
	}
	for seen, cur := 0, procs[pid].ppid; cur > 0 && seen < len(procs); seen++ {
		st, ok := procs[cur]
		if !ok {
			break
		}
		if st.start == ostart {
			return false
		}
		cur = st.ppid
	}
	return true
}
