// Package exitcode defines the process exit statuses of seshat, once, and
// lets library code attach one to an error (With, Errorf). The command maps
// the error back to a status at the top with Of; an error without a code is
// a Failure. Statuses are never counts, so they cannot wrap around.
package exitcode
