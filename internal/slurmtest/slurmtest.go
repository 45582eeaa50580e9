// Package slurmtest starts a real single-node Slurm cluster on this machine
// for tests: munged with a freshly generated key, then slurmctld and slurmd
// in the foreground as root, all configured by a slurm.conf (and
// cgroup.conf) written into a temporary directory, on free ports, so that
// it never touches a Slurm installed on the host. Clients (sbatch, squeue,
// scancel) find it through SLURM_CONF, which Env returns.
//
// Tests skip, saying why, when the binaries are missing (.ci/run installs
// Debian's slurm-wlm and munge) or the tests do not run as root.
package slurmtest

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrUnavailable wraps the reasons a cluster cannot be started here: tests
// skip on it.
var ErrUnavailable = errors.New("no Slurm cluster can be started here")

// Options shape the cluster.
type Options struct {
	// CPUs is what the node advertises (default 4): how many one-CPU tasks
	// run at once.
	CPUs int
}

// Cluster is a running single-node cluster.
type Cluster struct {
	// Dir holds the configuration, state, spool and daemon logs.
	Dir string
	// Conf is the slurm.conf path.
	Conf  string
	procs []*exec.Cmd
}

// startTimeout bounds the wait for the node to become idle (a hang, not a
// timing assertion).
const startTimeout = 60 * time.Second

// Start starts munged, slurmctld and slurmd with a configuration written
// into dir (which must be private: the munge key lives there). The error
// wraps ErrUnavailable when the binaries are missing or this is not root.
func Start(dir string, o Options) (*Cluster, error) {
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%w: %s not found (apt-get install slurm-wlm munge)", ErrUnavailable, bin)
		}
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w: slurmd must run as root", ErrUnavailable)
	}
	if o.CPUs <= 0 {
		o.CPUs = 4
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf")}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	for _, sub := range []string{"state", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		return nil, err
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	host, _, _ = strings.Cut(host, ".")
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(slurmConf, dir, host, ports[0], ports[1], o.CPUs)
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	// Read by slurmd even when no cgroup plugin is configured; v1 here (the
	// tests' proctrack/linuxproc needs no cgroup at all).
	if err := os.WriteFile(filepath.Join(dir, "cgroup.conf"), []byte("CgroupPlugin=autodetect\n"), 0o644); err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "munge.sock")
	daemons := [][]string{
		{"munged", "--foreground", "--force", "--socket=" + sock, "--key-file=" + filepath.Join(dir, "munge.key"),
			"--log-file=" + filepath.Join(dir, "munged.log"), "--pid-file=" + filepath.Join(dir, "munged.pid"),
			"--seed-file=" + filepath.Join(dir, "munged.seed")},
		{"slurmctld", "-D", "-i", "-f", c.Conf},
		{"slurmd", "-D", "-f", c.Conf},
	}
	for i, argv := range daemons {
		if err := c.start(argv); err != nil {
			c.Stop()
			return nil, err
		}
		if i == 0 {
			if err := waitFor(func() bool { _, err := os.Stat(sock); return err == nil }); err != nil {
				c.Stop()
				return nil, fmt.Errorf("munged did not start: %s", c.tail("munged.log"))
			}
		}
	}
	if err := waitFor(func() bool {
		out, err := c.Command("sinfo", "--noheader", "--format=%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	}); err != nil {
		c.Stop()
		return nil, fmt.Errorf("the node never became idle:\nslurmctld: %s\nslurmd: %s", c.tail("slurmctld.log"), c.tail("slurmd.log"))
	}
	return c, nil
}

// The cluster: one node named after this host at 127.0.0.1, one default
// partition, no accounting database (squeue remembers finished jobs for
// MinJobAge), processes tracked by parentage so that no cgroup delegation
// is needed in a container.
const slurmConf = `ClusterName=seshattest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[1]s/munge.sock
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
MaxArraySize=1001
NodeName=%[2]s NodeAddr=127.0.0.1 CPUs=%[5]d RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=%[2]s Default=YES MaxTime=INFINITE State=UP
`

func (c *Cluster) start(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = c.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.Create(filepath.Join(c.Dir, argv[0]+".out"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	log.Close()
	c.procs = append(c.procs, cmd)
	return nil
}

// Env is this process's environment with SLURM_CONF pointing at the
// cluster: the environment of Slurm clients, and through sbatch of the
// jobs.
func (c *Cluster) Env() []string {
	return append(os.Environ(), "SLURM_CONF="+c.Conf)
}

// Command is a Slurm client command against this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = c.Env()
	return cmd
}

// Stop cancels every job of the cluster, then stops the daemons in
// reverse order.
func (c *Cluster) Stop() {
	if len(c.procs) == 3 {
		// slurmstepd processes live outside the daemons' process groups:
		// let Slurm end them.
		_ = c.Command("scancel", "--full", "--user=root").Run()
		_ = waitFor(func() bool {
			out, err := c.Command("squeue", "--noheader").Output()
			return err != nil || strings.TrimSpace(string(out)) == ""
		})
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		_ = syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	c.procs = nil
}

// tail is the end of a daemon log, for error messages.
func (c *Cluster) tail(name string) string {
	data, _ := os.ReadFile(filepath.Join(c.Dir, name))
	if len(data) > 2000 {
		data = data[len(data)-2000:]
	}
	return string(bytes.TrimSpace(data))
}

func waitFor(ok func() bool) error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if ok() {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("timed out")
}

// freePorts returns n TCP ports free right now on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Shared is one cluster for a whole test binary: the first test that asks
// starts it, TestMain stops it after m.Run.
type Shared struct {
	Options Options
	once    sync.Once
	c       *Cluster
	err     error
}

// Get returns the cluster, starting it on first use; the test skips when
// no cluster can be started here, and fails when starting one failed.
func (s *Shared) Get(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "seshat-slurm-")
		if err != nil {
			s.err = err
			return
		}
		if s.c, s.err = Start(dir, s.Options); s.err != nil {
			os.RemoveAll(dir)
		}
	})
	if errors.Is(s.err, ErrUnavailable) {
		t.Skip(s.err)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.c
}

// Stop stops the cluster if one was started, and removes its directory.
func (s *Shared) Stop() {
	if s.c != nil {
		s.c.Stop()
		os.RemoveAll(s.c.Dir)
	}
}
