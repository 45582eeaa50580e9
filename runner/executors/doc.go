// Package executors builds the executor `seshat run --executor` names
// (local, slurm or kubernetes) from typed options: the one place that
// knows every executor, which package runner cannot be, as
// runner/kubernetes builds on it. Values the config file holds are
// checked here, with errors naming their config key.
package executors
