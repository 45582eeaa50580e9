// Package pipeline holds the work of each seshat verb as one library call:
// options in, files and streams out, an error carrying its exit code back.
// cmd/seshat only binds flags to these options.
package pipeline
