// Package pitest makes real pi payloads for tests and benchmarks, shaped
// like the runs bench/gen writes (200 samples, a full hwinfo.json), so
// their size and labels are those of production: for the verbs' tests,
// the explorer's, and the benchmarks of the stores, assembled by
// lts/payloadgen; the stores' own tests use ltstest's toy payloads.
// Importing pitest registers no workload but pi. For
// tests and benchmarks (bench/gen takes MatmulResult from here), never
// production.
package pitest
