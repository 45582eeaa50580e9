// Package opensearchtest is an in-process, in-memory OpenSearch for the
// tests of the LTS OpenSearch store: an httptest server, plain (Start) or
// TLS with a self-signed certificate (StartTLS), optionally with basic
// authentication. Only _test.go files of other packages import it.
//
// It answers what the store sends through opensearch-go, with OpenSearch's
// answer and error shapes, and nothing more:
//
//   - HEAD|PUT /_index_template/{name}: composable templates (index
//     patterns, priority, mappings; settings are accepted and ignored),
//     applied, highest priority first, when a bulk write creates an index;
//   - POST /_bulk: NDJSON framing (terminating newline, source lines),
//     index and delete actions with _index and _id, per-item results
//     (created, updated, deleted, not_found, or an error) and "errors";
//   - GET|POST /{index}/_search: match_all, bool (filter, must, should,
//     must_not, minimum_should_match as a count), terms, prefix (keywords,
//     short form), exists, range (gt, gte, lt, lte) and ids queries; sort as [{field: {order}}]; search_after,
//     strict (ties with the cursor are skipped); size up to 10,000;
//     _source true, false or {"excludes": [dotted paths]};
//   - GET|POST /{index}/_count with a query;
//   - GET|POST /{index}/_field_caps?fields=: the mapped fields matching
//     names or prefix patterns, with their types;
//   - GET|POST /{index,...}/_refresh[?ignore_unavailable=true].
//
// Data flows as in OpenSearch: a write parses the source and indexes each
// field as its mapping types it (the template's properties, its dynamic
// templates, else dynamic mapping: dates, numbers, booleans, and text with
// a .keyword sub-field); a value the field cannot take fails the item, and
// a document changes the mapping only when it is accepted. A search sees
// the documents of the last refresh only. Queries compare values as the
// field indexed them: a term against a text field matches one lowercased
// token, an unmapped field matches nothing, and sorting on a text or
// unmapped field fails as on a real cluster.
//
// Faults are injected with TestServer.Inject: 429 storms, 5xx (with
// OpenSearch's or a proxy's body), partial bulk failures (ItemFault),
// dropped connections, slow responses (a Delay longer than the client's
// patience is a server that never answers), and lost responses whose writes
// did happen (AfterApply); Config.MaxContentLength refuses long bodies with
// 413. Probabilities draw from a source seeded by
// Config.Seed. Counters (Requests, RequestCounts, BulkRequests) and
// introspection (DocCount, Doc, Mapping, Template) let tests assert what
// reached the server.
//
// Everything else fails loudly rather than pretending: other endpoints,
// methods and URL parameters, other bulk actions (create, update) and
// action parameters, other query clauses and search options
// (aggregations, from, track_total_hits, ...), index lists and wildcards
// in searches, mapping parameters beyond type, properties, enabled and
// fields, and field types beyond keyword, text, date, boolean and numbers
// answer 501 with type opensearchtest_not_implemented, naming what was
// sent. Not modelled at all: scores; date math and date formats (dates are
// RFC 3339, RFC 3339 without a zone, a date alone, or epoch milliseconds);
// analyzers other than a lowercasing split on non-alphanumerics; shards,
// versions and sequence numbers; conflicts between templates of equal
// priority.
package opensearchtest
