// Package models holds the document types of Seshat's on-disk and wire
// contracts: the artifact files a run writes (pi.json, hwinfo.json,
// usage.json), and the LTS payload and KPI documents built from them.
//
// The runner writes the artifact types and the workload parsers read them
// back; package lts assembles a Payload per run and package kpi fills its
// KPIs. Validate checks any of these documents against its `validate` struct
// tags (go-playground/validator) and names each bad field by its JSON path,
// e.g. "metadata.test_uuid: required", so a user knows what to fix. The same
// tags drive the payload's JSON Schema (lts.Schema), so the two cannot drift.
//
// A change here is a change of contract: keep docs/ in step, and bump
// LTSSchemaVersion when a payload written before would no longer read back.
package models
