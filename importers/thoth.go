package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// thoth reads Thoth performance-indicator results (the JSON document a
// thoth-station/performance script prints: name, framework or component,
// @parameters, @result) and Amun inspection results (a document whose
// job_logs each hold such a result as stdout, with hwinfo, os_release,
// usage and exit_code). They become runs of the pi workload, whose pi.json
// is a superset of Thoth's output: pi.json from the result, hwinfo.json from
// Amun's hwinfo and os_release, usage.json from its rusage, stderr.log and
// exit_code from the job.
type thoth struct{}

func init() { register(thoth{}) }

func (thoth) Format() string { return "thoth" }

// thothPI is a Thoth performance-indicator result.
type thothPI struct {
	Name       string         `json:"name"`
	Framework  string         `json:"framework"`
	Component  string         `json:"component"`
	Parameters map[string]any `json:"@parameters"`
	Result     map[string]any `json:"@result"`
}

// amunJob is one entry of an Amun inspection's job_logs.
type amunJob struct {
	ExitCode  *int               `json:"exit_code"`
	Stdout    json.RawMessage    `json:"stdout"`
	Stderr    string             `json:"stderr"`
	Hwinfo    amunHwinfo         `json:"hwinfo"`
	OSRelease map[string]string  `json:"os_release"`
	Usage     map[string]float64 `json:"usage"`
}

type amunHwinfo struct {
	CPUInfo struct {
		Brand  string `json:"brand"`
		Count  int    `json:"count"`
		Arch   string `json:"arch"`
		Vendor string `json:"vendor_id"`
	} `json:"cpu_info"`
	CPUFeatures struct {
		Flags []string `json:"flags"`
	} `json:"cpu_features"`
	Platform struct {
		Machine string `json:"machine"`
		Node    string `json:"node"`
		Release string `json:"release"`
	} `json:"platform"`
}

type amunInspection struct {
	InspectionID  string    `json:"inspection_id"`
	Created       string    `json:"created"`
	JobLogs       []amunJob `json:"job_logs"`
	Specification struct {
		Python struct {
			RequirementsLocked struct {
				Default map[string]struct {
					Version string `json:"version"`
				} `json:"default"`
			} `json:"requirements_locked"`
		} `json:"python"`
	} `json:"specification"`
	Status struct {
		Job struct {
			StartedAt  string `json:"started_at"`
			FinishedAt string `json:"finished_at"`
			Pods       []struct {
				StartedAt  string `json:"started_at"`
				FinishedAt string `json:"finished_at"`
			} `json:"pods"`
		} `json:"job"`
	} `json:"status"`
}

func (thoth) Read(in Input, opts Options) ([]Run, []string, error) {
	var probe map[string]json.RawMessage
	if err := parsers.JSON(in.Name, in.Data, &probe); err != nil {
		return nil, nil, err
	}
	if _, ok := probe["job_logs"]; ok {
		return readAmun(in, opts)
	}
	if _, ok := probe["@result"]; !ok {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: "neither a Thoth PI result (@result) nor an Amun inspection result (job_logs)"}
	}
	var pi thothPI
	if err := parsers.JSON(in.Name, in.Data, &pi); err != nil {
		return nil, nil, err
	}
	start := opts.start(nil, in)
	run, err := thothRun(pi, nil, start)
	if err != nil {
		return nil, nil, &parsers.SyntaxError{File: in.Name, Msg: err.Error()}
	}
	run.Build = opts.merge(nil)
	return []Run{run}, nil, nil
}

