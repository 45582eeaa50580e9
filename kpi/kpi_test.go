package kpi

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/seshat-bench/seshat/internal/openmetricstest"
	"github.com/seshat-bench/seshat/models"
)

// results stands for a workload's typed results.
type results struct {
	Rate    *float64
	Elapsed float64
	RSS     int64
	Import  *float64
}

func ptr(f float64) *float64 { return &f }

var testModel = LabelsModel{SettingsVersion: "1.0.0", Labels: []Label{
	{Name: "device", Help: "cpu or gpu", Required: true},
	{Name: "blas", Help: "BLAS library, when known"},
}}

func testDefinitions() []Definition {
	return []Definition{
		{Name: "rate_gflops", Help: "Operations per second.", Unit: "GFLOPS", Direction: HigherIsBetter,
			Extract: FromResults(func(r *results) (float64, error) {
				if r.Rate == nil {
					return 0, errors.New("no rate in pi.json")
				}
				return *r.Rate, nil
			})},
		{Name: "elapsed_ms", Help: "Median time of one operation.", Unit: "ms", Direction: LowerIsBetter, Format: "%.3f",
			Extract: FromResults(func(r *results) (float64, error) { return r.Elapsed, nil })},
		{Name: "max_rss_bytes", Help: "Peak resident memory.", Unit: "bytes", Direction: LowerIsBetter,
			Divisor: 1 << 20, DisplayUnit: "MiB", Format: "%.1f",
			Extract: FromResults(func(r *results) (float64, error) { return float64(r.RSS), nil })},
		{Name: "import_seconds", Help: "Framework import time.", Unit: "seconds", Direction: LowerIsBetter,
			Extract: FromResults(func(r *results) (float64, error) {
				if r.Import == nil {
					return 0, ErrNotApplicable
				}
				return *r.Import, nil
			})},
	}
}

func testPayload(uuid string, start time.Time, r *results) *models.Payload {
	code := 0
	return &models.Payload{
		Metadata: models.Metadata{
			LTSSchemaVersion: models.LTSSchemaVersion, TestUUID: uuid, Start: start, End: start.Add(time.Second),
			ExitCode: &code, Workload: "toy", Settings: map[string]any{},
			Labels: map[string]string{"workload": "toy", "kpi_settings_version": "1.0.0", "device": "cpu"},
			URLs:   map[string]string{},
		},
		Results: r,
	}
}

