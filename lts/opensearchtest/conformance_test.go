package opensearchtest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

type conformanceCase struct {
	name, method, path, body string
	// exactReason is false where the reason carries Jackson's wording or
	// generated ids, which only approximately match.
	exactReason bool
}

// conformanceSetup creates the index the cases query; p prefixes every
// index and template name so a real cluster's data is left alone.
func conformanceSetup(p string) []conformanceCase {
	return []conformanceCase{
		{method: "PUT", path: "/" + p + "lts", body: `{"mappings":{"properties":{"n":{"type":"long"},"name":{"type":"text"},"k":{"type":"keyword"}}}}`},
		{method: "POST", path: "/" + p + "lts/_bulk?refresh=true", body: ndjson(`{"index":{"_id":"1"}}`, `{"n":1,"k":"a"}`)},
	}
}

// conformanceCases are malformed or edge requests whose answers a client
// depends on.
func conformanceCases(p string) []conformanceCase {
	lts := "/" + p + "lts"
	return []conformanceCase{
		{"bulk without final newline", "POST", "/_bulk", `{"index":{"_index":"` + p + `lts"}}` + "\n" + `{"n":1}`, true},
		{"bulk malformed action", "POST", "/_bulk", "{\"index\":{\"_index\" \"" + p + "lts\"}}\n{}\n", false},
		{"bulk action not an object", "POST", "/_bulk", "[1]\n{}\n", true},
		{"bulk unknown action", "POST", "/_bulk", "{\"upsert\":{}}\n{}\n", true},
		{"bulk type parameter", "POST", "/_bulk", "{\"index\":{\"_index\":\"" + p + "lts\",\"_type\":\"_doc\"}}\n{}\n", true},
		{"bulk array metadata", "POST", "/_bulk", "{\"index\":{\"_id\":[1]}}\n{}\n", true},
		{"bulk without index", "POST", "/_bulk", "{\"index\":{}}\n{}\n{\"delete\":{}}\n", true},
		{"bulk with no requests", "POST", "/_bulk", "\n\n", true},
		{"bulk empty body", "POST", "/_bulk", "", true},
		{"bulk bad refresh", "POST", "/_bulk?refresh=yes", "{\"delete\":{\"_index\":\"" + p + "lts\",\"_id\":\"1\"}}\n", true},
		{"unknown parameter", "POST", lts + "/_search?sise=1&foo=2", `{}`, true},
		{"search unknown key", "POST", lts + "/_search", `{"qeury":{"match_all":{}}}`, true},
		{"search unknown query", "POST", lts + "/_search", `{"query":{"trem":{"k":"a"}}}`, false},
		{"search malformed json", "POST", lts + "/_search", `{"query":}`, false},
		{"search duplicate key", "POST", lts + "/_search", `{"size":1,"size":2}`, false},
		{"search result window", "POST", lts + "/_search", `{"from":9995,"size":10}`, true},
		{"search negative size", "POST", lts + "/_search", `{"size":-2}`, true},
		{"search sort on text", "POST", lts + "/_search", `{"sort":["name"]}`, true},
		{"search sort unmapped", "POST", lts + "/_search", `{"sort":[{"missing_field":"asc"}]}`, true},
		{"search after length", "POST", lts + "/_search", `{"sort":["n"],"search_after":[1,"x"]}`, true},
		{"search after without sort", "POST", lts + "/_search", `{"search_after":[1]}`, true},
		{"search term bad number", "POST", lts + "/_search", `{"query":{"term":{"n":"abc"}}}`, true},
		{"search missing index", "POST", "/" + p + "nope/_search", `{}`, true},
		{"template missing patterns", "PUT", "/_index_template/" + p + "t", `{"template":{}}`, true},
		{"template unknown field", "PUT", "/_index_template/" + p + "t", `{"index_patterns":["` + p + `x"],"mapping":{}}`, false},
		{"create index bad mapping", "PUT", "/" + p + "bad", `{"mappings":{"properties":{"f":{"type":"strnig"}}}}`, true},
		{"get missing template", "GET", "/_index_template/" + p + "nope", "", true},
		{"not modelled", "GET", "/_cat/indices", "", true},
	}
}

// TestConformance replays the cases against a real OpenSearch named by
// SESHAT_TEST_OPENSEARCH_URL (credentials may be in the URL;
// SESHAT_TEST_OPENSEARCH_CA_CERT names a CA file) and checks that this
// server answers the same status, error type, root cause and reason.
func TestConformance(t *testing.T) {
	base := os.Getenv("SESHAT_TEST_OPENSEARCH_URL")
	if base == "" {
		t.Skip("SESHAT_TEST_OPENSEARCH_URL is not set")
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if ca := os.Getenv("SESHAT_TEST_OPENSEARCH_CA_CERT"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	}
	send := func(c conformanceCase) (int, []byte) {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		req, err := http.NewRequest(c.method, strings.TrimRight(base, "/")+c.path, body)
		if err != nil {
			t.Fatal(err)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	p := fmt.Sprintf("seshat-conformance-%d-", time.Now().UnixNano())
	t.Cleanup(func() {
		send(conformanceCase{method: "DELETE", path: "/" + p + "*"})
		send(conformanceCase{method: "DELETE", path: "/_index_template/" + p + "*"})
	})
	ts := Start(t, Config{})
	for _, c := range conformanceSetup(p) {
		if status, b := send(c); status != http.StatusOK {
			t.Fatalf("setup %s %s: %d %s", c.method, c.path, status, b)
		}
		call(t, ts, c.method, c.path, c.body).mustStatus(t, http.StatusOK)
	}
	summary := func(status int, b []byte) string {
		var m struct {
			Error json.RawMessage
		}
		_ = json.Unmarshal(b, &m)
		var e struct {
			Type, Reason string
			RootCause    []struct{ Type string } `json:"root_cause"`
		}
		if json.Unmarshal(m.Error, &e) != nil {
			return fmt.Sprint(status)
		}
		root := ""
		if len(e.RootCause) > 0 {
			root = e.RootCause[0].Type
		}
		return fmt.Sprintf("%d %s (root %s): %s", status, e.Type, root, e.Reason)
	}
	for _, c := range conformanceCases(p) {
		if c.name == "not modelled" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			rs, rb := send(c)
			r := call(t, ts, c.method, c.path, c.body)
			want, got := summary(rs, rb), summary(r.status, r.body)
			if !c.exactReason {
				want, _, _ = strings.Cut(want, ":")
				got, _, _ = strings.Cut(got, ":")
			}
			if got != want {
				t.Errorf("OpenSearch: %s\nthis server: %s", want, got)
			}
		})
	}
}
