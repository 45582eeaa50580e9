package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/openmetricstest"
	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/models"
)

func ms(v float64) *float64 { return &v }
func code(c int) *int       { return &c }

var t0 = workloadtest.T0

func toyTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := workloadtest.WriteSampleTree(root); err != nil {
		t.Fatal(err)
	}
	return root
}

type testEnv struct {
	env            Env
	stdout, stderr *bytes.Buffer
}

func newTestEnv() *testEnv {
	te := &testEnv{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	te.env = Env{Stdout: te.stdout, Stderr: te.stderr, Log: slog.New(slog.NewTextHandler(te.stderr, nil))}
	return te
}

func compiledSchema(t *testing.T) *sjs.Schema {
	t.Helper()
	te := newTestEnv()
	if err := Schema(te.env, SchemaOptions{}); err != nil {
		t.Fatal(err)
	}
	doc, err := sjs.UnmarshalJSON(te.stdout)
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
		t.Fatal(err)
	}
	return s
}

func TestParseOutputLTS(t *testing.T) {
	t.Parallel()
	root := toyTree(t)
	out := t.TempDir()
	te := newTestEnv()
	te.env.ResultsBaseURL = "https://ci.example/artifacts/"
	err := Parse(context.Background(), te.env, ParseOptions{
		ResultsDir: root, OutputMatrix: filepath.Join(out, "matrix.json"), OutputLTS: filepath.Join(out, "lts.json"),
	})
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, te.stderr)
	}
	if n := strings.Count(te.stderr.String(), "parsed 4 entries"); n != 1 {
		t.Errorf("stats line %d times, want once (one parse):\n%s", n, te.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "lts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var payloads []map[string]any
	if err := json.Unmarshal(data, &payloads); err != nil {
		t.Fatal(err)
	}
	var uuids []string
	for _, p := range payloads {
		uuids = append(uuids, p["metadata"].(map[string]any)["test_uuid"].(string))
	}
	if got := strings.Join(uuids, " "); got != "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11 1c6f4b68-9a1f-4d2b-8b62-2e2a2d1a5b22 2d7a5c79-ab2a-4e3c-9c73-3f3b3e2b6c33" {
		t.Errorf("payloads = %s: want the three complete runs sorted by path", got)
	}
	meta := payloads[2]["metadata"].(map[string]any)
	if meta["exit_code"] != 1.0 || meta["urls"].(map[string]any)["artifacts"] != "https://ci.example/artifacts/expe/003__1024/" {
		t.Errorf("failed run metadata = %v", meta)
	}
	if _, err := os.Stat(filepath.Join(out, "matrix.json")); err != nil {
		t.Errorf("matrix not written beside the LTS: %v", err)
	}
	checkSchema(t, data)
}

// checkSchema validates each payload of the JSON array data against the
// schema `seshat schema` writes.
func checkSchema(t *testing.T, data []byte) {
	t.Helper()
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	payloads, ok := inst.([]any)
	if !ok {
		t.Fatalf("not a JSON array of payloads: %.200s", data)
	}
	schema := compiledSchema(t)
	for i, p := range payloads {
		if err := schema.Validate(p); err != nil {
			m, _ := p.(map[string]any)
			meta, _ := m["metadata"].(map[string]any)
			t.Errorf("payload %d (test_uuid %v) does not match the schema: %v", i, meta["test_uuid"], err)
		}
	}
}

// TestLTSGoldenMatchesSchema: the LTS payloads of the shipped tree, which
// cmd/seshat's TestLTSGolden checks `seshat parse --output-lts -` writes
// byte for byte, match the JSON Schema `seshat schema` writes (validated
// here, so that the validator stays out of that test binary, which every
// `seshat pi` of its tests starts).
func TestLTSGoldenMatchesSchema(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../../../testdata/golden/lts.json")
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, data)
}