func TestNewCatalogRefusesBadDefinitions(t *testing.T) {
	t.Parallel()
	ok := Definition{Name: "rate_gflops", Help: "h", Unit: "GFLOPS", Direction: HigherIsBetter,
		Extract: func(*models.Payload) (float64, error) { return 0, nil }}
	tests := []struct {
		name   string
		model  LabelsModel
		mutate func(d *Definition)
		want   string
	}{
		{"no direction", testModel, func(d *Definition) { d.Direction = 0 }, `kpi "rate_gflops": no direction`},
		{"camel case", testModel, func(d *Definition) { d.Name = "RateGflops" }, `kpi "RateGflops": name is not snake_case`},
		{"no help", testModel, func(d *Definition) { d.Help = " " }, "no help"},
		{"no unit", testModel, func(d *Definition) { d.Unit = "" }, "no unit"},
		{"no extractor", testModel, func(d *Definition) { d.Extract = nil }, "no extractor"},
		{"unit suffix", testModel, func(d *Definition) { d.Unit = "seconds" }, "the name must end with _seconds"},
		{"version not semver", LabelsModel{SettingsVersion: "1.0"}, func(*Definition) {}, "must be a semantic version"},
		{"reserved label", LabelsModel{SettingsVersion: "1.0.0", Labels: []Label{{Name: "value"}}}, func(*Definition) {}, `label "value": reserved`},
		{"label twice", LabelsModel{SettingsVersion: "1.0.0", Labels: []Label{{Name: "workload"}}}, func(*Definition) {}, `label "workload": declared twice`},
		{"bad label", LabelsModel{SettingsVersion: "1.0.0", Labels: []Label{{Name: "Device"}}}, func(*Definition) {}, `label "Device": not snake_case`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := ok
			tt.mutate(&d)
			_, err := NewCatalog("toy", tt.model, d)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewCatalog error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := NewCatalog("toy", testModel, ok, ok); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Errorf("duplicate KPI: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustCatalog did not panic on a definition without direction")
		}
	}()
	bad := ok
	bad.Direction = 0
	MustCatalog("toy", testModel, bad)
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	cat := MustCatalog("toy", testModel, testDefinitions()...)
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	const uuid = "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"

	p := testPayload(uuid, start, &results{Rate: ptr(412.7), Elapsed: 0.65, RSS: 3 << 20})
	kpis, warnings := cat.Evaluate(p)
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if len(kpis) != 3 {
		t.Fatalf("kpis = %v, want rate, elapsed and rss (import not applicable)", kpis)
	}
	want := models.KPIValue{Value: 0.65, Unit: "ms", Help: "Median time of one operation.", LowerBetter: true, Timestamp: start, TestUUID: uuid}
	if kpis["elapsed_ms"] != want {
		t.Errorf("elapsed_ms = %+v, want %+v", kpis["elapsed_ms"], want)
	}
	if kpis["rate_gflops"].LowerBetter {
		t.Error("rate_gflops: lower_better, want higher is better")
	}

	tests := []struct {
		name    string
		results any
		absent  string
		warning string
	}{
		{"failing extractor", &results{Elapsed: 1}, "rate_gflops", "kpi rate_gflops: not computed: no rate in pi.json"},
		{"NaN", &results{Rate: ptr(math.NaN()), Elapsed: 1}, "rate_gflops", "kpi rate_gflops: value NaN is not a finite number, refused"},
		{"Inf", &results{Rate: ptr(1), Elapsed: math.Inf(1)}, "elapsed_ms", "kpi elapsed_ms: value +Inf is not a finite number, refused"},
		{"panicking extractor", (*results)(nil), "elapsed_ms", "kpi elapsed_ms: not computed: extractor panicked"},
		{"no results", nil, "elapsed_ms", "kpi elapsed_ms: not computed: the payload has no results"},
		{"other type", "text", "elapsed_ms", "kpi elapsed_ms: not computed: results are string, want *kpi.results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := testPayload(uuid, start, nil)
			p.Results = tt.results
			kpis, warnings := cat.Evaluate(p)
			if _, ok := kpis[tt.absent]; ok {
				t.Errorf("%s present: %+v", tt.absent, kpis[tt.absent])
			}
			found := false
			for _, w := range warnings {
				found = found || strings.HasPrefix(w, tt.warning)
			}
			if !found {
				t.Errorf("warnings %q lack %q", warnings, tt.warning)
			}
		})
	}
}

func TestCatalogValidate(t *testing.T) {
	t.Parallel()
	cat := MustCatalog("toy", testModel, testDefinitions()...)
	p := testPayload("0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11", time.Unix(0, 0), &results{Rate: ptr(1)})
	p.KPIs, _ = cat.Evaluate(p)
	if err := cat.Validate(p).Err(); err != nil {
		t.Fatalf("valid payload: %v", err)
	}
	delete(p.Metadata.Labels, "device")
	p.Metadata.Labels["colour"] = "blue"
	p.Metadata.Labels["kpi_settings_version"] = "0.9.0"
	p.KPIs["speed"] = p.KPIs["rate_gflops"]
	got := cat.Validate(p).Error()
	want := `metadata.labels.device: required; metadata.labels.colour: not a label of workload toy; ` +
		`metadata.labels.kpi_settings_version: is "0.9.0", the toy workload's KPIs are version "1.0.0"; ` +
		`kpis.speed: not a KPI of workload toy`
	if got != want {
		t.Errorf("Validate:\n%s\nwant\n%s", got, want)
	}
}

