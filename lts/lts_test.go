package lts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// toy is a workload of the tests: its parsed results are a *toyParsed, its
// payload results a *toyResults.
type toy struct{}

type toyParsed struct {
	UUID   string
	PI     *models.PIResult
	Usage  *models.Usage
	Device string
}

type toyResults struct {
	PI    *models.PIResult `json:"pi" validate:"required"`
	Usage *models.Usage    `json:"usage" validate:"required"`
	Notes []string         `json:"notes"`
}

var toyCatalog = kpi.MustCatalog("toy",
	kpi.LabelsModel{SettingsVersion: "1.2.0", Labels: []kpi.Label{
		{Name: "device", Help: "cpu or gpu", Required: true},
		{Name: "blas", Help: "BLAS library when known"},
	}},
	kpi.Definition{Name: "elapsed_ms", Help: "Median time of one operation.", Unit: "ms", Direction: kpi.LowerIsBetter,
		Extract: kpi.FromResults(func(r *toyResults) (float64, error) {
			if r.PI == nil {
				return 0, errors.New("no pi.json")
			}
			return r.PI.Result.Elapsed, nil
		})},
	kpi.Definition{Name: "cpu_seconds", Help: "CPU time.", Unit: "seconds", Direction: kpi.LowerIsBetter,
		Extract: kpi.FromResults(func(r *toyResults) (float64, error) {
			if r.Usage == nil {
				return 0, errors.New("no usage.json")
			}
			return r.Usage.Rusage.UtimeSeconds + r.Usage.Rusage.StimeSeconds, nil
		})},
)

func (toy) Name() string        { return "toy" }
func (toy) KPIs() *kpi.Catalog  { return toyCatalog }
func (toy) PayloadResults() any { return &toyResults{} }
func (toy) FillPayload(e *store.Entry, p *models.Payload) []string {
	r, _ := e.Results.(*toyParsed)
	if r == nil {
		return []string{"no parsed results"}
	}
	var warnings []string
	p.Metadata.TestUUID = r.UUID
	if r.Usage != nil {
		p.Metadata.Start, p.Metadata.End = r.Usage.Start, r.Usage.End
	} else {
		warnings = append(warnings, "usage.json: missing, no start and end")
	}
	if r.Device != "" {
		p.Metadata.Labels["device"] = r.Device
	}
	p.Results = &toyResults{PI: r.PI, Usage: r.Usage}
	return warnings
}

func toyLookup(name string) (Workload, bool) {
	if name == "toy" {
		return toy{}, true
	}
	return nil, false
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))

func toyEntry(path, uuid string) *store.Entry {
	code := 0
	return &store.Entry{
		Path: path, Workload: "toy", Complete: true, ExitCode: &code,
		Settings: models.Settings{"workload": "toy", "size": 512, "@repeat": 0},
		Results: &toyParsed{
			UUID:   uuid,
			PI:     &models.PIResult{Name: "PiToy", Result: models.PIMeasurement{Elapsed: 0.5, SamplesMs: []float64{0.5}}},
			Usage:  &models.Usage{Start: t0, End: t0.Add(2 * time.Second), Rusage: models.Rusage{UtimeSeconds: 1.5, StimeSeconds: 0.25}},
			Device: "cpu",
		},
	}
}

const (
	uuidA = "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"
	uuidB = "1c6f4b68-9a1f-4d2b-8b62-2e2a2d1a5b22"
)

