package host

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// GPU is one NVIDIA GPU as nvidia-smi reports it. A figure the driver does
// not give ("[N/A]", "[Not Supported]") is NaN.
type GPU struct {
	Index       int     `json:"index"`
	UUID        string  `json:"uuid"`
	Name        string  `json:"name"`
	Utilization float64 `json:"utilization_percent"`
	MemoryUsed  float64 `json:"memory_used_mib"`
	MemoryTotal float64 `json:"memory_total_mib"`
	SMClock     float64 `json:"sm_clock_mhz"`
	SMClockMax  float64 `json:"sm_clock_max_mhz"`
	Temperature float64 `json:"temperature_c"`
	Power       float64 `json:"power_w"`
	Persistence string  `json:"persistence_mode"`
}

// GPUProcess is a process holding a GPU context (nvidia-smi's compute apps).
type GPUProcess struct {
	GPUUUID string  `json:"gpu_uuid"`
	PID     int     `json:"pid"`
	Name    string  `json:"name"`
	Memory  float64 `json:"memory_mib"`
}

// The nvidia-smi queries of the GPU check, asked without header or units.
const (
	gpuQuery  = "index,uuid,name,utilization.gpu,memory.used,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,persistence_mode"
	appsQuery = "gpu_uuid,pid,process_name,used_memory"
	// BusyGPUUtilization is the utilization (percent of the last sample
	// period a kernel ran) from which a GPU is busy with other work.
	BusyGPUUtilization = 10
	// nvidiaSMITimeout bounds one nvidia-smi call.
	nvidiaSMITimeout = 10 * time.Second
)

// nvidiaSMI answers one query (flag is query-gpu or query-compute-apps):
// nvidia-smi's CSV output, read from the recorded tree
// (nvidia-smi/<flag>.csv) when Root is set, else from nvidia-smi on PATH.
// found is false when there is no nvidia-smi (no NVIDIA GPU, or no driver):
// the check is then left out.
func (h Host) nvidiaSMI(ctx context.Context, flag, query string) (out []byte, found bool, err error) {
	if h.Root != "" {
		data, err := parsers.ReadLimited(h.path("/nvidia-smi/"+flag+".csv"), fileLimit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return data, true, err
	}
	prog, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, nvidiaSMITimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, prog, "--"+flag+"="+query, "--format=csv,noheader,nounits")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String() + stdout.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, parsers.Truncate(msg, 200))
		}
		return nil, true, fmt.Errorf("nvidia-smi --%s: %w", flag, err)
	}
	return stdout.Bytes(), true, nil
}

// csvRows reads nvidia-smi's CSV (no header, ", " between fields, no
// quoting) into rows of want fields; blank lines are skipped and line
// numbers in errors count from 1.
func csvRows(what string, data []byte, want int) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord, r.TrimLeadingSpace, r.LazyQuotes = want, true, true
	var rows [][]string
	for {
		f, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("%s line %d: %d fields, want %d: %q", what, pe.StartLine, len(f), want, parsers.Truncate(strings.Join(f, ","), 80))
			}
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		rows = append(rows, f)
	}
}

// figure is a number of nvidia-smi's, NaN where it gives none.
func figure(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// ParseGPUs reads the answer to the GPU check's --query-gpu.
func ParseGPUs(data []byte) ([]GPU, error) {
	rows, err := csvRows("nvidia-smi --query-gpu", data, 11)
	if err != nil {
		return nil, err
	}
	gpus := make([]GPU, 0, len(rows))
	for i, f := range rows {
		idx, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi --query-gpu line %d: index %q is not a whole number", i+1, parsers.Truncate(f[0], 20))
		}
		gpus = append(gpus, GPU{Index: idx, UUID: f[1], Name: f[2], Utilization: figure(f[3]), MemoryUsed: figure(f[4]),
			MemoryTotal: figure(f[5]), SMClock: figure(f[6]), SMClockMax: figure(f[7]), Temperature: figure(f[8]),
			Power: figure(f[9]), Persistence: f[10]})
	}
	return gpus, nil
}

// ParseGPUProcesses reads the answer to the GPU check's
// --query-compute-apps.
func ParseGPUProcesses(data []byte) ([]GPUProcess, error) {
	rows, err := csvRows("nvidia-smi --query-compute-apps", data, 4)
	if err != nil {
		return nil, err
	}
	procs := make([]GPUProcess, 0, len(rows))
	for i, f := range rows {
		pid, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi --query-compute-apps line %d: pid %q is not a whole number", i+1, parsers.Truncate(f[1], 20))
		}
		procs = append(procs, GPUProcess{GPUUUID: f[0], PID: pid, Name: f[2], Memory: figure(f[3])})
	}
	return procs, nil
}

