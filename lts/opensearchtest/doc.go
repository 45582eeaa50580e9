// Package opensearchtest is an in-process, in-memory OpenSearch 2.x for
// tests: an http.Handler, and httptest servers (plain and TLS) on loopback.
// Only _test.go files of other packages import it.
//
// It answers the REST calls the LTS OpenSearch store makes through
// opensearch-go, with OpenSearch's request validation and response and error
// shapes (checked against OpenSearch's source):
//
//   - GET|HEAD / (cluster info, version 2.x), GET /_cluster/health;
//   - PUT|POST|GET|HEAD|DELETE /_index_template/{name}: composable templates,
//     applied (highest priority) when an index is created;
//   - HEAD|PUT|GET|DELETE /{index}, GET /{index}/_mapping: indices with
//     mappings, explicit or dynamic (dynamic templates, date detection, text
//     with a .keyword sub-field, strict and false);
//   - POST [/{index}]/_bulk: NDJSON framing as BulkRequestParser enforces it,
//     per-item results, version conflicts, auto-created indices, ?refresh;
//   - GET|PUT|POST|DELETE /{index}/_doc/{id}, /{index}/_create/{id};
//   - [/{index}]/_search and _count over index lists and wildcards: bool,
//     term, terms, range (numbers, dates with date math), exists, ids,
//     match_all, match, prefix, constant_score; sort with missing values and
//     unmapped_type; from/size within index.max_result_window; search_after
//     with OpenSearch's strict "after" (ties with the cursor are skipped);
//     track_total_hits; _source filtering;
//   - [/{index}]/_refresh.
//
// Data flows as in OpenSearch: a write parses the source, maps its fields
// (typing each value as its field's mapping says, adding dynamic fields only
// when the whole document is accepted) and stores the indexed values beside
// the source; a search sees only what the last refresh published, unless
// Config.AutoRefresh is set. Search binds the query to each index's mapping,
// so term on a text field, sorting on a text or unmapped field, or a
// malformed number fail the way a real cluster fails them.
//
// Faults are injected with Server.Inject: 429 storms, 5xx (with OpenSearch's
// or a proxy's body), partial bulk failures, dropped connections, slow
// responses, and lost responses whose writes did happen (AfterApply).
// Probabilities draw from a source seeded by Config.Seed. Counters
// (Requests, BulkRequests) and introspection (DocCount, Doc, Mapping,
// Template) let tests assert what reached the server.
//
// What is not modelled answers 501 with type opensearchtest_not_implemented
// rather than pretending: aggregations, scroll, scripts, query_string and
// the other query types not listed above. Scores are constant per matching
// clause, not BM25; filter_path is ignored (responses are a superset).
package opensearchtest
