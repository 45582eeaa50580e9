package models

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// typedResults stands for a workload's typed results.
type typedResults struct {
	PI    *PIResult `json:"pi" validate:"required"`
	Usage *Usage    `json:"usage" validate:"required"`
}

func validPayload() *Payload {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	code := 0
	uuid := "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"
	return &Payload{
		Metadata: Metadata{
			LTSSchemaVersion: LTSSchemaVersion, TestUUID: uuid,
			Start: start, End: start.Add(time.Minute), ExitCode: &code, Workload: "pi",
			Settings: map[string]any{"pi": "matmul", "@repeat": 0},
			Labels:   map[string]string{"workload": "pi", "kpi_settings_version": "1.0.0"},
			URLs:     map[string]string{"results": "https://ci.example/run/1/"},
		},
		Results: &typedResults{PI: &PIResult{Name: "PiMatmul"}, Usage: &Usage{}},
		KPIs: map[string]KPIValue{"rate_gflops": {
			Value: 412.7, Unit: "GFLOPS", Help: "rate", Timestamp: start, TestUUID: uuid,
		}},
	}
}

func TestValidateNamesJSONPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(p *Payload)
		want   []string // expected field errors, in order
	}{
		{"valid", func(*Payload) {}, nil},
		{"missing uuid", func(p *Payload) { p.Metadata.TestUUID = "" }, []string{"metadata.test_uuid: required"}},
		{"bad uuid", func(p *Payload) { p.Metadata.TestUUID = "not-a-uuid" },
			[]string{`metadata.test_uuid: must be a UUID v4, got "not-a-uuid"`}},
		{"schema version", func(p *Payload) { p.Metadata.LTSSchemaVersion = "2.0" },
			[]string{`metadata.lts_schema_version: must be one of [1.0], got "2.0"`}},
		{"no start", func(p *Payload) { p.Metadata.Start = time.Time{} }, []string{"metadata.start: required"}},
		{"end before start", func(p *Payload) { p.Metadata.End = p.Metadata.Start.Add(-time.Second) },
			[]string{"metadata.end: must not be before start"}},
		{"no exit code", func(p *Payload) { p.Metadata.ExitCode = nil }, []string{"metadata.exit_code: required"}},
		{"no labels", func(p *Payload) { p.Metadata.Labels = nil }, []string{"metadata.labels: required"}},
		{"empty label", func(p *Payload) { p.Metadata.Labels["device"] = "" }, []string{"metadata.labels.device: required"}},
		{"bad label name", func(p *Payload) { p.Metadata.Labels["Bad-Name"] = "x" },
			[]string{`metadata.labels.Bad-Name: name "Bad-Name" is not snake_case`}},
		{"bad url", func(p *Payload) { p.Metadata.URLs["results"] = "not a url" },
			[]string{`metadata.urls.results: must be a URL, got "not a url"`}},
		{"file url name", func(p *Payload) { p.Metadata.URLs["pi.json"] = "https://ci.example/run/1/pi.json" }, nil},
		{"empty url name", func(p *Payload) { p.Metadata.URLs[""] = "https://ci.example/" },
			[]string{"metadata.urls.: required"}},
		{"no results", func(p *Payload) { p.Results = nil }, []string{"results: required"}},
		{"typed nil results", func(p *Payload) { p.Results = (*typedResults)(nil) }, []string{"results: required"}},
		{"missing pi.json", func(p *Payload) { p.Results.(*typedResults).PI = nil }, []string{"results.pi: required"}},
		{"NaN kpi", func(p *Payload) { k := p.KPIs["rate_gflops"]; k.Value = math.NaN(); p.KPIs["rate_gflops"] = k },
			[]string{"kpis.rate_gflops.value: must be a finite number, got NaN"}},
		{"Inf kpi", func(p *Payload) { k := p.KPIs["rate_gflops"]; k.Value = math.Inf(1); p.KPIs["rate_gflops"] = k },
			[]string{"kpis.rate_gflops.value: must be a finite number, got +Inf"}},
		{"kpi without unit", func(p *Payload) { k := p.KPIs["rate_gflops"]; k.Unit = ""; p.KPIs["rate_gflops"] = k },
			[]string{"kpis.rate_gflops.unit: required"}},
		{"bad kpi name", func(p *Payload) { p.KPIs["RateGFLOPS"] = p.KPIs["rate_gflops"] },
			[]string{`kpis.RateGFLOPS: KPI name "RateGFLOPS" is not snake_case`}},
		{"build", func(p *Payload) {
			p.Metadata.Build = &Build{ID: "b-1", CI: &CI{Engine: "github", URL: "https://ci.example/1"}}
		}, nil},
		{"build without id", func(p *Payload) { p.Metadata.Build = &Build{Commit: "abc"} }, []string{"metadata.build.id: required"}},
		{"build bad ci url", func(p *Payload) { p.Metadata.Build = &Build{ID: "b", CI: &CI{URL: "nope"}} },
			[]string{`metadata.build.ci.url: must be a URL, got "nope"`}},
		{"several", func(p *Payload) { p.Metadata.TestUUID = ""; p.Metadata.Workload = "" },
			[]string{"metadata.test_uuid: required", "metadata.workload: required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := validPayload()
			tt.mutate(p)
			err := Validate(p)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want a *ValidationError", err)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if err.Error() != strings.Join(tt.want, "; ") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestValidateValue(t *testing.T) {
	t.Parallel()
	if err := ValidateValue("labels.kpi_settings_version", "1.0.0", "semver"); err != nil {
		t.Errorf("1.0.0: %v", err)
	}
	err := ValidateValue("labels.kpi_settings_version", "1.0", "semver")
	want := `labels.kpi_settings_version: must be a semantic version (MAJOR.MINOR.PATCH), got "1.0"`
	if err == nil || err.Error() != want {
		t.Errorf("1.0: %v, want %s", err, want)
	}
}

func TestPayloadJSONShape(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(validPayload())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"lts_schema_version", "test_uuid", "start", "end", "exit_code", "workload", "settings", "labels", "urls"} {
		if _, ok := doc["metadata"][k]; !ok {
			t.Errorf("metadata.%s missing from %s", k, data)
		}
	}
	// Without a build, the payload has no build key: payloads written
	// before builds existed read the same.
	if _, ok := doc["metadata"]["build"]; ok {
		t.Errorf("metadata.build present without a build: %s", data)
	}
	kpi, _ := doc["kpis"]["rate_gflops"].(map[string]any)
	for _, k := range []string{"value", "unit", "help", "lower_better", "@timestamp", "test_uuid"} {
		if _, ok := kpi[k]; !ok {
			t.Errorf("kpis.rate_gflops.%s missing from %s", k, data)
		}
	}
}

func TestKPIDocumentsFlattenLabels(t *testing.T) {
	t.Parallel()
	p := validPayload()
	p.KPIs["elapsed_ms"] = KPIValue{Value: 0.65, Unit: "ms", Help: "time", LowerBetter: true,
		Timestamp: p.Metadata.Start, TestUUID: p.Metadata.TestUUID}
	docs := p.KPIDocuments()
	if len(docs) != 2 || docs[0].KPI != "elapsed_ms" || docs[1].KPI != "rate_gflops" {
		t.Fatalf("documents not one per KPI sorted by name: %+v", docs)
	}
	if docs[0].ID() != p.Metadata.TestUUID+".elapsed_ms" {
		t.Errorf("ID = %s", docs[0].ID())
	}
	data, err := json.Marshal(docs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"@timestamp":"2025-03-01T12:00:00Z","kpi":"elapsed_ms","kpi_settings_version":"1.0.0","lower_better":true,` +
		`"test_uuid":"0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11","unit":"ms","value":0.65,"workload":"pi"}`
	if string(data) != want {
		t.Errorf("document:\n%s\nwant\n%s", data, want)
	}
	var back KPIDocument
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.KPI != "elapsed_ms" || back.Value != 0.65 || !back.LowerBetter || back.Labels["workload"] != "pi" ||
		len(back.Labels) != 2 || !back.Timestamp.Equal(p.Metadata.Start) {
		t.Errorf("round trip: %+v", back)
	}
	// Labels are copies: changing one document's labels leaves the others alone.
	docs[0].Labels["workload"] = "changed"
	if docs[1].Labels["workload"] != "pi" || p.Metadata.Labels["workload"] != "pi" {
		t.Error("documents share their labels map")
	}
}
