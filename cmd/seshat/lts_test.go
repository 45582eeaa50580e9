package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The flag and environment plumbing of kpis and schema; what they write is
// checked by the golden tests.

func TestKPIsCommandFlags(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	// The format from the environment.
	r := runSeshat(t, map[string]string{"SESHAT_FORMAT": "json"}, "kpis", "--results-dir", dir, "--filters", "backend=gonum")
	var docs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &docs); r.code != 0 || err != nil || len(docs) != 20 {
		t.Errorf("json: exit %d, %v, %d documents, want 5 KPIs x 4 gonum runs\n%s", r.code, err, len(docs), r.stderr)
	}
	r = runSeshat(t, nil, "kpis", "--results-dir", dir, "--format", "xml")
	if r.code != 4 || !strings.Contains(r.stderr, `--format: "xml"`) {
		t.Errorf("bad format: exit %d, %s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "kpis", "--results-dir", dir, "--filters", "matrix_size=8192")
	if r.code != 3 || r.stdout != "" {
		t.Errorf("only a failed run: exit %d (want 3, no KPI), stdout %q", r.code, r.stdout)
	}
}

func TestParseOutputsBothOnStdoutRefused(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "parse", "--results-dir", copyResults(t), "--output-lts", "-", "--output-matrix", "-")
	if r.code != 4 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestSchemaCommandFlags(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, map[string]string{"SESHAT_INDEX_PREFIX": "ci-"}, "schema", "--output", t.TempDir()+"/s.json", "--opensearch-template", "-")
	var tpl map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &tpl); r.code != 0 || err != nil || tpl["ci-seshat-kpis"] == nil || tpl["ci-seshat"] == nil {
		t.Errorf("templates: exit %d, %v, %s", r.code, err, r.stdout)
	}
	r = runSeshat(t, nil, "schema", "--opensearch-template", "-")
	if r.code != 4 {
		t.Errorf("schema and templates both on stdout: exit %d", r.code)
	}
}
