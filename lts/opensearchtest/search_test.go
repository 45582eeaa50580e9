package opensearchtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// runsTemplate maps labels as keywords, the way an LTS store would.
const runsTemplate = `{
  "index_patterns": ["runs*"],
  "template": {
    "mappings": {
      "dynamic_templates": [
        {"labels": {"path_match": "metadata.labels.*", "match_mapping_type": "string", "mapping": {"type": "keyword"}}}
      ],
      "properties": {
        "@timestamp": {"type": "date"},
        "test_uuid": {"type": "keyword"},
        "n": {"type": "long"},
        "value": {"type": "double"},
        "note": {"type": "text"},
        "tags": {"type": "keyword"}
      }
    }
  }
}`

// startRuns serves five payload-like documents in index "runs".
func startRuns(t *testing.T) *TestServer {
	t.Helper()
	ts := Start(t, Config{Seed: 3, Now: func() time.Time { return fixedNow }})
	call(t, ts, "PUT", "/_index_template/runs", runsTemplate).mustStatus(t, http.StatusOK)
	bulk(t, ts, "/runs/_bulk?refresh=true", ndjson(
		`{"index":{"_id":"u01"}}`, `{"@timestamp":"2024-01-01T00:00:00Z","test_uuid":"u01","metadata":{"labels":{"backend":"cuda","model":"llama"}},"n":1,"value":1.5,"note":"Fast run","tags":["a","b"]}`,
		`{"index":{"_id":"u02"}}`, `{"@timestamp":"2024-01-02T00:00:00Z","test_uuid":"u02","metadata":{"labels":{"backend":"rocm","model":"llama"}},"n":2,"value":2.5,"note":"slow Run"}`,
		`{"index":{"_id":"u03"}}`, `{"@timestamp":"2024-01-02T00:00:00Z","test_uuid":"u03","metadata":{"labels":{"backend":"cuda","model":"mistral"}},"n":3,"value":0.5}`,
		`{"index":{"_id":"u04"}}`, `{"@timestamp":"2024-01-03T12:00:00+02:00","test_uuid":"u04","metadata":{"labels":{"backend":"cuda","model":"llama"}},"tags":["c"]}`,
		`{"index":{"_id":"u05"}}`, `{"@timestamp":"2024-06-14T00:00:00Z","test_uuid":"u05","metadata":{"labels":{"backend":"CUDA","model":"llama"}},"metadata.labels.gpu":"h100","n":5}`,
	))
	return ts
}

