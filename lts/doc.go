// Package lts is the history stage: it turns parsed entries into LTS
// (long-term storage) payloads, describes them for the stores, and reads
// history back as one Record shape through one Store interface.
//
// Payloads are built leniently from whatever a parse produced (Build,
// BuildAll: EntryPayloads, each with its warnings), so that `seshat kpis`
// still exports what it can. metadata.build is the entry's build.json
// (store.Entry.Build), never a label, so it never splits a series. They are validated strictly only when written
// (ValidateAll, SplitValid): the payload's struct tags, then its workload's
// labels model and KPIs, with every problem named by entry path and JSON
// field. ReadFile (ReadPayloads of a file, at most FileLimit bytes) reads
// an LTS file back into EntryPayloads that SplitValid validates like
// freshly built ones. Schema writes the payload's
// JSON Schema (draft 2020-12), reflected from the Go types and annotated
// from the same `validate` tags; IndexTemplates writes the OpenSearch index
// templates of the payload and KPI indices.
//
// History flows through three types:
//
//   - Query selects stored runs: a workload, KPI labels (models.Filter, the
//     one filter syntax "k=v1:v2,k2=v", compared here as strings), builds
//     by id or commit prefix, a time range, the KPIs wanted and a page
//     size.
//   - Store keeps payloads (Put, idempotent by test_uuid) and answers a
//     Query with Records (what history reads), whole Payloads, or a Count,
//     always every match in (start, test_uuid) order, paging internally;
//     LabelNames lists the labels its runs have.
//   - Record is one stored run: test_uuid, time, workload, exit code, build
//     (metadata.build), labels, and KPI values with their definitions
//     (unit, help, direction). Regression analysis, the KPI history plots
//     and `seshat history` all read it.
//
// Backends are packages of their own that register an Opener for their URL
// scheme in init (Register), as k6 registers its outputs: lts/sqlite
// (sqlite:PATH, the embedded default) and lts/opensearch (http(s)://host).
// Open finds the backend by the URL's scheme; a program imports the
// backends it offers for that side effect, and adding one touches nothing
// else. A store that must exist and does not fails with ErrNoStore, which
// readers turn into "no data" or an empty history. Memory is a store in
// memory: a file of payloads read as history, the empty history, tests.
// Optional abilities are small interfaces (PutDescriber; VerdictStore, the
// verdicts of regression analyses and their triage, which SQLite,
// OpenSearch and Memory keep, AsVerdictStore naming a store that does
// not). Credentials are a
// Secret, which never prints. Package ltstest makes payloads of the toy
// workload for the tests and holds the conformance tests every backend
// runs (the benchmarks upload real pi payloads, workloads/pi/pitest);
// opensearchtest is the OpenSearch they run against.
package lts
