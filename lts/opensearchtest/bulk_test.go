package opensearchtest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBulkFraming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		status int
		typ    string
		reason string // exact reason; "" for success
		items  int    // items in a successful response
	}{
		{
			name: "final newline missing", body: `{"index":{"_index":"f"}}` + "\n" + `{"a":1}`,
			status: 400, typ: "illegal_argument_exception", reason: `The bulk request must be terminated by a newline [\n]`,
		},
		{
			name: "delete without newline", body: `{"delete":{"_index":"f","_id":"1"}}`,
			status: 400, typ: "illegal_argument_exception", reason: `The bulk request must be terminated by a newline [\n]`,
		},
		{name: "terminated", body: ndjson(`{"index":{"_index":"f"}}`, `{"a":1}`), status: 200, items: 1},
		{name: "blank lines are skipped", body: "\n" + ndjson(`{"index":{"_index":"f"}}`, `{"a":1}`, ``, `{"delete":{"_index":"f","_id":"x"}}`), status: 200, items: 2},
		{name: "CRLF line ends", body: "{\"index\":{\"_index\":\"f\",\"_id\":\"crlf\"}}\r\n{\"a\":1}\r\n", status: 200, items: 1},
		{name: "delete has no source line", body: ndjson(`{"delete":{"_index":"f","_id":"1"}}`, `{"create":{"_index":"f"}}`, `{"a":2}`), status: 200, items: 2},
		{
			name: "source line missing at the end drops the action", body: ndjson(`{"index":{"_index":"f"}}`),
			status: 400, typ: "action_request_validation_exception", reason: "Validation Failed: 1: no requests added;",
		},
		{
			name: "malformed action json", body: ndjson(`{"index":{"_index":}}`, `{}`),
			status: 400, typ: "json_parse_exception",
		},
		{
			name: "action is not an object", body: ndjson(`"index"`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Malformed action/metadata line [1], expected START_OBJECT but found [VALUE_STRING]",
		},
		{
			name: "empty action object", body: ndjson(`{}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Malformed action/metadata line [1], expected FIELD_NAME but found [END_OBJECT]",
		},
		{
			name: "unknown action on line 3", body: ndjson(`{"index":{"_index":"f"}}`, `{}`, `{"insert":{"_index":"f"}}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Malformed action/metadata line [3], expected one of [create, delete, index, update] but found [insert]",
		},
		{
			name: "metadata is not an object", body: ndjson(`{"index":"f"}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]",
		},
		{
			name: "types are gone in 2.x", body: ndjson(`{"index":{"_index":"f","_type":"_doc"}}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Action/metadata line [1] contains an unknown parameter [_type]",
		},
		{
			name: "array metadata value", body: ndjson(`{"index":{"_index":["f"]}}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "Malformed action/metadata line [1], expected a simple value for field [_index] but found [START_ARRAY]",
		},
		{
			name: "bad op_type", body: ndjson(`{"index":{"_index":"f","op_type":"upsert"}}`, `{}`),
			status: 400, typ: "illegal_argument_exception", reason: "opType must be 'create' or 'index', found: [upsert]",
		},
		{
			name: "internal versions are not for concurrency control", body: ndjson(`{"index":{"_index":"f","_id":"1","version":3}}`, `{}`),
			status: 400, typ: "action_request_validation_exception",
			reason: "Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;",
		},
		{
			name: "every validation problem is listed", body: ndjson(`{"index":{}}`, `{}`, `{"delete":{"_index":"f"}}`, `{"index":{"_index":"f"}}`, ` `),
			status: 400, typ: "action_request_validation_exception", reason: "Validation Failed: 1: index is missing;2: id is missing;3: source is missing;",
		},
		{
			name: "empty body", body: "",
			status: 400, typ: "parse_exception", reason: "request body is required",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := Start(t, Config{})
			r := call(t, ts, "POST", "/_bulk", tc.body).mustStatus(t, tc.status)
			if tc.status != http.StatusOK {
				_, typ, reason := r.errorOf(t)
				if typ != tc.typ || (tc.reason != "" && reason != tc.reason) {
					t.Errorf("got %s %q, want %s %q", typ, reason, tc.typ, tc.reason)
				}
				if ts.DocCount("f") != 0 {
					t.Errorf("a rejected bulk request stored documents")
				}
				return
			}
			items := r.decode(t)["items"].([]any)
			if len(items) != tc.items {
				t.Errorf("%d items, want %d: %s", len(items), tc.items, r.body)
			}
		})
	}
}

func TestBulkCRLFSourceIsStoredWithoutCR(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	call(t, ts, "POST", "/_bulk", "{\"index\":{\"_index\":\"f\",\"_id\":\"1\"}}\r\n{\"a\":1}\r\n").mustStatus(t, 200)
	if src, _ := ts.Doc("f", "1"); string(src) != `{"a":1}` {
		t.Errorf("source = %q", src)
	}
}

// bulkItem is one decoded item of a bulk response.
type bulkItem struct {
	Index   string `json:"_index"`
	ID      string `json:"_id"`
	Version int64  `json:"_version"`
	Result  string `json:"result"`
	SeqNo   *int64 `json:"_seq_no"`
	Status  int    `json:"status"`
	Error   *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
	ForcedRefresh bool `json:"forced_refresh"`
}

type bulkResponse struct {
	Took   int64                  `json:"took"`
	Errors bool                   `json:"errors"`
	Items  []map[string]*bulkItem `json:"items"`
}

func bulk(t *testing.T, ts *TestServer, path, body string) bulkResponse {
	t.Helper()
	r := call(t, ts, "POST", path, body).mustStatus(t, http.StatusOK)
	var br bulkResponse
	if err := json.Unmarshal(r.body, &br); err != nil {
		t.Fatal(err)
	}
	return br
}

// item returns the single action's result of items[i].
func (br bulkResponse) item(t *testing.T, i int) (string, *bulkItem) {
	t.Helper()
	for action, it := range br.Items[i] {
		return action, it
	}
	t.Fatalf("item %d is empty", i)
	return "", nil
}

func TestBulkItemResults(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	br := bulk(t, ts, "/_bulk", ndjson(
		`{"index":{"_index":"lts","_id":"a"}}`, `{"n":1}`,
		`{"index":{"_index":"lts","_id":"a"}}`, `{"n":2}`,
		`{"create":{"_index":"lts","_id":"a"}}`, `{"n":3}`,
		`{"create":{"_index":"lts","_id":"b"}}`, `{"n":4}`,
		`{"delete":{"_index":"lts","_id":"b"}}`,
		`{"delete":{"_index":"lts","_id":"never"}}`,
		`{"index":{"_index":"lts","_id":"c","op_type":"create"}}`, `{"n":5}`,
		`{"index":{"_index":"lts","_id":"c","op_type":"create"}}`, `{"n":6}`,
	))
	if !br.Errors {
		t.Errorf("errors = false with failed items")
	}
	want := []struct {
		action, result string
		status         int
		version        int64
		errType        string
	}{
		{"index", "created", 201, 1, ""},
		{"index", "updated", 200, 2, ""},
		{"create", "", 409, 0, "version_conflict_engine_exception"},
		{"create", "created", 201, 1, ""},
		{"delete", "deleted", 200, 2, ""},
		{"delete", "not_found", 404, 1, ""},
		{"index", "created", 201, 1, ""},
		{"index", "", 409, 0, "version_conflict_engine_exception"},
	}
	var lastSeq int64 = -1
	for i, w := range want {
		action, it := br.item(t, i)
		if action != w.action || it.Result != w.result || it.Status != w.status || it.Version != w.version || it.Index != "lts" {
			t.Errorf("item %d = %s %+v, want %+v", i, action, it, w)
		}
		if w.errType != "" {
			if it.Error == nil || it.Error.Type != w.errType {
				t.Errorf("item %d error = %+v, want %s", i, it.Error, w.errType)
			}
			continue
		}
		if it.SeqNo == nil || *it.SeqNo <= lastSeq {
			t.Errorf("item %d _seq_no = %v, want increasing", i, it.SeqNo)
		} else {
			lastSeq = *it.SeqNo
		}
	}
	if _, it := br.item(t, 2); it.Error.Reason != "[a]: version conflict, document already exists (current version [2])" {
		t.Errorf("conflict reason = %q", it.Error.Reason)
	}
	if got := ts.DocIDs("lts"); strings.Join(got, ",") != "a,c" {
		t.Errorf("documents = %v", got)
	}
	if src, _ := ts.Doc("lts", "a"); string(src) != `{"n":2}` {
		t.Errorf("a = %s", src)
	}

	// A delete whose document is missing is not an error.
	br = bulk(t, ts, "/_bulk", ndjson(`{"delete":{"_index":"lts","_id":"zzz"}}`))
	if br.Errors {
		t.Errorf("not_found delete set errors")
	}
}

func TestBulkDefaultIndexAndGeneratedIDs(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{Seed: 7})
	br := bulk(t, ts, "/path-index/_bulk", ndjson(
		`{"index":{}}`, `{"a":1}`,
		`{"index":{"_index":"explicit"}}`, `{"a":2}`,
	))
	_, first := br.item(t, 0)
	_, second := br.item(t, 1)
	if first.Index != "path-index" || second.Index != "explicit" {
		t.Errorf("indices = %s, %s", first.Index, second.Index)
	}
	if len(first.ID) != 20 || first.ID == second.ID {
		t.Errorf("generated ids %q, %q; want distinct 20-character ids", first.ID, second.ID)
	}
	if ts.DocCount("path-index") != 1 || ts.DocCount("explicit") != 1 {
		t.Errorf("indices were not auto-created: %v", ts.Indices())
	}
}

func TestBulkItemErrors(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	call(t, ts, "PUT", "/typed", `{"mappings":{"dynamic":"strict","properties":{"n":{"type":"long"},"ts":{"type":"date"},"ok":{"type":"boolean"}}}}`).mustStatus(t, 200)
	br := bulk(t, ts, "/_bulk", ndjson(
		`{"index":{"_index":"typed","_id":"1"}}`, `{"n":"12"}`,
		`{"index":{"_index":"typed","_id":"2"}}`, `{"n":"twelve"}`,
		`{"index":{"_index":"typed","_id":"3"}}`, `{"ts":"yesterday"}`,
		`{"index":{"_index":"typed","_id":"4"}}`, `{"extra":1}`,
		`{"index":{"_index":"typed","_id":"5"}}`, `{"n": }`,
		`{"index":{"_index":"typed","_id":"6"}}`, `[1,2]`,
		`{"index":{"_index":"Typed","_id":"7"}}`, `{}`,
		`{"index":{"_index":"typed","_id":"8"}}`, `{"ok":"yes"}`,
		`{"index":{"_index":"typed","_id":"9"}}`, `{"n":1.9,"ts":1700000000000,"ok":"false"}`,
		`{"index":{"_index":"typed","_id":"10"}}`, `{"_id":"10"}`,
	))
	want := []struct {
		status int
		typ    string
		reason string
	}{
		{201, "", ""},
		{400, "mapper_parsing_exception", "failed to parse field [n] of type [long] in document with id '2'. Preview of field's value: 'twelve'"},
		{400, "mapper_parsing_exception", "failed to parse field [ts] of type [date] in document with id '3'. Preview of field's value: 'yesterday'"},
		{400, "strict_dynamic_mapping_exception", "mapping set to strict, dynamic introduction of [extra] within [_doc] is not allowed"},
		{400, "mapper_parsing_exception", "failed to parse"},
		{400, "mapper_parsing_exception", "failed to parse"},
		{400, "invalid_index_name_exception", "Invalid index name [Typed], must be lowercase"},
		{400, "mapper_parsing_exception", "failed to parse field [ok] of type [boolean] in document with id '8'. Preview of field's value: 'yes'"},
		{201, "", ""},
		{400, "mapper_parsing_exception", "Field [_id] is a metadata field and cannot be added inside a document. Use the index API request parameters."},
	}
	for i, w := range want {
		_, it := br.item(t, i)
		if it.Status != w.status {
			t.Errorf("item %d status %d, want %d (%+v)", i, it.Status, w.status, it.Error)
			continue
		}
		if w.typ != "" && (it.Error == nil || it.Error.Type != w.typ || it.Error.Reason != w.reason) {
			t.Errorf("item %d error = %+v, want %s %q", i, it.Error, w.typ, w.reason)
		}
	}
	if got := strings.Join(ts.DocIDs("typed"), ","); got != "1,9" {
		t.Errorf("stored = %s, want only the valid documents", got)
	}
	if _, ok := ts.Mapping("typed")["extra"]; ok {
		t.Errorf("a rejected document added a field to the mapping")
	}
}

func TestBulkUpdate(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	bulk(t, ts, "/_bulk", ndjson(`{"index":{"_index":"u","_id":"1"}}`, `{"a":1,"o":{"x":1}}`))
	br := bulk(t, ts, "/_bulk", ndjson(
		`{"update":{"_index":"u","_id":"1"}}`, `{"doc":{"b":2,"o":{"y":2}}}`,
		`{"update":{"_index":"u","_id":"1"}}`, `{"doc":{"b":2}}`,
		`{"update":{"_index":"u","_id":"2"}}`, `{"doc":{"c":3}}`,
		`{"update":{"_index":"u","_id":"3"}}`, `{"doc":{"c":3},"doc_as_upsert":true}`,
	))
	results := []string{"updated", "noop", "", "created"}
	for i, want := range results {
		_, it := br.item(t, i)
		if it.Result != want {
			t.Errorf("item %d result %q, want %q (%+v)", i, it.Result, want, it.Error)
		}
	}
	if _, it := br.item(t, 2); it.Status != 404 || it.Error.Type != "document_missing_exception" || it.Error.Reason != "[2]: document missing" {
		t.Errorf("missing update = %+v", it)
	}
	if src, _ := ts.Doc("u", "1"); string(src) != `{"a":1,"o":{"x":1,"y":2},"b":2}` {
		t.Errorf("merged = %s", src)
	}
}

func TestRefreshVisibility(t *testing.T) {
	t.Parallel()
	body := ndjson(`{"index":{"_index":"r","_id":"1"}}`, `{"a":1}`)
	search := func(t *testing.T, ts *TestServer) int {
		return total(t, call(t, ts, "POST", "/r/_search", `{}`).mustStatus(t, 200))
	}

	t.Run("needs a refresh", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		bulk(t, ts, "/_bulk", body)
		if ts.DocCount("r") != 1 || ts.SearchableCount("r") != 0 || search(t, ts) != 0 {
			t.Fatalf("document searchable before a refresh")
		}
		// A get is real-time.
		call(t, ts, "GET", "/r/_doc/1", "").mustStatus(t, 200)
		call(t, ts, "POST", "/r/_refresh", "").mustStatus(t, 200)
		if search(t, ts) != 1 {
			t.Fatalf("document not searchable after _refresh")
		}
		// A delete is not visible to search until the next refresh either.
		bulk(t, ts, "/_bulk", ndjson(`{"delete":{"_index":"r","_id":"1"}}`))
		if search(t, ts) != 1 || ts.DocCount("r") != 0 {
			t.Fatalf("delete visible before refresh")
		}
		call(t, ts, "POST", "/_refresh", "").mustStatus(t, 200)
		if search(t, ts) != 0 {
			t.Fatalf("deleted document still found after refresh")
		}
	})
	t.Run("refresh=true", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		br := bulk(t, ts, "/_bulk?refresh=true", body)
		if _, it := br.item(t, 0); !it.ForcedRefresh {
			t.Errorf("forced_refresh missing")
		}
		if search(t, ts) != 1 {
			t.Fatal("not searchable")
		}
	})
	t.Run("refresh=wait_for", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{})
		br := bulk(t, ts, "/_bulk?refresh=wait_for", body)
		if _, it := br.item(t, 0); it.ForcedRefresh {
			t.Errorf("wait_for is not a forced refresh")
		}
		if search(t, ts) != 1 {
			t.Fatal("not searchable")
		}
	})
	t.Run("AutoRefresh", func(t *testing.T) {
		t.Parallel()
		ts := Start(t, Config{AutoRefresh: true})
		bulk(t, ts, "/_bulk", body)
		if search(t, ts) != 1 {
			t.Fatal("not searchable")
		}
	})
}

func TestDynamicMapping(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	bulk(t, ts, "/_bulk", ndjson(`{"index":{"_index":"d","_id":"1"}}`,
		`{"s":"Hello","n":3,"f":1.5,"b":true,"t":"2024-03-01T10:00:00Z","o":{"k":"v"},"a.b":"dotted","arr":[1,2]}`))
	want := map[string]string{
		"s": "text", "s.keyword": "keyword", "n": "long", "f": "float", "b": "boolean", "t": "date",
		"o": "object", "o.k": "text", "o.k.keyword": "keyword", "a": "object", "a.b": "text", "a.b.keyword": "keyword",
		"arr": "long",
	}
	got := ts.Mapping("d")
	for p, typ := range want {
		if got[p] != typ {
			t.Errorf("%s mapped as %q, want %q", p, got[p], typ)
		}
	}
	// A later value of another JSON type is coerced into the mapped type.
	br := bulk(t, ts, "/_bulk", ndjson(`{"index":{"_index":"d","_id":"2"}}`, `{"n":"not a number"}`))
	if _, it := br.item(t, 0); it.Status != 400 {
		t.Errorf("string into a dynamically mapped long: %+v", it)
	}

	call(t, ts, "PUT", "/loose", `{"mappings":{"dynamic":false,"properties":{"k":{"type":"keyword"}}}}`).mustStatus(t, 200)
	bulk(t, ts, "/loose/_bulk?refresh=true", ndjson(`{"index":{"_id":"1"}}`, `{"k":"x","free":"y"}`))
	if _, ok := ts.Mapping("loose")["free"]; ok {
		t.Errorf("dynamic:false mapped a new field")
	}
	if n := total(t, call(t, ts, "POST", "/loose/_search", `{"query":{"exists":{"field":"free"}}}`)); n != 0 {
		t.Errorf("unmapped field searchable")
	}
	if src, _ := ts.Doc("loose", "1"); !strings.Contains(string(src), `"free":"y"`) {
		t.Errorf("_source lost the unmapped field: %s", src)
	}
}

func TestSingleDocumentAPIs(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	m := call(t, ts, "PUT", "/docs/_doc/1", `{"a":1}`).mustStatus(t, http.StatusCreated).decode(t)
	if m["result"] != "created" || m["_version"] != json.Number("1") {
		t.Errorf("PUT = %v", m)
	}
	call(t, ts, "PUT", "/docs/_doc/1", `{"a":2}`).mustStatus(t, http.StatusOK)
	_, typ, _ := call(t, ts, "PUT", "/docs/_create/1", `{"a":3}`).mustStatus(t, http.StatusConflict).errorOf(t)
	if typ != "version_conflict_engine_exception" {
		t.Errorf("create over existing: %s", typ)
	}
	g := call(t, ts, "GET", "/docs/_doc/1", "").mustStatus(t, http.StatusOK).decode(t)
	if g["found"] != true || g["_version"] != json.Number("2") || g["_source"].(map[string]any)["a"] != json.Number("2") {
		t.Errorf("GET = %v", g)
	}
	call(t, ts, "HEAD", "/docs/_doc/1", "").mustStatus(t, http.StatusOK)
	call(t, ts, "DELETE", "/docs/_doc/1", "").mustStatus(t, http.StatusOK)
	g = call(t, ts, "GET", "/docs/_doc/1", "").mustStatus(t, http.StatusNotFound).decode(t)
	if g["found"] != false {
		t.Errorf("GET after delete = %v", g)
	}
	call(t, ts, "GET", "/nope/_doc/1", "").mustStatus(t, http.StatusNotFound)
	m = call(t, ts, "POST", "/docs/_doc?refresh=true", `{"b":1}`).mustStatus(t, http.StatusCreated).decode(t)
	if len(m["_id"].(string)) != 20 || m["forced_refresh"] != true {
		t.Errorf("POST _doc = %v", m)
	}
}

func FuzzParseBulk(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "bulk", "*.ndjson"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		actions, err := parseBulk(body, "default")
		if err != nil {
			if err.status != http.StatusBadRequest {
				t.Fatalf("status %d for a malformed body", err.status)
			}
			return
		}
		for _, a := range actions {
			if a.action != "delete" && a.source == nil {
				t.Fatalf("%s action without a source line", a.action)
			}
		}
		// Validation and execution must not panic either.
		if validateBulk(actions) == nil {
			s := New(Config{})
			s.mu.Lock()
			for _, a := range actions {
				s.write(a)
			}
			s.mu.Unlock()
		}
	})
}

func TestBulkConcurrencyControl(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	bulk(t, ts, "/_bulk", ndjson(`{"index":{"_index":"cc","_id":"1"}}`, `{"a":1}`))
	br := bulk(t, ts, "/_bulk", ndjson(
		`{"index":{"_index":"cc","_id":"1","if_seq_no":0,"if_primary_term":1}}`, `{"a":2}`,
		`{"index":{"_index":"cc","_id":"1","if_seq_no":0,"if_primary_term":1}}`, `{"a":3}`,
		`{"index":{"_index":"cc","_id":"2","version":5,"version_type":"external"}}`, `{"a":1}`,
		`{"index":{"_index":"cc","_id":"2","version":4,"version_type":"external"}}`, `{"a":1}`,
	))
	want := []struct {
		status  int
		version int64
		reason  string
	}{
		{200, 2, ""},
		{409, 0, "[1]: version conflict, required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]"},
		{201, 5, ""},
		{409, 0, "[2]: version conflict, current version [5] is higher or equal to the one provided [4]"},
	}
	for i, w := range want {
		_, it := br.item(t, i)
		if it.Status != w.status || (w.reason == "" && it.Version != w.version) || (w.reason != "" && (it.Error == nil || it.Error.Reason != w.reason)) {
			t.Errorf("item %d = %+v %+v, want %+v", i, it, it.Error, w)
		}
	}
}
