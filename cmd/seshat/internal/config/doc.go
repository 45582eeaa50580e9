// Package config reads seshat.yaml and decides the precedence of settings in
// one place, for every verb: Resolve finds and loads the config file, then
// Apply fills each flag the command line left unset from its SESHAT_<FLAG>
// variable (and the older names BindEnv adds, SESHAT_IGNORE_CACHE), else
// its config key (BindKey), else the settings it falls back on
// (BindFallback: `regression --history` takes the upload store, SESHAT_STORE
// or lts.store): defaults < config file < environment < flags. The variables
// that mirror no flag (Variables: the config file, the results' base URL,
// OpenSearch credentials, where the Kubernetes cluster is) are read there
// too, and passed down in options:
// no package below cmd reads the environment. The regression keys a user
// leaves unset take the workload's defaults last (regression.Keys.Or), the
// only layer below the file.
//
// File is the config file type; its regression_analyses section inlines the
// analysis' own regression.Keys. A test in cmd/seshat ties every key a flag
// reads to a field of File, and every field to a flag or to UnboundKeys.
//
// The file is decoded strictly: an unknown key, a value of the wrong type or
// malformed YAML is an InvalidInput error naming the file, the line and the
// dotted key ("config file seshat.yaml:3: unknown key parse.filterz").
// Durations (Duration: run.timeout, the executors' poll intervals...) are
// parsed there too, so a bad one fails the load, not the command that
// would have used it.
// Fixtures for good and bad files live in testdata/, each bad one with the
// exact error it gives.
package config
