package opensearchtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// response is an HTTP response read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends one request with plain net/http; a non-empty body is sent as
// application/json unless a Content-Type is given in hdr (name, value pairs).
func call(t *testing.T, ts *TestServer, method, path, body string, hdr ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// decode unmarshals the body with numbers kept exact.
func (r response) decode(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return m
}

// errorOf returns the status, error type and reason of an error response.
func (r response) errorOf(t *testing.T) (int, string, string) {
	t.Helper()
	m := r.decode(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error response: %s", r.body)
	}
	if _, ok := e["root_cause"].([]any); !ok {
		t.Fatalf("error without root_cause: %s", r.body)
	}
	typ, _ := e["type"].(string)
	reason, _ := e["reason"].(string)
	return r.status, typ, reason
}

// ndjson joins lines into a bulk body with its terminating newline.
func ndjson(lines ...string) string {
	return strings.Join(lines, "\n") + "\n"
}

// mustOK fails the test unless the response has the wanted status.
func (r response) mustStatus(t *testing.T, want int) response {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d: %s", r.status, want, r.body)
	}
	return r
}

// hitIDs lists the _id of a search response's hits, in order.
func hitIDs(t *testing.T, r response) []string {
	t.Helper()
	m := r.mustStatus(t, http.StatusOK).decode(t)
	var ids []string
	for _, h := range m["hits"].(map[string]any)["hits"].([]any) {
		ids = append(ids, h.(map[string]any)["_id"].(string))
	}
	return ids
}

// total is hits.total.value.
func total(t *testing.T, r response) int {
	t.Helper()
	m := r.decode(t)
	v, err := m["hits"].(map[string]any)["total"].(map[string]any)["value"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return int(v)
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

var fixedNow = time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)
