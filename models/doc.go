// Package models holds the document types of Seshat's on-disk and wire
// contracts: the artifact files a run writes (pi.json, hwinfo.json,
// usage.json), and the LTS payload and KPI documents built from them.
//
// The runner writes these types and the workload parsers read them back, so a
// change here is a change of contract: keep docs/ in step.
package models
