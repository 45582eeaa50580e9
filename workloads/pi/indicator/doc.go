// Package indicator runs one performance indicator in the child process of
// a run (`seshat pi`): it decodes the PI's parameters from the run's
// settings (Decode), runs the operation on its backend — gonum kernels in
// process, numpy/torch through the embedded Python programs, a fresh
// interpreter per sample for import time, any command for exec — times it
// with package measure and returns the pi.json document.
//
// Decode is also what `seshat run` uses to validate a benchmark file before
// anything runs, so a bad setting is reported once, up front, by name.
package indicator
