// Command seshat runs performance-indicator benchmarks and post-processes
// their results: parse (cached), kpis, upload, regression, visualize. See
// README.md and docs/.
//
// main calls execute with the real process (args, environment, streams);
// tests call it with fake ones (runSeshat). Each verb lives in a file of its
// own and only binds flags to one library call. Settings come from
// seshat.yaml (or --config / SESHAT_CONFIG), then SESHAT_<FLAG> environment
// variables, then flags, the later winning, all settled by
// cmd/seshat/internal/config.Resolve before a verb runs; the variables that mirror no
// flag reach the library in options. The store backends (lts/sqlite,
// lts/opensearch) and the pi workload are imported here for their
// registration.
//
// Exit status: 0 success, 1 error, 2 regression found, 3 no results or no
// data, 4 invalid input (flags, config, strict validation); never a count.
package main
