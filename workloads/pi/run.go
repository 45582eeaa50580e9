package pi

import (
	"path/filepath"
	"strconv"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads"
	"github.com/seshat-bench/seshat/workloads/pi/indicator"
)

// settingsFile is what `seshat pi` reads; it writes PIFile.
const settingsFile = "settings.yaml"

var (
	_ workloads.Runner         = Workload{}
	_ workloads.SettingsReader = Workload{}
)

// CheckPoint implements workloads.Runner: the PI's settings are decoded as
// the child will decode them.
func (Workload) CheckPoint(settings map[string]any) error {
	_, err := indicator.Decode(settings)
	return err
}

// ReadsSettings implements workloads.SettingsReader: the settings the
// point's PI reads.
func (Workload) ReadsSettings(settings map[string]any) []string { return indicator.Reads(settings) }

// SettingNames implements workloads.SettingsReader.
func (Workload) SettingNames() []string { return indicator.SettingNames() }

// Command implements workloads.Runner: every PI runs in `seshat pi`, which
// runs Go kernels in process and starts Python or the exec command below
// itself, inside the run's process group.
func (Workload) Command(req workloads.RunRequest) ([]string, error) {
	args := []string{req.Self, "pi",
		"--settings", filepath.Join(req.Dir, settingsFile),
		"--output", filepath.Join(req.Dir, PIFile),
		"--report-fd", strconv.Itoa(workloads.ReportFD)}
	if req.Python != "" {
		args = append(args, "--python", req.Python)
	}
	return args, nil
}

// ReportsUsage implements workloads.UsageReporter: `seshat pi` reports the
// peak memory of itself and the PI process it starts, so that a run's
// max_rss_bytes is the PI's, never the memory of the seshat that started
// the run (which grows over a `seshat regression` that re-runs points).
func (Workload) ReportsUsage(map[string]any) bool { return true }

// RunVersions implements workloads.Runner: the versions pi.json reports.
func (Workload) RunVersions(dir string) map[string]string {
	path := filepath.Join(dir, PIFile)
	data, err := parsers.ReadLimited(path, parsers.DefaultLimit)
	if err != nil {
		return nil
	}
	var doc models.PIResult
	if parsers.JSON(path, data, &doc) != nil {
		return nil
	}
	return doc.Versions
}

// GPUs implements workloads.Resourcer: a point on `device: gpu` needs one
// GPU (the PIs use the first device CUDA shows them).
func (Workload) GPUs(settings map[string]any) int {
	if settings["device"] == "gpu" {
		return 1
	}
	return 0
}