func TestQueries(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	tests := []struct {
		name  string
		query string
		want  string // ids, comma separated, sorted
	}{
		{"match_all", `{"match_all":{}}`, "u01,u02,u03,u04,u05"},
		{"term on a dotted path is exact", `{"term":{"metadata.labels.backend":"cuda"}}`, "u01,u03,u04"},
		{"term with value object", `{"term":{"metadata.labels.backend":{"value":"rocm"}}}`, "u02"},
		{"term case_insensitive", `{"term":{"metadata.labels.backend":{"value":"cuda","case_insensitive":true}}}`, "u01,u03,u04,u05"},
		{"terms", `{"terms":{"metadata.labels.backend":["rocm","CUDA"]}}`, "u02,u05"},
		{"term number as string on long", `{"term":{"n":"2"}}`, "u02"},
		{"range on long", `{"range":{"n":{"gte":2,"lt":5}}}`, "u02,u03"},
		{"fractional bound on long", `{"range":{"n":{"gt":1.5}}}`, "u02,u03,u05"},
		{"range on double", `{"range":{"value":{"lte":1.5}}}`, "u01,u03"},
		{"range on dates with offsets, exclusive", `{"range":{"@timestamp":{"gte":"2024-01-02T00:00:00Z","lt":"2024-01-03T12:00:00+02:00"}}}`, "u02,u03"},
		{"range on dates with offsets, inclusive", `{"range":{"@timestamp":{"gte":"2024-01-02T00:00:00Z","lte":"2024-01-03T10:00:00Z"}}}`, "u02,u03,u04"},
		{"range on epoch millis", `{"range":{"@timestamp":{"lt":1704153600000}}}`, "u01"},
		{"date math from now", `{"range":{"@timestamp":{"gte":"now-1d/d"}}}`, "u05"},
		{"date math rounding up for gt", `{"range":{"@timestamp":{"gt":"2024-01-02||/d"}}}`, "u04,u05"},
		{"range time_zone", `{"range":{"@timestamp":{"gte":"2024-01-03T11:00:00","time_zone":"+02:00"}}}`, "u04,u05"},
		{"exists", `{"exists":{"field":"n"}}`, "u01,u02,u03,u05"},
		{"exists on an object", `{"exists":{"field":"metadata.labels"}}`, "u01,u02,u03,u04,u05"},
		{"must_not", `{"bool":{"must_not":{"term":{"metadata.labels.backend":"cuda"}}}}`, "u02,u05"},
		{"should alone needs one", `{"bool":{"should":[{"term":{"metadata.labels.backend":"rocm"}},{"term":{"metadata.labels.model":"mistral"}}]}}`, "u02,u03"},
		{"should beside filter is optional", `{"bool":{"filter":{"term":{"metadata.labels.model":"llama"}},"should":{"term":{"metadata.labels.backend":"rocm"}}}}`, "u01,u02,u04,u05"},
		{"minimum_should_match 1 beside filter", `{"bool":{"filter":{"term":{"metadata.labels.model":"llama"}},"should":{"term":{"metadata.labels.backend":"rocm"}},"minimum_should_match":1}}`, "u02"},
		{"minimum_should_match 2", `{"bool":{"should":[{"term":{"metadata.labels.backend":"cuda"}},{"term":{"metadata.labels.model":"llama"}},{"range":{"n":{"gte":3}}}],"minimum_should_match":"2"}}`, "u01,u03,u04,u05"},
		{"minimum_should_match -1", `{"bool":{"should":[{"term":{"metadata.labels.backend":"cuda"}},{"term":{"metadata.labels.model":"llama"}},{"range":{"n":{"gte":3}}}],"minimum_should_match":-1}}`, "u01,u03,u04,u05"},
		{"minimum_should_match 67%", `{"bool":{"should":[{"term":{"metadata.labels.backend":"cuda"}},{"term":{"metadata.labels.model":"llama"}},{"range":{"n":{"gte":3}}}],"minimum_should_match":"67%"}}`, "u01,u03,u04,u05"},
		{"minimum_should_match 100%", `{"bool":{"should":[{"term":{"metadata.labels.backend":"cuda"}},{"term":{"metadata.labels.model":"llama"}},{"range":{"n":{"gte":3}}}],"minimum_should_match":"100%"}}`, ""},
		{"minimum_should_match above the clauses", `{"bool":{"should":[{"match_all":{}}],"minimum_should_match":2}}`, ""},
		{"nested bool", `{"bool":{"must":[{"bool":{"should":[{"term":{"metadata.labels.backend":"rocm"}},{"term":{"metadata.labels.model":"mistral"}}]}}],"must_not":[{"term":{"n":3}}]}}`, "u02"},
		{"ids", `{"ids":{"values":["u01","u05","nope"]}}`, "u01,u05"},
		{"term on _id", `{"term":{"_id":"u03"}}`, "u03"},
		{"dotted key in the source", `{"term":{"metadata.labels.gpu":"h100"}}`, "u05"},
		{"array values", `{"term":{"tags":"c"}}`, "u04"},
		{"terms over arrays", `{"terms":{"tags":["a","c"]}}`, "u01,u04"},
		{"match on text is analyzed", `{"match":{"note":"RUN"}}`, "u01,u02"},
		{"match with operator and", `{"match":{"note":{"query":"fast run","operator":"and"}}}`, "u01"},
		{"term on text is not analyzed", `{"term":{"note":"Run"}}`, ""},
		{"term on text matches a token", `{"term":{"note":"run"}}`, "u01,u02"},
		{"match on keyword is exact", `{"match":{"metadata.labels.backend":"CUDA"}}`, "u05"},
		{"prefix", `{"prefix":{"metadata.labels.model":"mis"}}`, "u03"},
		{"constant_score", `{"constant_score":{"filter":{"term":{"metadata.labels.model":"mistral"}}}}`, "u03"},
		{"term on an unmapped field", `{"term":{"nope":"x"}}`, ""},
		{"range on an unmapped field", `{"range":{"nope":{"gte":1}}}`, ""},
		{"match_none", `{"match_none":{}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, ts, "POST", "/runs/_search", `{"size":100,"query":`+tc.query+`,"sort":["test_uuid"]}`)
			got := strings.Join(hitIDs(t, r), ",")
			if got != tc.want {
				t.Errorf("got [%s], want [%s]", got, tc.want)
			}
			if n := total(t, r); n != len(hitIDs(t, r)) {
				t.Errorf("total %d for %d hits", n, len(hitIDs(t, r)))
			}
			c := call(t, ts, "POST", "/runs/_count", `{"query":`+tc.query+`}`).mustStatus(t, http.StatusOK).decode(t)
			if want := len(hitIDs(t, r)); c["count"] != json.Number(fmt.Sprint(want)) {
				t.Errorf("_count = %v, want %d", c["count"], want)
			}
		})
	}
}

func TestSort(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	tests := []struct {
		name string
		sort string
		ids  string
		vals string // sort values of the hits, fmt'ed
	}{
		{"date then keyword", `[{"@timestamp":"asc"},{"test_uuid":"asc"}]`, "u01,u02,u03,u04,u05",
			"[[1704067200000 u01] [1704153600000 u02] [1704153600000 u03] [1704276000000 u04] [1718323200000 u05]]"},
		{"descending", `[{"@timestamp":{"order":"desc"}},{"test_uuid":"desc"}]`, "u05,u04,u03,u02,u01",
			"[[1718323200000 u05] [1704276000000 u04] [1704153600000 u03] [1704153600000 u02] [1704067200000 u01]]"},
		{"missing numbers last ascending", `["n"]`, "u01,u02,u03,u05,u04",
			"[[1] [2] [3] [5] [9223372036854775807]]"},
		{"missing numbers last descending", `[{"n":"desc"}]`, "u05,u03,u02,u01,u04",
			"[[5] [3] [2] [1] [-9223372036854775808]]"},
		{"missing first", `[{"n":{"order":"asc","missing":"_first"}}]`, "u04,u01,u02,u03,u05",
			"[[-9223372036854775808] [1] [2] [3] [5]]"},
		{"missing replaced by a value", `[{"n":{"order":"asc","missing":4}}]`, "u01,u02,u03,u04,u05",
			"[[1] [2] [3] [4] [5]]"},
		{"doubles with missing", `["value","test_uuid"]`, "u03,u01,u02,u04,u05",
			"[[0.5 u03] [1.5 u01] [2.5 u02] [Infinity u04] [Infinity u05]]"},
		{"keywords in byte order", `["metadata.labels.backend","test_uuid"]`, "u05,u01,u03,u04,u02",
			"[[CUDA u05] [cuda u01] [cuda u03] [cuda u04] [rocm u02]]"},
		{"date sort values in a format", `[{"@timestamp":{"order":"asc","format":"strict_date_optional_time"}},"test_uuid"]`, "u01,u02,u03,u04,u05",
			"[[2024-01-01T00:00:00.000Z u01] [2024-01-02T00:00:00.000Z u02] [2024-01-02T00:00:00.000Z u03] [2024-01-03T10:00:00.000Z u04] [2024-06-14T00:00:00.000Z u05]]"},
		{"_id", `[{"_id":"desc"}]`, "u05,u04,u03,u02,u01", "[[u05] [u04] [u03] [u02] [u01]]"},
		{"multi-valued ascending takes the min", `["tags","test_uuid"]`, "u01,u04,u02,u03,u05",
			"[[a u01] [c u04] [<nil> u02] [<nil> u03] [<nil> u05]]"},
		{"multi-valued descending takes the max", `[{"tags":"desc"},"test_uuid"]`, "u04,u01,u02,u03,u05",
			"[[c u04] [b u01] [<nil> u02] [<nil> u03] [<nil> u05]]"},
		{"unmapped_type", `[{"nope":{"unmapped_type":"long"}},"test_uuid"]`, "u01,u02,u03,u04,u05",
			"[[9223372036854775807 u01] [9223372036854775807 u02] [9223372036854775807 u03] [9223372036854775807 u04] [9223372036854775807 u05]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, ts, "POST", "/runs/_search", `{"sort":`+tc.sort+`}`).mustStatus(t, http.StatusOK)
			if got := strings.Join(hitIDs(t, r), ","); got != tc.ids {
				t.Errorf("order [%s], want [%s]", got, tc.ids)
			}
			var vals []any
			m := r.decode(t)
			for _, h := range m["hits"].(map[string]any)["hits"].([]any) {
				hm := h.(map[string]any)
				if hm["_score"] != nil {
					t.Errorf("_score = %v with a field sort, want null", hm["_score"])
				}
				vals = append(vals, hm["sort"])
			}
			if got := fmt.Sprint(vals); got != tc.vals {
				t.Errorf("sort values %s, want %s", got, tc.vals)
			}
			if m["hits"].(map[string]any)["max_score"] != nil {
				t.Errorf("max_score not null with a field sort")
			}
		})
	}
	t.Run("sort parameter", func(t *testing.T) {
		r := call(t, ts, "GET", "/runs/_search?sort=n:desc,test_uuid&size=2", "")
		if got := strings.Join(hitIDs(t, r), ","); got != "u05,u03" {
			t.Errorf("got %s", got)
		}
	})
}

func TestSearchAfterPaging(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	call(t, ts, "PUT", "/p", `{"mappings":{"properties":{"@timestamp":{"type":"date"},"test_uuid":{"type":"keyword"}}}}`).mustStatus(t, 200)
	const n = 137
	var lines, want []string
	for i := range n {
		id := fmt.Sprintf("id-%03d", (i*53)%n) // ids not in time order
		ts := fmt.Sprintf("2024-01-01T00:%02d:00Z", i/10)
		lines = append(lines, `{"index":{"_id":"`+id+`"}}`, `{"@timestamp":"`+ts+`","test_uuid":"`+id+`"}`)
		want = append(want, ts+" "+id)
	}
	slices.Sort(want)
	bulk(t, ts, "/p/_bulk?refresh=true", ndjson(lines...))

	page := func(sortSpec string, after []any) ([]string, []any) {
		body := map[string]any{"size": 7, "sort": json.RawMessage(sortSpec)}
		if after != nil {
			body["search_after"] = after
		}
		b, _ := json.Marshal(body)
		m := call(t, ts, "POST", "/p/_search", string(b)).mustStatus(t, http.StatusOK).decode(t)
		var got []string
		var last []any
		for _, h := range m["hits"].(map[string]any)["hits"].([]any) {
			hm := h.(map[string]any)
			src := hm["_source"].(map[string]any)
			got = append(got, src["@timestamp"].(string)+" "+src["test_uuid"].(string))
			last = hm["sort"].([]any)
		}
		return got, last
	}

	t.Run("with a unique tie-breaker every document comes once, in order", func(t *testing.T) {
		var all []string
		var after []any
		for {
			got, last := page(`[{"@timestamp":"asc"},{"test_uuid":"asc"}]`, after)
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
			after = last
		}
		if !slices.Equal(all, want) {
			t.Errorf("paged %d documents, want %d in order", len(all), len(want))
		}
	})
	t.Run("without one, documents tied with the cursor are skipped", func(t *testing.T) {
		var all []string
		var after []any
		for range 100 {
			got, last := page(`[{"@timestamp":"asc"}]`, after)
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
			after = last
		}
		if len(all) >= n {
			t.Errorf("paged all %d documents; OpenSearch skips those equal to search_after", len(all))
		}
	})
	t.Run("date sort values can be given back as strings", func(t *testing.T) {
		got, _ := page(`[{"@timestamp":"asc"},{"test_uuid":"asc"}]`, []any{"2024-01-01T00:13:00Z", "id-000"})
		if len(got) == 0 || !strings.HasPrefix(got[0], "2024-01-01T00:13:00Z") {
			t.Errorf("first hit after a date string: %v", got)
		}
	})
}

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	call(t, ts, "PUT", "/small", `{"settings":{"index.max_result_window":5}}`).mustStatus(t, 200)
	tests := []struct {
		name, path, body string
		status           int
		typ              string // error type
		rootCause        string // first root cause type
	}{
		{"size over the window", "/runs/_search", `{"size":10001}`, 400, "search_phase_execution_exception", "illegal_argument_exception"},
		{"per-index window", "/small/_search", `{"size":6}`, 400, "search_phase_execution_exception", "illegal_argument_exception"},
		{"from and search_after", "/runs/_search", `{"from":1,"sort":["n"],"search_after":[1]}`, 500, "search_phase_execution_exception", "search_exception"},
		{"search_after value of the wrong type", "/runs/_search", `{"sort":["n"],"search_after":["abc"]}`, 400, "search_phase_execution_exception", "illegal_argument_exception"},
		{"sort on a text field", "/runs/_search", `{"sort":["note"]}`, 400, "search_phase_execution_exception", "illegal_argument_exception"},
		{"term with a decimal on long", "/runs/_search", `{"query":{"term":{"n":2.5}}}`, 400, "search_phase_execution_exception", "query_shard_exception"},
		{"bad date", "/runs/_search", `{"query":{"range":{"@timestamp":{"gte":"last tuesday"}}}}`, 400, "search_phase_execution_exception", "query_shard_exception"},
		{"query not an object", "/runs/_search", `{"query":[]}`, 400, "parsing_exception", "parsing_exception"},
		{"two queries in one clause", "/runs/_search", `{"query":{"term":{"n":1},"match_all":{}}}`, 400, "parsing_exception", "parsing_exception"},
		{"empty clause", "/runs/_search", `{"query":{"bool":{"must":{}}}}`, 400, "illegal_argument_exception", "illegal_argument_exception"},
		{"aggregations are not modelled", "/runs/_search", `{"aggs":{"x":{"terms":{"field":"n"}}}}`, 501, "opensearchtest_not_implemented", "opensearchtest_not_implemented"},
		{"missing index", "/runs,nope/_search", `{}`, 404, "index_not_found_exception", "index_not_found_exception"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, ts, "POST", tc.path, tc.body).mustStatus(t, tc.status)
			_, typ, _ := r.errorOf(t)
			root := r.decode(t)["error"].(map[string]any)["root_cause"].([]any)[0].(map[string]any)["type"]
			if typ != tc.typ || root != tc.rootCause {
				t.Errorf("got %s (root cause %v), want %s (%s): %s", typ, root, tc.typ, tc.rootCause, r.body)
			}
		})
	}
}

func TestMultiIndexSearch(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	call(t, ts, "PUT", "/small", `{"settings":{"index.max_result_window":5},"mappings":{"properties":{"test_uuid":{"type":"keyword"}}}}`).mustStatus(t, 200)
	bulk(t, ts, "/runs-b/_bulk?refresh=true", ndjson(`{"index":{"_id":"b1"}}`, `{"test_uuid":"b1","@timestamp":"2023-01-01T00:00:00Z"}`))

	count := func(path string) int {
		return total(t, call(t, ts, "POST", path, `{"size":0}`).mustStatus(t, http.StatusOK))
	}
	if got := count("/runs,runs-b/_search"); got != 6 {
		t.Errorf("comma list: %d", got)
	}
	if got := count("/runs*/_search"); got != 6 {
		t.Errorf("wildcard: %d", got)
	}
	if got := count("/runs*,-runs-b/_search"); got != 5 {
		t.Errorf("exclusion: %d", got)
	}
	if got := count("/runs,nope/_search?ignore_unavailable=true"); got != 5 {
		t.Errorf("ignore_unavailable: %d", got)
	}
	m := call(t, ts, "POST", "/nothing*/_search", `{}`).mustStatus(t, http.StatusOK).decode(t)
	if m["_shards"].(map[string]any)["total"] != json.Number("0") {
		t.Errorf("wildcard matching nothing: %v", m)
	}

	// A shard failure on one index leaves a partial 200 answer.
	r := call(t, ts, "POST", "/runs,small/_search", `{"size":6,"sort":["test_uuid"]}`).mustStatus(t, http.StatusOK)
	shards := r.decode(t)["_shards"].(map[string]any)
	if shards["failed"] != json.Number("1") || shards["successful"] != json.Number("1") {
		t.Errorf("_shards = %v", shards)
	}
	if len(hitIDs(t, r)) != 5 {
		t.Errorf("hits from the healthy index: %v", hitIDs(t, r))
	}
	// Hits across indices sort together.
	r = call(t, ts, "POST", "/runs*/_search", `{"sort":["@timestamp"],"size":2}`)
	if got := strings.Join(hitIDs(t, r), ","); got != "b1,u01" {
		t.Errorf("merged sort: %s", got)
	}
}

func TestFromSizeAndTotals(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	ids := func(body string) string {
		return strings.Join(hitIDs(t, call(t, ts, "POST", "/runs/_search", body)), ",")
	}
	if got := ids(`{"from":1,"size":2,"sort":["test_uuid"]}`); got != "u02,u03" {
		t.Errorf("from/size: %s", got)
	}
	if got := ids(`{"sort":["test_uuid"]}`); got != "u01,u02,u03,u04,u05" {
		t.Errorf("default size: %s", got)
	}
	if got := ids(`{"size":0}`); got != "" {
		t.Errorf("size 0: %s", got)
	}
	hits := func(path, body string) map[string]any {
		return call(t, ts, "POST", path, body).mustStatus(t, 200).decode(t)["hits"].(map[string]any)
	}
	if tot := hits("/runs/_search", `{"track_total_hits":3}`)["total"]; fmt.Sprint(tot) != "map[relation:gte value:3]" {
		t.Errorf("track_total_hits 3: %v", tot)
	}
	if tot := hits("/runs/_search", `{"track_total_hits":true}`)["total"]; fmt.Sprint(tot) != "map[relation:eq value:5]" {
		t.Errorf("track_total_hits true: %v", tot)
	}
	if _, ok := hits("/runs/_search", `{"track_total_hits":false}`)["total"]; ok {
		t.Errorf("track_total_hits false still reports a total")
	}
	if tot := hits("/runs/_search?rest_total_hits_as_int=true", `{}`)["total"]; tot != json.Number("5") {
		t.Errorf("rest_total_hits_as_int: %v", tot)
	}
	// Without a field sort, hits carry scores and come best first.
	h := hits("/runs/_search", `{"query":{"bool":{"should":[{"term":{"metadata.labels.backend":"cuda"}},{"term":{"metadata.labels.model":"mistral"}}]}}}`)
	first := h["hits"].([]any)[0].(map[string]any)
	if first["_id"] != "u03" || h["max_score"] == nil || first["_score"] != h["max_score"] {
		t.Errorf("scored search: first %v, max_score %v", first, h["max_score"])
	}
}

func TestSourceFiltering(t *testing.T) {
	t.Parallel()
	ts := startRuns(t)
	source := func(body string) string {
		m := call(t, ts, "POST", "/runs/_search", body).mustStatus(t, 200).decode(t)
		h := m["hits"].(map[string]any)["hits"].([]any)[0].(map[string]any)
		b, _ := json.Marshal(h["_source"])
		return string(b)
	}
	q := `"query":{"ids":{"values":["u01"]}}`
	tests := []struct{ name, src, want string }{
		{"disabled", `false`, `null`},
		{"includes", `["test_uuid","metadata.labels.backend"]`, `{"metadata":{"labels":{"backend":"cuda"}},"test_uuid":"u01"}`},
		{"wildcard", `"metadata.*"`, `{"metadata":{"labels":{"backend":"cuda","model":"llama"}}}`},
		{"excludes", `{"excludes":["metadata","note","tags","value","n"]}`, `{"@timestamp":"2024-01-01T00:00:00Z","test_uuid":"u01"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := source(`{` + q + `,"_source":` + tc.src + `}`); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, format string
		want       int64
		ok         bool
	}{
		{"2024-01-01T00:00:00Z", defaultDateFormat, 1704067200000, true},
		{"2024-01-01T02:00:00+02:00", defaultDateFormat, 1704067200000, true},
		{"2024-01-01T00:00:00.123456789Z", defaultDateFormat, 1704067200123, true},
		{"2024-01-01", defaultDateFormat, 1704067200000, true},
		{"2024", defaultDateFormat, 1704067200000, true},
		{"1704067200000", defaultDateFormat, 1704067200000, true},
		{"2024-02-30", defaultDateFormat, 0, false},
		{"01/02/2024", defaultDateFormat, 0, false},
		{"2024/01/01 00:00:00 +0000", "yyyy/MM/dd HH:mm:ss Z", 1704067200000, true},
		{"1704067200", "epoch_second", 1704067200000, true},
		{"2024-01-01T00:00:00Z", "strict_date_time_no_millis", 1704067200000, true},
		{"2024-01-01", "strict_date_time", 0, false},
	}
	for _, tc := range tests {
		got, err := parseDate(tc.in, tc.format)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseDate(%q, %q) = %d, %v; want %d, ok=%v", tc.in, tc.format, got, err, tc.want, tc.ok)
		}
	}
}

func TestFlatObject(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{AutoRefresh: true})
	call(t, ts, "PUT", "/kpis", `{"mappings":{"properties":{"labels":{"type":"flat_object"},"value":{"type":"double"}}}}`).mustStatus(t, 200)
	bulk(t, ts, "/kpis/_bulk", ndjson(
		`{"index":{"_id":"a"}}`, `{"labels":{"backend":"cuda","gpu":{"model":"h100"}},"value":1}`,
		`{"index":{"_id":"b"}}`, `{"labels":{"backend":"rocm"},"value":2}`,
	))
	tests := []struct{ query, want string }{
		{`{"term":{"labels.backend":"cuda"}}`, "a"},
		{`{"term":{"labels.gpu.model":"h100"}}`, "a"},
		{`{"term":{"labels":"rocm"}}`, "b"},
		{`{"exists":{"field":"labels.gpu"}}`, "a"},
	}
	for _, tc := range tests {
		r := call(t, ts, "POST", "/kpis/_search", `{"query":`+tc.query+`,"sort":["labels.backend"]}`)
		if got := strings.Join(hitIDs(t, r), ","); got != tc.want {
			t.Errorf("%s: got [%s], want [%s]", tc.query, got, tc.want)
		}
	}
}
