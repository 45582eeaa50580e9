package store

// Parser is what the store needs from a workload to parse one test root.
// Workloads implement it (see package workloads); the store owns caching,
// parallelism and ordering.
type Parser interface {
	// Name is the workload name, as found in the `workload` setting.
	Name() string
	// ParserVersion changes whenever ParseOnce would produce a different
	// result from the same files; a change invalidates every cached entry.
	ParserVersion() string
	// ArtifactDirnames maps a logical directory name to a glob resolved per
	// test root (exact path wins, else the last sorted match). ReadFile
	// paths may start with "{name}/" to use one.
	ArtifactDirnames() map[string]string
	// ImportantFiles lists the files ParseOnce may read, relative to the test
	// root, possibly starting with "{dirname}/". Reading any other file warns.
	ImportantFiles() []string
	// ParseOnce reads and decodes artifacts through ctx. Its result is a
	// pointer to a struct that the cache stores in CBOR (honouring `json`
	// struct tags) and reads back into NewResult(): it must round-trip, so
	// keep to JSON-like values (numbers, strings, bools, times, slices, maps
	// keyed by strings). Missing or broken files are warnings (ctx.Warnf),
	// not errors; an error marks the entry failed.
	ParseOnce(ctx *ParseContext) (any, error)
	// NewResult returns a pointer to a zero result, of the type ParseOnce
	// returns, for the cache to decode into.
	NewResult() any
	// ParseAlways completes a (possibly cached) result with what depends on
	// where and when the parse runs. It runs on every parse.
	ParseAlways(ctx *AlwaysContext, result any) error
}
