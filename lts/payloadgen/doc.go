// Package payloadgen assembles seeded, valid LTS payloads of any workload,
// in time order, for tests and benchmarks: lts/ltstest makes the toy
// workload's with it, workloads/pi/pitest real pi payloads. It imports no
// workload, so that importing it (or pitest) registers none: a test
// binary's registry stays what the command's is. Never production.
package payloadgen
