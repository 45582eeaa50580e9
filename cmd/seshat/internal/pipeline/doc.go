// Package pipeline holds the work of each seshat verb as one library call:
// options in, files and streams out, an error carrying its exit code back.
// cmd/seshat only binds flags to these options, and resolves what comes
// from the environment into them (Env, StoreConnection): nothing here reads
// environment variables. Stores are opened by URL through lts.Open (the
// backends cmd/seshat registers) and read as lts.Records.
package pipeline
