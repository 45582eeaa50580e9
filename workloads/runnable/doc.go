// Package runnable is the contract between a workload and the runner: what
// a workload implements to have its matrix points run (Runner and its
// optional abilities) and how settings reach the child (EnvName). It
// imports nothing of the parse side, so that the run stage (package
// runner) does not depend on the parse stage (package store): workloads
// re-exports these names for the workloads themselves.
package runnable