func TestDisplay(t *testing.T) {
	t.Parallel()
	cat := MustCatalog("toy", testModel, testDefinitions()...)
	tests := []struct {
		kpi  string
		v    float64
		want string
	}{
		{"max_rss_bytes", 3 << 20, "3.0 MiB"},
		{"elapsed_ms", 0.6504, "0.650 ms"},
		{"rate_gflops", 412.7, "412.7 GFLOPS"},
	}
	for _, tt := range tests {
		d, ok := cat.Definition(tt.kpi)
		if !ok {
			t.Fatalf("%s not in catalog", tt.kpi)
		}
		if got := d.Display(tt.v); got != tt.want {
			t.Errorf("%s.Display(%v) = %q, want %q", tt.kpi, tt.v, got, tt.want)
		}
	}
	if _, ok := cat.Definition("nope"); ok {
		t.Error("Definition(nope) found")
	}
}

func TestOpenMetricsParsesBack(t *testing.T) {
	t.Parallel()
	cat := MustCatalog("toy", testModel, testDefinitions()...)
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var payloads []*models.Payload
	// Two repeats of one point: identical labels but for test_uuid.
	for i, uuid := range []string{"1b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11", "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"} {
		p := testPayload(uuid, start.Add(time.Duration(i)*time.Minute), &results{Rate: ptr(400 + float64(i)), Elapsed: 0.5, RSS: 1 << 20, Import: ptr(0.25)})
		p.Metadata.Labels["blas"] = `openblas "0.3.21"` + "\n"
		p.KPIs, _ = cat.Evaluate(p)
		payloads = append(payloads, p)
	}
	nan := testPayload("2b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11", start, nil)
	nan.KPIs = map[string]models.KPIValue{"rate_gflops": {Value: math.NaN(), Unit: "GFLOPS", Help: "h"}}
	payloads = append(payloads, nan)

	var buf bytes.Buffer
	warnings, err := WriteOpenMetrics(&buf, payloads)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "kpi rate_gflops of run 2b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11: value NaN") {
		t.Errorf("warnings = %q, want one naming the NaN KPI", warnings)
	}
	if !strings.HasSuffix(buf.String(), "# EOF\n") {
		t.Errorf("output does not end with # EOF:\n%s", buf.String())
	}
	families, err := openmetricstest.Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("Prometheus' OpenMetrics parser refused the output: %v\n%s", err, buf.String())
	}
	var names []string
	for _, f := range families {
		names = append(names, f.Name)
		if f.Type != model.MetricTypeGauge {
			t.Errorf("%s: type %s, want gauge", f.Name, f.Type)
		}
		if len(f.Samples) != 2 {
			t.Errorf("%s: %d samples, want 2 (one per run)", f.Name, len(f.Samples))
		}
	}
	if got := strings.Join(names, " "); got != "toy_elapsed_ms toy_import_seconds toy_max_rss_bytes toy_rate_gflops" {
		t.Errorf("families = %s", got)
	}
	units := map[string]string{}
	for _, f := range families {
		units[f.Name] = f.Unit
	}
	if units["toy_import_seconds"] != "seconds" || units["toy_max_rss_bytes"] != "bytes" || units["toy_rate_gflops"] != "" || units["toy_elapsed_ms"] != "" {
		t.Errorf("units = %v: want UNIT only for OpenMetrics units", units)
	}
	rate := families[3]
	if rate.Help != "Operations per second." {
		t.Errorf("help = %q", rate.Help)
	}
	first := rate.Samples[0]
	if first.Value != 400 || first.TimestampMs == nil || *first.TimestampMs != start.UnixMilli() {
		t.Errorf("first sample = %+v, want the earliest run", first)
	}
	wantLabels := map[string]string{"workload": "toy", "kpi_settings_version": "1.0.0", "device": "cpu",
		"blas": `openblas "0.3.21"` + "\n", "test_uuid": "1b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"}
	if len(first.Labels) != len(wantLabels) {
		t.Errorf("labels = %v, want %v", first.Labels, wantLabels)
	}
	for k, v := range wantLabels {
		if first.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, first.Labels[k], v)
		}
	}
}

func TestOpenMetricsEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := WriteOpenMetrics(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "# EOF\n" {
		t.Errorf("empty export = %q", buf.String())
	}
	if _, err := openmetricstest.Parse(buf.Bytes()); err != nil {
		t.Error(err)
	}
}