// TestBuildURLsWithoutCredentials: payloads are published; the base URL's
// user and password are not in them, nor in a warning.
func TestBuildURLsWithoutCredentials(t *testing.T) {
	t.Parallel()
	p, warnings := Build(toyEntry("expe/001__a", uuidA), toy{}, Options{BaseURL: "https://ci:hunter2@ci.example/results/"})
	if got := p.Metadata.URLs["artifacts"]; got != "https://ci.example/results/expe/001__a/" || len(warnings) != 0 {
		t.Errorf("urls.artifacts = %q, warnings %v", got, warnings)
	}
	p, warnings = Build(toyEntry("expe/001__a", uuidA), toy{}, Options{BaseURL: "https://ci:hun/ter2@ci.example/results/"})
	if got, ok := p.Metadata.URLs["artifacts"]; ok || len(warnings) != 1 || strings.Contains(warnings[0], "ter2") ||
		!strings.Contains(warnings[0], "percent-encode") {
		t.Errorf("urls.artifacts = %q, warnings %v; want none, and a warning that does not show the password", got, warnings)
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	p, warnings := Build(toyEntry("expe/001__a", uuidA), toy{}, Options{BaseURL: "https://ci.example/job 1/results/"})
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if err := Validate(p, toyCatalog); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	m := p.Metadata
	if m.LTSSchemaVersion != "1.0" || m.Workload != "toy" || m.TestUUID != uuidA || *m.ExitCode != 0 {
		t.Errorf("metadata = %+v", m)
	}
	if m.Start.Location() != time.UTC || !m.Start.Equal(t0) {
		t.Errorf("start = %v, want %v in UTC", m.Start, t0)
	}
	wantLabels := map[string]string{"workload": "toy", "kpi_settings_version": "1.2.0", "device": "cpu"}
	if fmt.Sprint(m.Labels) != fmt.Sprint(wantLabels) {
		t.Errorf("labels = %v, want %v", m.Labels, wantLabels)
	}
	if got := m.URLs["artifacts"]; got != "https://ci.example/job%201/results/expe/001__a/" {
		t.Errorf("urls.artifacts = %q", got)
	}
	if k := p.KPIs["cpu_seconds"]; k.Value != 1.75 || !k.LowerBetter || k.TestUUID != uuidA || !k.Timestamp.Equal(t0) {
		t.Errorf("cpu_seconds = %+v", k)
	}
}

// TestBuildCarriesTheBuild: the entry's build.json becomes metadata.build,
// never a label; without one the payload has none, and both are valid.
func TestBuildCarriesTheBuild(t *testing.T) {
	t.Parallel()
	build := &models.Build{ID: "gitlab-777", Commit: "fedcba98", Ref: "main", Time: t0,
		CI: &models.CI{Engine: "gitlab", RunID: "777", URL: "https://gitlab.example/acme/stack/-/pipelines/777"}}
	for _, b := range []*models.Build{build, nil} {
		e := toyEntry("expe/001__a", uuidA)
		e.Build = b
		p, warnings := Build(e, toy{}, Options{})
		if len(warnings) != 0 {
			t.Errorf("warnings: %v", warnings)
		}
		if !reflect.DeepEqual(p.Metadata.Build, b) {
			t.Errorf("metadata.build %+v, want %+v", p.Metadata.Build, b)
		}
		for k, v := range p.Metadata.Labels {
			if strings.Contains(k, "build") || (b != nil && (v == b.ID || v == b.Commit)) {
				t.Errorf("label %s=%s: the build must not split a series", k, v)
			}
		}
		if err := Validate(p, toyCatalog); err != nil {
			t.Errorf("build %+v: Validate: %v", b, err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(data), `"build":{"id":"gitlab-777"`); has != (b != nil) {
			t.Errorf("payload JSON %s: metadata.build present %v, want %v", data, has, b != nil)
		}
	}
}

func TestBuildFailedRunHasNoKPIs(t *testing.T) {
	t.Parallel()
	e := toyEntry("expe/003__c", uuidA)
	*e.ExitCode = 137
	p, warnings := Build(e, toy{}, Options{})
	if len(p.KPIs) != 0 || *p.Metadata.ExitCode != 137 {
		t.Errorf("failed run: kpis %v, exit code %d", p.KPIs, *p.Metadata.ExitCode)
	}
	if strings.Join(warnings, "\n") != "exit code 137: no KPIs for a failed run" {
		t.Errorf("warnings = %q", warnings)
	}
	if err := Validate(p, toyCatalog); err != nil {
		t.Errorf("a failed run with its results is a valid payload: %v", err)
	}
}

func TestBuildLenientThenStrict(t *testing.T) {
	t.Parallel()
	e := toyEntry("expe/002__b", uuidA)
	e.Results.(*toyParsed).Usage = nil // usage.json missing
	p, warnings := Build(e, toy{}, Options{})
	if p == nil {
		t.Fatal("no payload for an entry with a missing usage.json")
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"usage.json: missing", "kpi cpu_seconds: not computed: no usage.json"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}
	if _, ok := p.KPIs["elapsed_ms"]; !ok {
		t.Error("elapsed_ms absent: the KPIs that can be computed must be")
	}
	err := Validate(p, toyCatalog)
	want := "metadata.start: required; metadata.end: required; results.usage: required; kpis.elapsed_ms.@timestamp: required"
	if err == nil || err.Error() != want {
		t.Errorf("Validate = %v\nwant %s", err, want)
	}
}

func TestBuildAllAndValidateAll(t *testing.T) {
	t.Parallel()
	good := toyEntry("b/001", uuidB)
	broken := toyEntry("a/001", "")
	broken.Results.(*toyParsed).PI = nil
	failed := toyEntry("c/001", uuidA)
	failed.Results = nil // the parser failed on it
	incomplete := &store.Entry{Path: "d/001", Workload: "toy", Settings: models.Settings{}}
	other := toyEntry("e/001", uuidA)
	other.Workload = "plain"
	m := &store.Matrix{Entries: []*store.Entry{good, broken, failed, incomplete, other}}

	records := BuildAll(m, toyLookup, Options{})
	var paths []string
	for _, r := range records {
		paths = append(paths, r.Path)
	}
	if got := strings.Join(paths, " "); got != "a/001 b/001 c/001 e/001" {
		t.Errorf("records = %s: want sorted by path, incomplete entries left out", got)
	}
	err := ValidateAll(records)
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Fatalf("ValidateAll exit code = %d (%v), want 4", exitcode.Of(err), err)
	}
	msg := err.Error()
	for _, line := range []string{
		"3 invalid LTS payload(s):",
		"  a/001: metadata.test_uuid: required; results.pi: required",
		"  c/001: metadata.test_uuid: required; metadata.start: required; metadata.end: required; results: required; metadata.labels.device: required",
		"  e/001: workload plain produces no LTS payloads",
	} {
		if !strings.Contains(msg, line) {
			t.Errorf("error lacks %q:\n%s", line, msg)
		}
	}
	if strings.Contains(msg, "b/001") {
		t.Errorf("valid entry b/001 reported:\n%s", msg)
	}
	if err := ValidateAll(records[1:2]); err != nil {
		t.Errorf("ValidateAll(valid) = %v", err)
	}

	var buf bytes.Buffer
	if err := WriteJSON(&buf, Payloads(records[1:2]), false); err != nil {
		t.Fatal(err)
	}
	var back []models.Payload
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != 1 || back[0].Metadata.TestUUID != uuidB {
		t.Errorf("WriteJSON round trip: %v %s", err, buf.String())
	}
	buf.Reset()
	if err := WriteJSON(&buf, nil, false); err != nil || buf.String() != "[]\n" {
		t.Errorf("WriteJSON(nil) = %q, %v", buf.String(), err)
	}
}

// compileSchema compiles Schema([toy]) with a real JSON Schema validator.
func compileSchema(t *testing.T) *sjs.Schema {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSchema(&buf, []Workload{toy{}}); err != nil {
		t.Fatal(err)
	}
	doc, err := sjs.UnmarshalJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("payload.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("payload.schema.json")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return s
}

func instance(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// The schema and the strict validation refuse the same payloads.
func TestSchemaAgreesWithStrictValidation(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t)
	tests := []struct {
		name   string
		mutate func(p *models.Payload)
	}{
		{"valid", func(*models.Payload) {}},
		{"missing uuid", func(p *models.Payload) { p.Metadata.TestUUID = "" }},
		{"uppercase uuid", func(p *models.Payload) { p.Metadata.TestUUID = strings.ToUpper(uuidA) }},
		{"uuid v1", func(p *models.Payload) { p.Metadata.TestUUID = "0b5e3a57-8f0e-1c1a-9a51-1d1f1c0f4a11" }},
		{"schema version", func(p *models.Payload) { p.Metadata.LTSSchemaVersion = "0.9" }},
		{"zero start", func(p *models.Payload) { p.Metadata.Start = time.Time{} }},
		{"no exit code", func(p *models.Payload) { p.Metadata.ExitCode = nil }},
		{"no settings", func(p *models.Payload) { p.Metadata.Settings = nil }},
		{"missing required label", func(p *models.Payload) { delete(p.Metadata.Labels, "device") }},
		{"empty label", func(p *models.Payload) { p.Metadata.Labels["device"] = "" }},
		{"undeclared label", func(p *models.Payload) { p.Metadata.Labels["colour"] = "blue" }},
		{"optional label", func(p *models.Payload) { p.Metadata.Labels["blas"] = "openblas" }},
		{"other kpi settings version", func(p *models.Payload) { p.Metadata.Labels["kpi_settings_version"] = "1.1.0" }},
		{"bad url", func(p *models.Payload) { p.Metadata.URLs["results"] = "::" }},
		{"null results", func(p *models.Payload) { p.Results = nil }},
		{"missing pi", func(p *models.Payload) { p.Results.(*toyResults).PI = nil }},
		{"undeclared kpi", func(p *models.Payload) { p.KPIs["speed"] = p.KPIs["elapsed_ms"] }},
		{"kpi without help", func(p *models.Payload) { k := p.KPIs["elapsed_ms"]; k.Help = ""; p.KPIs["elapsed_ms"] = k }},
		{"kpi bad uuid", func(p *models.Payload) { k := p.KPIs["elapsed_ms"]; k.TestUUID = "x"; p.KPIs["elapsed_ms"] = k }},
		{"build", func(p *models.Payload) {
			p.Metadata.Build = &models.Build{ID: "b-42", Commit: "0123abc", Ref: "refs/heads/main", Time: p.Metadata.Start,
				CI: &models.CI{Engine: "github", RunID: "77", URL: "https://ci.example/runs/77"}}
		}},
		{"build with id only", func(p *models.Payload) { p.Metadata.Build = &models.Build{ID: "b-42"} }},
		{"build without id", func(p *models.Payload) { p.Metadata.Build = &models.Build{Commit: "0123abc"} }},
		{"build bad ci url", func(p *models.Payload) { p.Metadata.Build = &models.Build{ID: "b", CI: &models.CI{URL: "::"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := Build(toyEntry("expe/001", uuidA), toy{}, Options{BaseURL: "https://ci.example/r"})
			tt.mutate(p)
			strictErr := Validate(p, toyCatalog)
			schemaErr := schema.Validate(instance(t, p))
			if (strictErr == nil) != (schemaErr == nil) {
				t.Errorf("strict validation: %v\nJSON Schema: %v", strictErr, schemaErr)
			}
		})
	}
}

func TestSchemaPatternsMatchValidator(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t)
	for _, v := range []string{"1.0.0", "1.0", "v1.0.0", "1.2.3-rc.1+build.5", "01.0.0", "1.0.0-", ""} {
		p, _ := Build(toyEntry("expe/001", uuidA), toy{}, Options{})
		// kpi_settings_version is fixed by the labels model; check the
		// pattern through the catalog's own validation and the schema's
		// semver definition instead.
		_ = p
		validatorOK := models.ValidateValue("v", v, "semver") == nil
		re := mustSchemaPattern(t, semverPattern)
		if re.MatchString(v) != validatorOK {
			t.Errorf("semver %q: validator %v, schema pattern %v", v, validatorOK, !validatorOK)
		}
	}
	for _, v := range []string{uuidA, strings.ToUpper(uuidA), "0b5e3a57-8f0e-1c1a-9a51-1d1f1c0f4a11", "0b5e3a57-8f0e-4c1a-7a51-1d1f1c0f4a11", "x"} {
		p, _ := Build(toyEntry("expe/001", v), toy{}, Options{})
		strictOK := models.ValidateValue("v", v, "uuid4") == nil
		schemaErr := schema.Validate(instance(t, p))
		schemaOK := schemaErr == nil
		if strictOK != schemaOK {
			t.Errorf("uuid %q: validator %v, schema %v", v, strictOK, schemaOK)
		}
	}
}

func TestSchemaRefusesUntranslatableRules(t *testing.T) {
	t.Parallel()
	_, err := Schema([]Workload{emailWorkload{}})
	if err == nil || !strings.Contains(err.Error(), `validate rule "email" has no JSON Schema translation`) {
		t.Errorf("Schema = %v, want an error naming the rule", err)
	}
}

type emailWorkload struct{ toy }

func (emailWorkload) PayloadResults() any {
	return &struct {
		Contact string `json:"contact" validate:"email"`
	}{}
}

func TestIndexTemplates(t *testing.T) {
	t.Parallel()
	tpls := IndexTemplates(IndexNames{Prefix: "ci-"}, []Workload{toy{}})
	data, err := json.Marshal(tpls)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]struct {
		IndexPatterns []string `json:"index_patterns"`
		Template      struct {
			Mappings struct {
				Properties map[string]struct {
					Type       string                    `json:"type"`
					Enabled    *bool                     `json:"enabled"`
					Properties map[string]map[string]any `json:"properties"`
				} `json:"properties"`
			} `json:"mappings"`
		} `json:"template"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	kpis, ok := doc["ci-seshat-kpis"]
	if !ok || fmt.Sprint(kpis.IndexPatterns) != "[ci-seshat-kpis]" {
		t.Fatalf("KPI template missing or wrong pattern: %s", data)
	}
	props := kpis.Template.Mappings.Properties
	for field, typ := range map[string]string{"@timestamp": "date", "value": "double", "kpi": "keyword", "test_uuid": "keyword",
		"lower_better": "boolean", "device": "keyword", "blas": "keyword", "workload": "keyword", "kpi_settings_version": "keyword"} {
		if props[field].Type != typ {
			t.Errorf("KPI index %s: type %q, want %s", field, props[field].Type, typ)
		}
	}
	payload, ok := doc["ci-seshat"]
	if !ok {
		t.Fatalf("payload template missing: %s", data)
	}
	meta := payload.Template.Mappings.Properties["metadata"].Properties
	if meta["start"]["type"] != "date" || meta["test_uuid"]["type"] != "keyword" || meta["settings"]["enabled"] != false {
		t.Errorf("payload metadata mapping: %v", meta)
	}
	labels := meta["labels"]["properties"].(map[string]any)
	if labels["device"].(map[string]any)["type"] != "keyword" {
		t.Errorf("payload labels mapping: %v", labels)
	}
	if r := payload.Template.Mappings.Properties["results"]; r.Enabled == nil || *r.Enabled {
		t.Errorf("results should be stored, not indexed: %+v", r)
	}
}

func mustSchemaPattern(t *testing.T, p string) interface{ MatchString(string) bool } {
	t.Helper()
	re, err := regexpCompile(p)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

var regexpCompile = regexp.Compile