func TestParseOutputLTSRefusesInvalidPayloads(t *testing.T) {
	t.Parallel()
	root := toyTree(t)
	// A complete run whose toy.json is missing, another whose uuid is bad.
	if err := workloadtest.WriteRun(root, "expe/005__4096", map[string]any{"size": 4096}, code(0), nil); err != nil {
		t.Fatal(err)
	}
	if err := workloadtest.WriteRun(root, "expe/006__8", map[string]any{"size": 8}, code(0),
		&workloadtest.Run{UUID: "nope", Start: t0, End: t0, ElapsedMs: ms(1), Device: "cpu"}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	te := newTestEnv()
	err := Parse(context.Background(), te.env, ParseOptions{
		ResultsDir: root, OutputMatrix: filepath.Join(out, "matrix.json"), OutputLTS: filepath.Join(out, "lts.json"),
	})
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Fatalf("Parse = %v (exit %d), want exit 4", err, exitcode.Of(err))
	}
	msg := err.Error()
	for _, want := range []string{
		"--output-lts: 2 invalid LTS payload(s):",
		"expe/005__4096: metadata.test_uuid: required; metadata.start: required; metadata.end: required; results.elapsed_ms: required",
		`expe/006__8: metadata.test_uuid: must be a UUID v4, got "nope"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "lts.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lts.json written despite invalid payloads: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "matrix.json")); err != nil {
		t.Errorf("matrix not written: %v", err)
	}
	// Lenient building warned about the KPI it could not compute.
	if !strings.Contains(te.stderr.String(), "kpi elapsed_ms: not computed: toy.json has no elapsed_ms") {
		t.Errorf("no warning naming the KPI:\n%s", te.stderr)
	}
}

func TestParseBothOutputsOnStdoutRefused(t *testing.T) {
	t.Parallel()
	err := Parse(context.Background(), newTestEnv().env, ParseOptions{ResultsDir: "x", OutputMatrix: "-", OutputLTS: "-"})
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("Parse = %v", err)
	}
}

func TestKPIsOpenMetrics(t *testing.T) {
	t.Parallel()
	root := toyTree(t)
	te := newTestEnv()
	if err := KPIs(context.Background(), te.env, KPIsOptions{ResultsDir: root}); err != nil {
		t.Fatalf("KPIs: %v\n%s", err, te.stderr)
	}
	families, err := openmetricstest.Parse(te.stdout.Bytes())
	if err != nil {
		t.Fatalf("not OpenMetrics: %v\n%s", err, te.stdout)
	}
	if len(families) != 2 || families[0].Name != "toy_elapsed_ms" || families[1].Name != "toy_wall_seconds" || families[1].Unit != "seconds" {
		t.Fatalf("families: %+v", families)
	}
	// The failed run (exit 1) has no KPIs: its numbers are not performance.
	s := families[0].Samples
	if len(s) != 2 || s[0].Value != 1.5 || s[0].Labels["size"] != "512" || s[0].Labels["device"] != "cpu" ||
		s[0].Labels["test_uuid"] != "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11" || *s[0].TimestampMs != t0.UnixMilli() {
		t.Errorf("samples: %+v", s)
	}
}

func TestKPIsJSONDocuments(t *testing.T) {
	t.Parallel()
	root := toyTree(t)
	// A run whose toy.json lacks elapsed_ms: its other KPI is still exported.
	if err := workloadtest.WriteRun(root, "expe/005__8", map[string]any{"size": 8}, code(0),
		&workloadtest.Run{UUID: "3e8b6d8a-bc3b-4f4d-8d84-404c4f3c7d44", Start: t0, End: t0.Add(time.Second), Device: "gpu"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "kpis.json")
	te := newTestEnv()
	if err := KPIs(context.Background(), te.env, KPIsOptions{ResultsDir: root, Format: FormatJSON, Output: out}); err != nil {
		t.Fatalf("KPIs: %v\n%s", err, te.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var docs []models.KPIDocument
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5 {
		t.Fatalf("%d documents, want 2 KPIs x 2 successful runs + 1: %s", len(docs), data)
	}
	last := docs[4]
	if last.KPI != "wall_seconds" || last.Value != 1 || last.Labels["device"] != "gpu" || last.Labels["workload"] != "toy" || last.ID() != "3e8b6d8a-bc3b-4f4d-8d84-404c4f3c7d44.wall_seconds" {
		t.Errorf("last document = %+v", last)
	}
	if !strings.Contains(te.stderr.String(), "kpi elapsed_ms: not computed") || !strings.Contains(te.stderr.String(), "expe/005__8") {
		t.Errorf("no warning naming the KPI and entry:\n%s", te.stderr)
	}
}

func TestKPIsErrors(t *testing.T) {
	t.Parallel()
	err := KPIs(context.Background(), newTestEnv().env, KPIsOptions{ResultsDir: t.TempDir(), Format: "csv"})
	if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "--format") {
		t.Errorf("bad format: %v", err)
	}
	root := t.TempDir()
	if err := workloadtest.WriteRun(root, "only/incomplete", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	err = KPIs(context.Background(), newTestEnv().env, KPIsOptions{ResultsDir: root})
	if exitcode.Of(err) != exitcode.NoData {
		t.Errorf("no KPI: %v (exit %d), want exit 3", err, exitcode.Of(err))
	}
}

func TestSchemaOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	te := newTestEnv()
	opts := SchemaOptions{Output: filepath.Join(dir, "schema.json"), OpenSearchTemplate: "-"}
	if err := Schema(te.env, opts); err != nil {
		t.Fatal(err)
	}
	var tpl map[string]any
	if err := json.Unmarshal(te.stdout.Bytes(), &tpl); err != nil {
		t.Fatalf("templates: %v\n%s", err, te.stdout)
	}
	if _, ok := tpl["seshat"]; !ok {
		t.Errorf("no payload index template: %v", tpl)
	}
	if _, ok := tpl["seshat-kpis"]; !ok {
		t.Errorf("no KPI index template: %v", tpl)
	}
	if _, err := os.Stat(opts.Output); err != nil {
		t.Error(err)
	}
	err := Schema(te.env, SchemaOptions{OpenSearchTemplate: "-"})
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Errorf("both on stdout: %v", err)
	}
}
