package parsers

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 2, 27, 8, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want models.Build
	}{{
		name: "as seshat run writes it",
		in: `{
  "id": "github-4242-2",
  "commit": "89abcdef0123",
  "ref": "main",
  "ci": {"engine": "github", "run_id": "4242", "url": "https://github.com/acme/stack/actions/runs/4242"},
  "time": "2026-02-27T09:30:00+01:00"
}`,
		want: models.Build{ID: "github-4242-2", Commit: "89abcdef0123", Ref: "main", Time: at,
			CI: &models.CI{Engine: "github", RunID: "4242", URL: "https://github.com/acme/stack/actions/runs/4242"}},
	}, {
		name: "no id: the CI run names it",
		in:   `{"commit": "0123abc", "ci": {"engine": "gitlab", "run_id": "777"}}`,
		want: models.Build{ID: "gitlab-777", Commit: "0123abc", CI: &models.CI{Engine: "gitlab", RunID: "777"}},
	}, {
		name: "no id: the commit names it",
		in:   `{"commit": "0123abc", "ref": "main"}`,
		want: models.Build{ID: "0123abc", Commit: "0123abc", Ref: "main"},
	}, {
		name: "run id written as a number",
		in:   `{"ci": {"engine": "prow", "run_id": 1552222232225255424}}`,
		want: models.Build{ID: "prow-1552222232225255424", CI: &models.CI{Engine: "prow", RunID: "1552222232225255424"}},
	}, {
		name: "empty ci and unknown fields",
		in:   `{"id": "b", "ci": {}, "builder": {"name": "x"}, "time": ""}`,
		want: models.Build{ID: "b"},
	}, {
		name: "null fields",
		in:   `{"id": "b", "ci": null, "commit": null, "time": null}`,
		want: models.Build{ID: "b"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Build("build.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v (ci %+v), want %+v (ci %+v)", *got, got.CI, tt.want, tt.want.CI)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		line      int
		field     string
		fragments []string
	}{
		{"empty", "", 1, "", []string{"empty document"}},
		{"not an object", "\n[1, 2]", 2, "", []string{"not a JSON object"}},
		{"null", "null", 1, "", []string{"not a JSON object"}},
		{"nothing to name it", `{"ref": "main"}`, 0, "id", []string{"missing"}},
		{"truncated", `{"id": "b", "commit": "01`, 1, "", []string{"truncated"}},
		{"id of the wrong type", "{\n\"id\": 12}", 2, "id", []string{"number"}},
		{"ci of the wrong type", `{"id": "b", "ci": "github"}`, 1, "ci", []string{"string"}},
		{"run id of the wrong type", `{"ci": {"run_id": true}}`, 0, "ci.run_id", []string{"true"}},
		{"negative run id", `{"ci": {"run_id": -3}}`, 0, "ci.run_id", []string{"-3"}},
		{"time not RFC 3339", `{"id": "b", "time": "yesterday"}`, 0, "time", []string{"yesterday"}},
		{"url not absolute", `{"id": "b", "ci": {"url": "runs/7"}}`, 0, "ci.url", nil},
		{"binary", "{\"id\": \"\x00\"}", 1, "", []string{"binary"}},
		{"not UTF-8", "{\"id\": \"\xff\xfe\"}", 1, "", []string{"binary"}},
		{"huge", `{"id": "` + strings.Repeat("x", BuildLimit) + `"}`, 0, "", []string{"more than"}},
		{"deeply nested", `{"x": ` + strings.Repeat("[", 20000), 1, "", []string{"exceeded max depth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := Build("run/build.json", []byte(tt.in))
			if err == nil {
				t.Fatalf("no error, decoded %+v", b)
			}
			wantErr(t, err, "run/build.json", tt.line, tt.field, tt.fragments...)
		})
	}
}
