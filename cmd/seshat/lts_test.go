package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/openmetricstest"
	"github.com/seshat-bench/seshat/internal/workloadtest"
)

func toyResults(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := workloadtest.WriteSampleTree(root); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestKPIsCommand(t *testing.T) {
	t.Parallel()
	root := toyResults(t)
	r := runSeshat(t, nil, "kpis", "--results-dir", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := openmetricstest.Parse([]byte(r.stdout)); err != nil {
		t.Errorf("stdout is not OpenMetrics: %v\n%s", err, r.stdout)
	}
	// The format from the environment.
	r = runSeshat(t, map[string]string{"SESHAT_FORMAT": "json"}, "kpis", "--results-dir", root)
	var docs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &docs); r.code != 0 || err != nil || len(docs) != 4 {
		t.Errorf("json: exit %d, %v, %d documents\n%s", r.code, err, len(docs), r.stderr)
	}
	r = runSeshat(t, nil, "kpis", "--results-dir", root, "--format", "xml")
	if r.code != 4 || !strings.Contains(r.stderr, `--format: "xml"`) {
		t.Errorf("bad format: exit %d, %s", r.code, r.stderr)
	}
}

func TestParseOutputLTSCommand(t *testing.T) {
	t.Parallel()
	root := toyResults(t)
	r := runSeshat(t, nil, "parse", "--results-dir", root, "--output-lts", "-")
	var payloads []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &payloads); r.code != 0 || err != nil || len(payloads) != 3 {
		t.Fatalf("exit %d, %v, %d payloads\n%s", r.code, err, len(payloads), r.stderr)
	}
	if !strings.Contains(r.stderr, "parsed 4 entries: 0 cached, 3 parsed, 1 incomplete, 0 failed") {
		t.Errorf("stats line: %s", r.stderr)
	}
	if err := workloadtest.WriteRun(root, "expe/009__bad", nil, new(int), nil); err != nil {
		t.Fatal(err)
	}
	r = runSeshat(t, nil, "parse", "--results-dir", root, "--output-lts", "-")
	if r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "expe/009__bad: metadata.test_uuid: required") {
		t.Errorf("invalid payload: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "schema")
	var schema map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &schema); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", schema["$schema"])
	}
	r = runSeshat(t, map[string]string{"SESHAT_INDEX_PREFIX": "ci-"}, "schema", "--output", t.TempDir()+"/s.json", "--opensearch-template", "-")
	var tpl map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &tpl); r.code != 0 || err != nil || tpl["ci-seshat-kpis"] == nil {
		t.Errorf("templates: exit %d, %v, %s", r.code, err, r.stdout)
	}
}
