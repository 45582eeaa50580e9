package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seshat-bench/seshat/internal/version"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/runner/host"
)

// Host is where CollectHWInfo looks. The zero value probes this machine;
// tests point Root at a recorded tree and replace the probes.
type Host struct {
	// Root prefixes /proc, /sys and /etc paths ("" for /).
	Root string
	// Uname returns the host name, kernel release and machine architecture.
	Uname func() (hostname, kernel, arch string, err error)
	// NvidiaSMI returns the CSV of parsers.NvidiaSMIQuery, or
	// exec.ErrNotFound when there is no nvidia-smi.
	NvidiaSMI func(ctx context.Context) ([]byte, error)
}

// nvidiaSMITimeout bounds a hung driver query.
const nvidiaSMITimeout = 15 * time.Second

// CollectHWInfo describes the machine. Anything it cannot read is left
// empty with a warning; it never fails.
func CollectHWInfo(ctx context.Context, h Host) (models.HWInfo, []string) {
	var warns []string
	warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	info := models.HWInfo{
		GoVersion: runtime.Version(),
		Versions:  map[string]string{"seshat": version.String(), "go": runtime.Version()},
	}
	uname := h.Uname
	if uname == nil {
		uname = realUname
	}
	var err error
	if info.Hostname, info.Kernel, info.Arch, err = uname(); err != nil {
		warn("uname: %v", err)
	}

	if data, err := h.read("/proc/cpuinfo"); err != nil {
		warn("%v", err)
	} else {
		info.CPU = parseCPUInfo(data)
	}
	if data, err := h.read("/proc/meminfo"); err != nil {
		warn("%v", err)
	} else if info.MemoryBytes, err = parseMemTotal(data); err != nil {
		warn("/proc/meminfo: %v", err)
	}
	osr, err := h.read("/etc/os-release")
	if errors.Is(err, os.ErrNotExist) {
		osr, err = h.read("/usr/lib/os-release") // the spec's fallback
		if errors.Is(err, os.ErrNotExist) {
			err = errors.New("/etc/os-release, /usr/lib/os-release: not found")
		}
	}
	if err != nil {
		warn("%v", err)
	} else {
		kv, perr := parsers.OSRelease("/etc/os-release", osr)
		if perr != nil {
			warn("%v", perr)
		}
		info.OS = models.OSRelease{ID: kv["ID"], VersionID: kv["VERSION_ID"], PrettyName: kv["PRETTY_NAME"]}
	}
	info.CgroupCPULimit = host.Host{Root: h.Root}.CgroupCPULimit()

	smi := h.NvidiaSMI
	if smi == nil {
		smi = realNvidiaSMI
	}
	if out, err := smi(ctx); err == nil {
		gpus, perr := parsers.NvidiaSMIGPUs("nvidia-smi output", out)
		if perr != nil {
			warn("%v", perr)
		}
		info.GPUs = gpus
	} else if !errors.Is(err, exec.ErrNotFound) {
		warn("nvidia-smi: %v", err)
	}
	return info, warns
}

// WithRunVersions returns a copy of info with the versions a run reported
// added (the framework a PI loaded, the CUDA it was built with).
func WithRunVersions(info models.HWInfo, runVersions map[string]string) models.HWInfo {
	out := info
	out.Versions = maps.Clone(info.Versions)
	if out.Versions == nil {
		out.Versions = map[string]string{}
	}
	maps.Copy(out.Versions, runVersions)
	if cuda := runVersions["cuda"]; cuda != "" && len(info.GPUs) > 0 {
		out.GPUs = make([]models.GPU, len(info.GPUs))
		for i, g := range info.GPUs {
			g.CUDA = cuda
			out.GPUs[i] = g
		}
	}
	return out
}

func (h Host) path(p string) string {
	if h.Root == "" {
		return p
	}
	return filepath.Join(h.Root, filepath.FromSlash(p))
}

func (h Host) read(p string) ([]byte, error) {
	data, err := parsers.ReadLimited(h.path(p), 8<<20)
	if err != nil && h.Root != "" {
		// Name the host path, not the fixture's.
		return nil, fmt.Errorf("%s: %w", p, errors.Unwrap(err))
	}
	return data, err
}

func realUname() (string, string, string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", "", "", err
	}
	return unix.ByteSliceToString(u.Nodename[:]), unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Machine[:]), nil
}

func realNvidiaSMI(ctx context.Context) ([]byte, error) {
	bin, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, exec.ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, nvidiaSMITimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--query-gpu="+parsers.NvidiaSMIQuery, "--format=csv,noheader,nounits")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// parseCPUInfo reads /proc/cpuinfo: x86 blocks carry "model name",
// "physical id" and "core id"; arm64 ones "CPU implementer"/"CPU part" and
// "Features" instead, without topology (sockets then count as one).
func parseCPUInfo(data []byte) models.CPUInfo {
	var c models.CPUInfo
	sockets := map[string]bool{}
	cores := map[string]bool{}
	var phys, implementer, part, hardware string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "processor":
			c.Threads++
			phys = ""
		case "model name", "cpu model":
			if c.Model == "" {
				c.Model = val
			}
		case "Hardware", "Model":
			if hardware == "" {
				hardware = val
			}
		case "vendor_id":
			c.Vendor = val
		case "CPU implementer":
			implementer = val
		case "CPU part":
			if part == "" {
				part = val
			}
		case "flags", "Features":
			if c.Flags == nil {
				c.Flags = strings.Fields(val)
			}
		case "physical id":
			phys = val
			sockets[val] = true
		case "core id":
			cores[phys+"/"+val] = true
		}
	}
	switch {
	case c.Model != "":
	case hardware != "":
		c.Model = hardware
	case implementer != "":
		c.Model = "CPU implementer " + implementer + " part " + part
	}
	if c.Vendor == "" && implementer != "" {
		c.Vendor = "implementer " + implementer
	}
	c.Sockets = max(len(sockets), 1)
	c.Cores = len(cores)
	if c.Cores == 0 {
		c.Cores = c.Threads
	}
	if c.Threads == 0 {
		c.Sockets = 0
	}
	return c
}

func parseMemTotal(data []byte) (uint64, error) {
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || kb > math.MaxUint64/1024 {
			return 0, fmt.Errorf("MemTotal %q is not a size", f[0])
		}
		return kb * 1024, nil
	}
	return 0, errors.New("no MemTotal line")
}
