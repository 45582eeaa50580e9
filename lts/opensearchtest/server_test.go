package opensearchtest

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func TestInfo(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	m := call(t, ts, "GET", "/", "").mustStatus(t, http.StatusOK).decode(t)
	v := m["version"].(map[string]any)
	if v["distribution"] != "opensearch" || !strings.HasPrefix(v["number"].(string), "2.") {
		t.Errorf("version = %v, want an OpenSearch 2.x", v)
	}
	if m["tagline"] != "The OpenSearch Project: https://opensearch.org/" {
		t.Errorf("tagline = %v", m["tagline"])
	}
	if r := call(t, ts, "HEAD", "/", ""); r.status != http.StatusOK || len(r.body) != 0 {
		t.Errorf("HEAD / = %d %q, want 200 and no body", r.status, r.body)
	}
}

func TestBasicAuth(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{Username: "admin", Password: "s3cret"})
	tests := []struct {
		name       string
		user, pass string
		want       int
	}{
		{"no credentials", "", "", http.StatusUnauthorized},
		{"wrong password", "admin", "nope", http.StatusUnauthorized},
		{"wrong user", "root", "s3cret", http.StatusUnauthorized},
		{"right credentials", "admin", "s3cret", http.StatusOK},
	}
	t.Run("bulk statistics include refused requests", func(t *testing.T) {
		call(t, ts, "POST", "/_bulk", ndjson(`{"delete":{"_index":"x","_id":"1"}}`)).mustStatus(t, http.StatusUnauthorized)
		if st := ts.BulkRequests(); len(st) != 1 || st[0].Status != 401 || st[0].Actions != 1 {
			t.Errorf("BulkRequests = %+v", st)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL+"/", nil)
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusUnauthorized {
				if got := resp.Header.Get("WWW-Authenticate"); got != `Basic realm="OpenSearch Security"` {
					t.Errorf("WWW-Authenticate = %q", got)
				}
				if string(body) != "Unauthorized" {
					t.Errorf("body = %q, want the security plugin's plain Unauthorized", body)
				}
			}
		})
	}
}