func readAmun(in Input, opts Options) ([]Run, []string, error) {
	var doc amunInspection
	if err := parsers.JSON(in.Name, in.Data, &doc); err != nil {
		return nil, nil, err
	}
	versions := map[string]string{}
	for pkg, v := range doc.Specification.Python.RequirementsLocked.Default {
		if ver := strings.TrimPrefix(v.Version, "=="); ver != "" {
			versions[strings.ToLower(pkg)] = ver
		}
	}
	build := &models.Build{ID: doc.InspectionID}
	if t, ok := amunTime(doc.Created); ok {
		build.Time = t
	}
	build = opts.merge(build)
	jobStart, _ := amunTime(doc.Status.Job.StartedAt)
	jobEnd, _ := amunTime(doc.Status.Job.FinishedAt)
	var runs []Run
	var warnings []string
	for i, job := range doc.JobLogs {
		var pi thothPI
		if err := parsers.JSON(in.Name, job.Stdout, &pi); err != nil || pi.Result == nil {
			warnings = append(warnings, fmt.Sprintf("%s: job_logs[%d]: stdout is not a PI result, skipped", in.Name, i))
			continue
		}
		start, end := jobStart, jobEnd
		// Amun lists one pod per job log; their order is taken to match.
		if len(doc.Status.Job.Pods) == len(doc.JobLogs) {
			if t, ok := amunTime(doc.Status.Job.Pods[i].StartedAt); ok {
				start = t
			}
			if t, ok := amunTime(doc.Status.Job.Pods[i].FinishedAt); ok {
				end = t
			}
		}
		if !opts.Time.IsZero() || start.IsZero() {
			start = opts.start(build, in)
			end = start
		}
		if end.Before(start) {
			end = start
		}
		run, err := thothRun(pi, versions, start)
		hw, err2 := jsonFile(amunHW(job))
		usage, err3 := jsonFile(amunUsage(job, start, end))
		if err := errors.Join(err, err2, err3); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: job_logs[%d]: %v, skipped", in.Name, i, err))
			continue
		}
		run.Settings["inspection_id"] = doc.InspectionID
		run.Build = build
		if job.ExitCode != nil {
			run.ExitCode = *job.ExitCode
		}
		run.Files["hwinfo.json"] = hw
		run.Files["usage.json"] = usage
		if job.Stderr != "" {
			run.Files["stderr.log"] = []byte(job.Stderr)
		}
		runs = append(runs, run)
	}
	return runs, warnings, nil
}

// thothRun makes a pi run from a Thoth result: pi.json, and the settings a
// pi benchmark file would have had.
func thothRun(pi thothPI, versions map[string]string, start time.Time) (Run, error) {
	component := pi.Component
	if component == "" {
		component = pi.Framework
	}
	kind := strings.ToLower(strings.TrimPrefix(pi.Name, "Pi"))
	settings := map[string]any{"workload": "pi", "pi": kind}
	if component != "" {
		settings["backend"] = component
	}
	for k, v := range pi.Parameters {
		if k == "reps" {
			k = "repetitions" // Thoth's name for it
		}
		if _, taken := settings[k]; !taken {
			settings[settingKey.ReplaceAllString(k, "_")] = v
		}
	}
	doc := map[string]any{"component": component, "name": pi.Name, "@parameters": pi.Parameters, "@result": pi.Result}
	if v := versions[strings.ToLower(component)]; v != "" {
		doc["versions"] = map[string]string{component: v}
	}
	data, err := jsonFile(doc)
	if err != nil {
		return Run{}, err
	}
	return Run{
		Slug:     kind + "_" + component,
		Settings: settings,
		Files:    map[string][]byte{"pi.json": data},
	}, nil
}

func amunHW(job amunJob) models.HWInfo {
	hw := job.Hwinfo
	return models.HWInfo{
		Hostname: hw.Platform.Node, Kernel: hw.Platform.Release, Arch: hw.Platform.Machine,
		OS:  models.OSRelease{ID: job.OSRelease["id"], VersionID: job.OSRelease["version_id"], PrettyName: job.OSRelease["pretty_name"]},
		CPU: models.CPUInfo{Model: hw.CPUInfo.Brand, Vendor: hw.CPUInfo.Vendor, Flags: hw.CPUFeatures.Flags, Threads: hw.CPUInfo.Count},
	}
}

// amunUsage converts Python's resource.getrusage as Amun records it (maxrss
// in KiB on Linux).
func amunUsage(job amunJob, start, end time.Time) models.Usage {
	u := job.Usage
	return models.Usage{
		Start: start, End: end, WallSeconds: end.Sub(start).Seconds(),
		Rusage: models.Rusage{
			UtimeSeconds: u["ru_utime"], StimeSeconds: u["ru_stime"], MaxRSSBytes: int64(u["ru_maxrss"]) * 1024,
			Minflt: int64(u["ru_minflt"]), Majflt: int64(u["ru_majflt"]), Nvcsw: int64(u["ru_nvcsw"]), Nivcsw: int64(u["ru_nivcsw"]),
			Inblock: int64(u["ru_inblock"]), Oublock: int64(u["ru_oublock"]),
		},
	}
}

// amunTime reads Amun's times: RFC 3339, or ISO without a zone (UTC).
func amunTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
