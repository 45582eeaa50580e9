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
// and KPI indices. The stores themselves (embedded SQLite, OpenSearch) live
// here behind one Store interface. QueryKPIs reads only the labels and KPI
// values of the matches (regression history): the SQLite store keeps them
// in tables of their own, each distinct label set once (KPIQuerier); other
// stores derive them from whole payloads.
package lts
