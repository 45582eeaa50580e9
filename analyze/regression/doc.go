// Package regression judges the KPIs of a current run against their stored
// history: the `seshat regression` verb without its I/O.
//
// Data flows in one pass:
//
//  1. The current Runs (the lts.Records of the payloads of one parse, or of
//     an LTS file) are cut into Entries: runs sharing a workload, a series
//     key and a comparison value (the repeats of one matrix point) are one
//     entry, their median one current point. A run matching an
//     ignored_entries filter is skipped. Keys are one type, declared once:
//     a workload's defaults under what the user set (Keys.Or).
//  2. The series key is a run's labels minus the comparison keys, the
//     ignored keys and the meta keys (test_uuid, timestamps, run_id, urls,
//     ci_engine, test_path). History asks the lts.Store for the
//     lts.Records of each series once (series that differ in a single label
//     share one query, that label matching any of their values) and keeps
//     the records whose own series key is the same, minus the current runs
//     (by test_uuid) and the ignored entries.
//  3. For each entry and KPI, the records are combined into points by the
//     one rule of package history (per build and comparison value, the
//     median, ordered by time: what visualize and serve show), and an
//     analyze.Method judges the current point against them, in the KPI's
//     direction; an analyze.Gate then judges all the results of the
//     analysis together.
//  4. Acks turn a known regression (or improvement) into acknowledged:
//     reported, never failing.
//
// The Report holds every entry x KPI with its status, numbers, history and
// warnings, the counts of the summary, and whether CI should fail; package
// analyze/report renders it.
package regression
