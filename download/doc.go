// Package download brings a CI run's artifact tree over HTTP(S) into a
// results directory, as matbench's download does, for `seshat download`.
//
// The data flows in three steps. The walk reads the tree's listings: HTML
// directory pages (nginx and Apache autoindex, Python's http.server, the
// gcsweb front end of Prow and OpenShift CI, net/http.FileServer), read by
// their links with golang.org/x/net/html (ParseHTML), up to Jobs at a time;
// or an S3-compatible bucket's ListObjectsV2 pages, continuation token after
// token (ParseS3). Entries that could write outside the results directory
// (a `..`, a backslash, an absolute path elsewhere) are refused there and
// reported. The selection keeps what the mode asks for: every file (All), or
// the files every run has (settings files, exit_code, build.json) and those
// each test root's workload declares, known once its settings are fetched
// (Options.Declared, which the command answers from the workload registry).
// The fetch writes each file through an os.Root of the results directory,
// into a temporary file renamed once whole (so an interruption leaves whole
// files only, and prefer-cache resumes), exit_code files last (a run is
// complete once its exit_code is there). Requests never follow a redirect to
// another host, are abandoned when no data comes for StallTimeout, and
// refuse files over MaxFileSize.
//
// A file or a listing that fails is recorded in the Report and the rest goes
// on; the caller turns an incomplete report into its exit status.
package download