func TestTLSNeedsTheCACertificate(t *testing.T) {
	t.Parallel()
	ts := StartTLS(t, Config{})
	if !strings.HasPrefix(ts.URL, "https://127.0.0.1:") {
		t.Fatalf("URL = %s, want https on loopback", ts.URL)
	}

	// A client with only the system roots refuses the self-signed certificate.
	plain := &http.Client{Transport: &http.Transport{}}
	_, err := plain.Get(ts.URL + "/")
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Fatalf("GET without the CA: err = %v, want an unknown authority error", err)
	}

	// Trusting the PEM written by CACertFile, it works.
	pemBytes, err := os.ReadFile(ts.CACertFile(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("CACertFile holds no certificate")
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := trusting.Get(ts.URL + "/")
	if err != nil {
		t.Fatalf("GET with the CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestContentType(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	body := ndjson(`{"index":{"_index":"ct"}}`, `{"a":1}`)
	tests := []struct {
		name   string
		ctype  string
		status int
		errMsg string
	}{
		{"json", "application/json", http.StatusOK, ""},
		{"json with charset", "application/json; charset=UTF-8", http.StatusOK, ""},
		{"ndjson", "application/x-ndjson", http.StatusOK, ""},
		{"text", "text/plain", http.StatusNotAcceptable, "Content-Type header [text/plain] is not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, "POST", "/_bulk", body, "Content-Type", tc.ctype).mustStatus(t, tc.status)
			if tc.errMsg != "" {
				m := r.decode(t)
				if m["error"] != tc.errMsg || m["status"] != json.Number("406") {
					t.Errorf("body = %s, want the simple error %q", r.body, tc.errMsg)
				}
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.URL+"/_bulk", strings.NewReader(body))
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotAcceptable || !strings.Contains(string(b), "Content-Type header is missing") {
			t.Errorf("got %d %s", resp.StatusCode, b)
		}
	})
}

func TestGzipBodyAndSizeLimit(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{MaxContentLength: 4096})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = io.WriteString(zw, ndjson(`{"index":{"_index":"gz","_id":"1"}}`, `{"a":1}`))
	_ = zw.Close()
	call(t, ts, "POST", "/_bulk", buf.String(), "Content-Encoding", "gzip").mustStatus(t, http.StatusOK)
	if ts.DocCount("gz") != 1 {
		t.Errorf("gzip body not indexed")
	}
	if got := ts.BulkRequests()[0].Bytes; got != buf.Len() {
		t.Errorf("BulkStat.Bytes = %d, want the compressed size %d", got, buf.Len())
	}
	big := ndjson(`{"index":{"_index":"gz"}}`, `{"a":"`+strings.Repeat("x", 5000)+`"}`)
	r := call(t, ts, "POST", "/_bulk", big)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: status %d, want 413", r.status)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	r := call(t, ts, "GET", "/_bulk", "").mustStatus(t, http.StatusMethodNotAllowed)
	if got := r.header.Get("Allow"); got != "POST,PUT" {
		t.Errorf("Allow = %q", got)
	}
	if m := r.decode(t); m["error"] != "Incorrect HTTP method for uri [/_bulk] and method [GET], allowed: [POST, PUT]" {
		t.Errorf("body = %s", r.body)
	}
}

func TestIndexTemplates(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	tpl := `{"index_patterns":["seshat-*"],"priority":10,"template":{"settings":{"number_of_shards":1},"mappings":{"properties":{"test_uuid":{"type":"keyword"},"@timestamp":{"type":"date"}}}}}`

	call(t, ts, "HEAD", "/_index_template/payloads", "").mustStatus(t, http.StatusNotFound)
	_, typ, reason := call(t, ts, "GET", "/_index_template/payloads", "").mustStatus(t, http.StatusNotFound).errorOf(t)
	if typ != "resource_not_found_exception" || reason != "index template matching [payloads] not found" {
		t.Errorf("missing template: %s %s", typ, reason)
	}
	if m := call(t, ts, "PUT", "/_index_template/payloads", tpl).mustStatus(t, http.StatusOK).decode(t); m["acknowledged"] != true {
		t.Errorf("PUT answered %v", m)
	}
	call(t, ts, "HEAD", "/_index_template/payloads", "").mustStatus(t, http.StatusOK)

	m := call(t, ts, "GET", "/_index_template/payloads", "").mustStatus(t, http.StatusOK).decode(t)
	list := m["index_templates"].([]any)
	if len(list) != 1 {
		t.Fatalf("index_templates = %v", list)
	}
	entry := list[0].(map[string]any)
	it := entry["index_template"].(map[string]any)
	if entry["name"] != "payloads" || fmt.Sprint(it["index_patterns"]) != "[seshat-*]" || it["priority"] != json.Number("10") {
		t.Errorf("template = %v", entry)
	}
	settings := it["template"].(map[string]any)["settings"].(map[string]any)
	if settings["index"].(map[string]any)["number_of_shards"] != "1" {
		t.Errorf("settings not normalised like OpenSearch: %v", settings)
	}

	// A wildcard that matches nothing is a 404 with an empty list.
	r := call(t, ts, "GET", "/_index_template/nothing*", "").mustStatus(t, http.StatusNotFound)
	if got := string(r.body); got != `{"index_templates":[]}` {
		t.Errorf("wildcard miss = %s", got)
	}

	// Same priority and overlapping patterns are refused.
	_, typ, reason = call(t, ts, "PUT", "/_index_template/other", `{"index_patterns":["seshat-x*"],"priority":10}`).
		mustStatus(t, http.StatusBadRequest).errorOf(t)
	if typ != "illegal_argument_exception" || !strings.Contains(reason, "that have the same priority [10], multiple index templates may not match during index creation") {
		t.Errorf("overlap: %s %s", typ, reason)
	}
	call(t, ts, "PUT", "/_index_template/other", `{"index_patterns":["seshat-x*"],"priority":20,"template":{"mappings":{"properties":{"test_uuid":{"type":"text"}}}}}`).
		mustStatus(t, http.StatusOK)
	call(t, ts, "PUT", "/_index_template/other?create=true", `{"index_patterns":["zzz"]}`).mustStatus(t, http.StatusBadRequest)

	// Indices created by a write get the highest-priority matching template.
	call(t, ts, "POST", "/_bulk", ndjson(
		`{"index":{"_index":"seshat-a","_id":"1"}}`, `{"test_uuid":"u1","@timestamp":"2024-01-01T00:00:00Z"}`,
		`{"index":{"_index":"seshat-xyz","_id":"1"}}`, `{"test_uuid":"u1"}`,
	)).mustStatus(t, http.StatusOK)
	if got := ts.Mapping("seshat-a")["test_uuid"]; got != "keyword" {
		t.Errorf("seshat-a test_uuid = %q, want keyword from template payloads", got)
	}
	if got := ts.Mapping("seshat-xyz")["test_uuid"]; got != "text" {
		t.Errorf("seshat-xyz test_uuid = %q, want text from the higher-priority template", got)
	}

	// An explicit create mapping wins over the template's.
	call(t, ts, "PUT", "/seshat-b", `{"mappings":{"properties":{"@timestamp":{"type":"long"}}}}`).mustStatus(t, http.StatusOK)
	if got := ts.Mapping("seshat-b"); got["@timestamp"] != "long" || got["test_uuid"] != "keyword" {
		t.Errorf("seshat-b mapping = %v", got)
	}

	all := call(t, ts, "GET", "/_index_template", "").mustStatus(t, http.StatusOK).decode(t)["index_templates"].([]any)
	if len(all) != 2 || all[0].(map[string]any)["name"] != "other" || all[1].(map[string]any)["name"] != "payloads" {
		t.Errorf("GET /_index_template = %v", all)
	}
	if raw, ok := ts.Template("payloads"); !ok || !strings.Contains(string(raw), `"index_patterns":["seshat-*"]`) {
		t.Errorf("Template = %s, %v", raw, ok)
	}
	if got := ts.Indices(); strings.Join(got, ",") != "seshat-a,seshat-b,seshat-xyz" {
		t.Errorf("Indices = %v", got)
	}

	call(t, ts, "DELETE", "/_index_template/other", "").mustStatus(t, http.StatusOK)
	call(t, ts, "DELETE", "/_index_template/other", "").mustStatus(t, http.StatusNotFound)
	if _, ok := ts.Template("other"); ok {
		t.Error("deleted template still there")
	}
}

func TestCreateIndex(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	m := call(t, ts, "PUT", "/lts", `{"settings":{"index":{"number_of_shards":1}},"mappings":{"properties":{"labels":{"properties":{"backend":{"type":"keyword"}}}}}}`).
		mustStatus(t, http.StatusOK).decode(t)
	if m["acknowledged"] != true || m["shards_acknowledged"] != true || m["index"] != "lts" {
		t.Errorf("create = %v", m)
	}
	call(t, ts, "HEAD", "/lts", "").mustStatus(t, http.StatusOK)
	call(t, ts, "HEAD", "/nope", "").mustStatus(t, http.StatusNotFound)
	if got := ts.Mapping("lts")["labels.backend"]; got != "keyword" {
		t.Errorf("labels.backend = %q", got)
	}
	_, typ, reason := call(t, ts, "PUT", "/lts", "").mustStatus(t, http.StatusBadRequest).errorOf(t)
	if typ != "resource_already_exists_exception" || !strings.HasPrefix(reason, "index [lts/") {
		t.Errorf("second create: %s %s", typ, reason)
	}

	names := []struct{ name, why string }{
		{"Upper", "must be lowercase"},
		{"_under", "must not start with '_', '-', or '+'"},
		{"-dash", "must not start with '_', '-', or '+'"},
		{"a%23b", "must not contain '#'"},
		{"a:b", "must not contain ':'"},
		{"a%20b", `must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?]`},
		{"..", "must not be '.' or '..'"},
	}
	for _, n := range names {
		t.Run(n.name, func(t *testing.T) {
			_, typ, reason := call(t, ts, "PUT", "/"+n.name, "").mustStatus(t, http.StatusBadRequest).errorOf(t)
			if typ != "invalid_index_name_exception" || !strings.HasSuffix(reason, n.why) {
				t.Errorf("%s: %s", typ, reason)
			}
		})
	}
	call(t, ts, "DELETE", "/lts", "").mustStatus(t, http.StatusOK)
	call(t, ts, "HEAD", "/lts", "").mustStatus(t, http.StatusNotFound)
	call(t, ts, "DELETE", "/lts", "").mustStatus(t, http.StatusNotFound)
}

// TestErrorResponsesGolden pins the exact error bodies a client reads for
// malformed requests; rewrite with -update after checking a change against
// OpenSearch (TestConformance does that when a cluster is available).
func TestErrorResponsesGolden(t *testing.T) {
	ts := Start(t, Config{Seed: 42, Now: func() time.Time { return fixedNow }})
	for _, r := range conformanceSetup("") {
		call(t, ts, r.method, r.path, r.body).mustStatus(t, http.StatusOK)
	}
	var out bytes.Buffer
	for _, tc := range conformanceCases("") {
		r := call(t, ts, tc.method, tc.path, tc.body)
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, r.body, "", "  "); err != nil {
			pretty.Write(r.body)
		}
		fmt.Fprintf(&out, "=== %s\n%s %s\n%d\n%s\n\n", tc.name, tc.method, tc.path, r.status, pretty.String())
	}
	golden := filepath.Join("testdata", "errors.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("error responses differ from %s; run with -update after checking them against OpenSearch\n%s", golden, out.String())
	}
}

func TestIndexMetadataEndpoints(t *testing.T) {
	t.Parallel()
	ts := Start(t, Config{})
	m := call(t, ts, "GET", "/_cluster/health", "").mustStatus(t, 200).decode(t)
	if m["status"] != "green" || m["number_of_nodes"] != json.Number("1") {
		t.Errorf("empty cluster health = %v", m)
	}
	call(t, ts, "PUT", "/meta", `{"settings":{"number_of_replicas":0},"mappings":{"properties":{"k":{"type":"keyword"},"o":{"properties":{"d":{"type":"date","format":"epoch_millis"}}}}}}`).mustStatus(t, 200)
	mp := call(t, ts, "GET", "/meta/_mapping", "").mustStatus(t, 200)
	if got := string(mp.body); got != `{"meta":{"mappings":{"properties":{"k":{"type":"keyword"},"o":{"properties":{"d":{"format":"epoch_millis","type":"date"}}}}}}}` {
		t.Errorf("_mapping = %s", got)
	}
	g := call(t, ts, "GET", "/meta", "").mustStatus(t, 200).decode(t)
	settings := g["meta"].(map[string]any)["settings"].(map[string]any)["index"].(map[string]any)
	if settings["number_of_replicas"] != "0" || settings["provided_name"] != "meta" {
		t.Errorf("settings = %v", settings)
	}
	if h := call(t, ts, "GET", "/_cluster/health/meta", "").mustStatus(t, 200).decode(t); h["status"] != "green" {
		t.Errorf("health of an index without replicas = %v", h["status"])
	}
	call(t, ts, "PUT", "/other", "").mustStatus(t, 200)
	if h := call(t, ts, "GET", "/_cluster/health", "").mustStatus(t, 200).decode(t); h["status"] != "yellow" || h["unassigned_shards"] != json.Number("1") {
		t.Errorf("single node with a replica = %v", h)
	}
}
