package opensearchtest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/seshat-bench/seshat/lts/opensearchtest"
)

// A store test injects faults and then asserts what reached the server.
// Tests use opensearchtest.Start(t, cfg); the example wires the handler by
// hand because examples have no *testing.T.
func ExampleServer_Inject() {
	srv := opensearchtest.New(opensearchtest.Config{Seed: 1})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	storm := srv.Inject(opensearchtest.Rule{
		Endpoint: opensearchtest.EndpointBulk,
		Times:    2,
		Fault:    opensearchtest.Fault{Status: http.StatusTooManyRequests},
	})
	body := "{\"index\":{\"_index\":\"payloads\",\"_id\":\"run-1\"}}\n{\"test_uuid\":\"run-1\"}\n"
	for range 3 {
		resp, err := http.Post(hs.URL+"/_bulk", "application/x-ndjson", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	fmt.Println("fired:", storm.Fired(), "bulk requests:", srv.Requests(opensearchtest.EndpointBulk), "documents:", srv.DocCount("payloads"))
	// Output:
	// 429
	// 429
	// 200
	// fired: 2 bulk requests: 3 documents: 1
}

// Documents become searchable on refresh, as on a real cluster.
func ExampleServer_Refresh() {
	srv := opensearchtest.New(opensearchtest.Config{})
	_ = srv.Put("payloads", "run-1", map[string]any{"test_uuid": "run-1", "@timestamp": "2024-01-01T00:00:00Z"})
	fmt.Println(srv.DocCount("payloads"), srv.SearchableCount("payloads"))
	srv.Refresh("payloads")
	fmt.Println(srv.DocCount("payloads"), srv.SearchableCount("payloads"))
	fmt.Println(srv.Mapping("payloads")["@timestamp"], srv.Mapping("payloads")["test_uuid"])
	// Output:
	// 1 0
	// 1 1
	// date text
}