// gpus are the GPUs nvidia-smi lists (its --query-gpu); found is false
// when there is no nvidia-smi.
func (h Host) gpus(ctx context.Context) (gpus []GPU, found bool, err error) {
	data, found, err := h.nvidiaSMI(ctx, "query-gpu", gpuQuery)
	if found && err == nil {
		gpus, err = ParseGPUs(data)
	}
	return gpus, found, err
}

// checkGPU is the GPU line: noisy when another process holds a GPU
// context or a GPU is busy; ok otherwise, with what a person checks before
// timing (clocks, temperature, power, persistence mode). ok is false when
// the host has no nvidia-smi: no line then.
func (h Host) checkGPU(ctx context.Context, self int) (Check, bool) {
	c := Check{Name: "gpu", Status: Unknown}
	gpus, found, err := h.gpus(ctx)
	if !found {
		return c, false
	}
	var procs []GPUProcess
	if err == nil {
		var data []byte
		if data, _, err = h.nvidiaSMI(ctx, "query-compute-apps", appsQuery); err == nil {
			procs, err = ParseGPUProcesses(data)
		}
	}
	if err != nil {
		c.State = unreadable(err)
		return c, true
	}
	if len(gpus) == 0 {
		c.State = "nvidia-smi lists no GPU"
		return c, true
	}
	index := map[string]int{}
	for _, g := range gpus {
		index[g.UUID] = g.Index
	}
	var others, names []string
	for _, p := range procs {
		if p.PID == self {
			continue
		}
		others = append(others, fmt.Sprintf("%s (pid %d, %s MiB on GPU %d)", p.Name, p.PID, num(p.Memory), index[p.GPUUUID]))
		names = append(names, p.Name)
	}
	var busy, states []string
	for _, g := range gpus {
		states = append(states, gpuState(g))
		if g.Utilization >= BusyGPUUtilization {
			busy = append(busy, fmt.Sprintf("GPU %d %s%%", g.Index, num(g.Utilization)))
		}
	}
	c.State = strings.Join(states, "; ")
	switch {
	case len(others) > 0:
		c.Status = Noisy
		c.State = "used by " + strings.Join(others, ", ") + "; " + c.State
		c.short = "GPU used by " + strings.Join(names, ", ")
		c.Why = "another process on the GPU shares its SMs, memory and memory bandwidth: wait for it, or measure on a free GPU (CUDA_VISIBLE_DEVICES)"
	case len(busy) > 0:
		c.Status = Noisy
		c.short = "GPU busy: " + strings.Join(busy, ", ")
		c.Why = "the GPU runs other work (a process of another container or VM, which nvidia-smi does not list here)"
	default:
		c.Status = OK
		for _, g := range gpus {
			if g.Persistence == "Disabled" {
				c.Status = Info
				c.Why = "persistence mode is off: the driver is set up again when the first process opens the GPU, which the first run pays (nvidia-smi -pm 1 keeps it loaded, as root)"
			}
		}
	}
	return c, true
}

// gpuState is one GPU as the check line shows it.
func gpuState(g GPU) string {
	s := fmt.Sprintf("GPU %d %s: %s%% used, SM clock %s of %s MHz, %s °C, %s W", g.Index, g.Name, num(g.Utilization),
		num(g.SMClock), num(g.SMClockMax), num(g.Temperature), num(g.Power))
	if g.Persistence != "" {
		s += ", persistence mode " + strings.ToLower(g.Persistence)
	}
	return s
}

// num shows a figure of nvidia-smi's: "?" where it gave none.
func num(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// GPUBusy tells whether another process holds a GPU or a GPU is busy (the
// gpu line of the check would be noisy): what `seshat run` warns about
// before GPU runs. The string says so in words; ok is false on a host
// without nvidia-smi or when its answer cannot be read.
func (h Host) GPUBusy(ctx context.Context) (busy bool, what string, ok bool) {
	c, found := h.checkGPU(ctx, os.Getpid())
	if !found || c.Status == Unknown {
		return false, "", false
	}
	if c.Status != Noisy {
		return false, "", true
	}
	return true, c.short, true
}

// GPUStates are the GPUs now, as a run records them around itself
// (usage.json's host_start and host_end): nil on a host without
// nvidia-smi or when its answer cannot be read (a run is never failed for
// its record of the host).
func (h Host) GPUStates(ctx context.Context) []models.GPUState {
	gpus, _, err := h.gpus(ctx)
	if err != nil || len(gpus) == 0 {
		return nil
	}
	known := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	out := make([]models.GPUState, len(gpus))
	for i, g := range gpus {
		out[i] = models.GPUState{Index: g.Index, UtilizationPercent: known(g.Utilization), SMClockMHz: known(g.SMClock),
			TemperatureC: known(g.Temperature), PowerW: known(g.Power)}
	}
	return out
}
