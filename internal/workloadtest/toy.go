// Package workloadtest registers "toy", a small workload for tests of the
// generic machinery (payloads, KPIs, schema) that must not depend on a real
// workload's artifacts. Import it for its side effect in tests only.
//
// A toy run directory holds settings.yaml, exit_code and toy.json:
// {"uuid": "...", "start": "...", "end": "...", "elapsed_ms": 1.5, "device": "cpu"}.
package workloadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// Name is the toy workload's name.
const Name = "toy"

// Run is the content of toy.json, and the toy's parsed and payload results.
type Run struct {
	UUID      string    `json:"uuid"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	ElapsedMs *float64  `json:"elapsed_ms" validate:"required"`
	Device    string    `json:"device"`
}

// Toy is the workload.
type Toy struct{}

func init() { workloads.Register(Toy{}) }

var catalog = kpi.MustCatalog(Name,
	kpi.LabelsModel{SettingsVersion: "1.0.0", Labels: []kpi.Label{
		{Name: "device", Help: "cpu or gpu", Required: true},
		{Name: "size", Help: "the size setting"},
	}},
	kpi.Definition{Name: "elapsed_ms", Help: "Time of one toy operation.", Unit: "ms", Direction: kpi.LowerIsBetter,
		Format: "%.2f", Extract: kpi.FromResults(func(r *Run) (float64, error) {
			if r.ElapsedMs == nil {
				return 0, errors.New("toy.json has no elapsed_ms")
			}
			return *r.ElapsedMs, nil
		})},
	kpi.Definition{Name: "wall_seconds", Help: "Wall time of the run.", Unit: "seconds", Direction: kpi.LowerIsBetter,
		Extract: func(p *models.Payload) (float64, error) {
			if p.Metadata.Start.IsZero() || p.Metadata.End.IsZero() {
				return 0, errors.New("no start or end")
			}
			return p.Metadata.End.Sub(p.Metadata.Start).Seconds(), nil
		}},
)

func (Toy) Name() string                                { return Name }
func (Toy) ParserVersion() string                       { return "1" }
func (Toy) ArtifactDirnames() map[string]string         { return nil }
func (Toy) ImportantFiles() []string                    { return []string{"toy.json"} }
func (Toy) ParseAlways(*store.AlwaysContext, any) error { return nil }

func (Toy) ParseOnce(ctx *store.ParseContext) (any, error) {
	r := &Run{}
	data, err := ctx.ReadFile("toy.json")
	if err != nil {
		ctx.Warnf("%v", err)
		return r, nil
	}
	if err := parsers.JSON("toy.json", data, r); err != nil {
		ctx.Warnf("%v", err)
	}
	return r, nil
}

func (Toy) NewResult() any { return &Run{} }

// KPIs implements workloads.KPIProvider.
func (Toy) KPIs() *kpi.Catalog { return catalog }

// PayloadResults implements workloads.KPIProvider.
func (Toy) PayloadResults() any { return &Run{} }

// FillPayload implements workloads.KPIProvider.
func (Toy) FillPayload(e *store.Entry, p *models.Payload) []string {
	r, _ := e.Results.(*Run)
	if r == nil {
		return []string{"no toy results"}
	}
	p.Metadata.TestUUID, p.Metadata.Start, p.Metadata.End = r.UUID, r.Start, r.End
	if r.Device != "" {
		p.Metadata.Labels["device"] = r.Device
	}
	if size, ok := e.Settings["size"]; ok {
		p.Metadata.Labels["size"] = fmt.Sprint(size)
	}
	p.Results = r
	return nil
}

// WriteRun creates a toy run directory under root: settings.yaml with
// workload: toy and the given settings, exit_code (unless code is nil) and
// toy.json (unless run is nil).
func WriteRun(root, path string, settings map[string]any, code *int, run *Run) error {
	dir := filepath.Join(root, filepath.FromSlash(path))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s := "workload: toy\n"
	for k, v := range settings {
		s += fmt.Sprintf("%q: %v\n", k, v)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.yaml"), []byte(s), 0o644); err != nil {
		return err
	}
	if run != nil {
		data, err := json.Marshal(run)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "toy.json"), data, 0o644); err != nil {
			return err
		}
	}
	if code != nil {
		return os.WriteFile(filepath.Join(dir, "exit_code"), fmt.Appendf(nil, "%d\n", *code), 0o644)
	}
	return nil
}

// T0 is the start of the first run of the sample tree.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// WriteSampleTree writes a results tree of toy runs under root: two repeats
// of size 512, one run of size 1024 that failed (exit 1) but left its
// results, and one of size 2048 that never finished.
func WriteSampleTree(root string) error {
	ms := func(v float64) *float64 { return &v }
	code := func(c int) *int { return &c }
	runs := []struct {
		path     string
		settings map[string]any
		code     *int
		run      *Run
	}{
		{"expe/001__512", map[string]any{"size": 512, "@repeat": 0}, code(0),
			&Run{UUID: "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11", Start: T0, End: T0.Add(2 * time.Second), ElapsedMs: ms(1.5), Device: "cpu"}},
		{"expe/002__512", map[string]any{"size": 512, "@repeat": 1}, code(0),
			&Run{UUID: "1c6f4b68-9a1f-4d2b-8b62-2e2a2d1a5b22", Start: T0.Add(time.Minute), End: T0.Add(time.Minute + 3*time.Second), ElapsedMs: ms(1.25), Device: "cpu"}},
		{"expe/003__1024", map[string]any{"size": 1024}, code(1),
			&Run{UUID: "2d7a5c79-ab2a-4e3c-9c73-3f3b3e2b6c33", Start: T0.Add(2 * time.Minute), End: T0.Add(2*time.Minute + time.Second), ElapsedMs: ms(6), Device: "cpu"}},
		{"expe/004__2048", map[string]any{"size": 2048}, nil, nil},
	}
	for _, r := range runs {
		if err := WriteRun(root, r.path, r.settings, r.code, r.run); err != nil {
			return err
		}
	}
	return nil
}
