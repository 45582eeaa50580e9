package runner

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureHost is a recorded machine under testdata/hosts/<name>: its /proc,
// /sys and /etc files, and nvidia-smi.csv when it has GPUs.
func fixtureHost(name string) Host {
	root := filepath.Join("testdata", "hosts", name)
	arch := "x86_64"
	if strings.HasPrefix(name, "arm64") {
		arch = "aarch64"
	}
	return Host{
		Root:  root,
		Uname: func() (string, string, string, error) { return name, "6.1.0-test", arch, nil },
		NvidiaSMI: func(context.Context) ([]byte, error) {
			data, err := os.ReadFile(filepath.Join(root, "nvidia-smi.csv"))
			if errors.Is(err, os.ErrNotExist) {
				return nil, exec.ErrNotFound
			}
			return data, err
		},
	}
}

func TestCollectHWInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host                   string
		model                  string
		sockets, cores, thread int
		limit                  float64 // 0 = unlimited
		gpus                   int
		osID                   string
		warning                string
	}{
		{host: "amd-epyc-vm-cgroupv1", model: "AMD EPYC", sockets: 1, cores: 2, thread: 2, osID: "debian"},
		{host: "intel-2socket-cgroupv2", model: "Intel(R) Xeon(R) Platinum 8480+", sockets: 2, cores: 4, thread: 8, limit: 4, gpus: 8, osID: "rhel"},
		{host: "arm64-graviton", model: "CPU implementer 0x41 part 0xd40", sockets: 1, cores: 4, thread: 4, limit: 1.5, osID: "ubuntu"},
		{host: "docker-cgroupv1-quota", model: "QEMU Virtual CPU version 2.5+", sockets: 1, cores: 2, thread: 2, limit: 2.5, osID: "debian",
			warning: "/proc/meminfo: MemTotal \"garbage\" is not a size"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			info, warns := CollectHWInfo(context.Background(), fixtureHost(tc.host))
			c := info.CPU
			if c.Model != tc.model || c.Sockets != tc.sockets || c.Cores != tc.cores || c.Threads != tc.thread {
				t.Errorf("cpu %q %d sockets %d cores %d threads, want %q %d %d %d", c.Model, c.Sockets, c.Cores, c.Threads, tc.model, tc.sockets, tc.cores, tc.thread)
			}
			switch {
			case tc.limit == 0 && info.CgroupCPULimit != nil:
				t.Errorf("cgroup limit %v, want none", *info.CgroupCPULimit)
			case tc.limit != 0 && (info.CgroupCPULimit == nil || *info.CgroupCPULimit != tc.limit):
				t.Errorf("cgroup limit %v, want %v", info.CgroupCPULimit, tc.limit)
			}
			if len(info.GPUs) != tc.gpus || info.OS.ID != tc.osID {
				t.Errorf("%d GPUs, os %q", len(info.GPUs), info.OS.ID)
			}
			if info.Versions["seshat"] == "" || info.GoVersion == "" {
				t.Errorf("versions %v, go %q", info.Versions, info.GoVersion)
			}
			if tc.warning == "" && len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(warns, "\n"), tc.warning) {
				t.Errorf("warnings %v lack %q", warns, tc.warning)
			}
			// The golden holds what does not depend on the build.
			info.GoVersion, info.Versions = "", nil
			got, err := json.MarshalIndent(info, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "hosts", tc.host+".hwinfo.golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if strings.TrimSpace(string(want)) != string(got) {
				t.Errorf("hwinfo differs from %s (go test -update to accept):\n%s", golden, got)
			}
		})
	}
}

func TestCollectHWInfoMissingFiles(t *testing.T) {
	t.Parallel()
	h := Host{Root: t.TempDir(), Uname: func() (string, string, string, error) { return "", "", "", errors.New("no uname") },
		NvidiaSMI: func(context.Context) ([]byte, error) { return nil, errors.New("driver hung") }}
	info, warns := CollectHWInfo(context.Background(), h)
	joined := strings.Join(warns, "\n")
	for _, want := range []string{"uname: no uname", "/proc/cpuinfo", "/proc/meminfo", "/etc/os-release", "nvidia-smi: driver hung"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	if info.CPU.Threads != 0 || info.GoVersion == "" {
		t.Errorf("%+v", info)
	}
}

func TestWithRunVersions(t *testing.T) {
	t.Parallel()
	base := models.HWInfo{Versions: map[string]string{"seshat": "x"}, GPUs: []models.GPU{{Index: 0, Name: "H100"}}}
	got := WithRunVersions(base, map[string]string{"torch": "2.3.0", "cuda": "12.1"})
	if got.Versions["torch"] != "2.3.0" || got.Versions["seshat"] != "x" || got.GPUs[0].CUDA != "12.1" {
		t.Errorf("%+v", got)
	}
	if _, leaked := base.Versions["torch"]; leaked || base.GPUs[0].CUDA != "" {
		t.Error("WithRunVersions modified the shared HWInfo")
	}
}

// TestCollectHWInfoHere runs on the real machine: it must not warn about
// the basic files every Linux has.
func TestCollectHWInfoHere(t *testing.T) {
	t.Parallel()
	info, warns := CollectHWInfo(context.Background(), Host{})
	for _, w := range warns {
		if strings.Contains(w, "/proc/") {
			t.Errorf("warning on this machine: %s", w)
		}
	}
	if info.CPU.Threads == 0 || info.MemoryBytes == 0 || info.Kernel == "" || info.Hostname == "" {
		t.Errorf("%+v", info)
	}
}
