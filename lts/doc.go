// Package lts turns parsed entries into LTS (long-term storage) payloads and
// describes them for the stores that keep them.
//
// Payloads are built leniently from whatever a parse produced (Build,
// BuildAll): a missing artifact leaves its part absent with a warning, so
// that `seshat kpis` still exports what it can. They are validated strictly
// only when written (ValidateAll, for `parse --output-lts`): the payload's
// struct tags, then its workload's labels model and KPIs, with every problem
// named by entry path and JSON field.
//
// Schema writes the payload's JSON Schema (draft 2020-12), reflected from the
// Go types and annotated from the same `validate` tags the strict validation
// uses; IndexTemplates writes the OpenSearch index templates of the payload
// and KPI indices. ReadPayloads reads an LTS file back into records that
// SplitValid validates like freshly built ones.
//
// The stores keep payloads behind one Store interface, opened from a URL by
// Open: sqlite:PATH, the embedded store (modernc.org/sqlite: WAL, one
// transaction per Put, a versioned schema, label queries driven through an
// integer index from their most selective label), or http(s)://host:port,
// OpenSearch (opensearch-go: payload and KPI indices, templates installed
// when missing, bulk requests bounded by count and bytes, retries with
// backoff and jitter that re-send only failed documents, search_after
// paging). Put is idempotent by test_uuid; Query yields every match in
// (start, test_uuid) order, paging internally. QueryKPIs reads only the
// labels and KPI values of the matches (regression history): the SQLite
// store keeps them in tables of their own, each distinct label set once
// (KPIQuerier); other stores derive them from whole payloads. Credentials are a Secret,
// which never prints. Package ltstest makes payloads for the tests and
// benchmarks; opensearchtest is the OpenSearch they run against.
package lts
