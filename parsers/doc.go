// Package parsers holds small, strict readers for the artifact files of a run
// directory: settings, exit_code, .uuid, build.json, JSON and YAML
// documents, os-release and nvidia-smi CSV. Readers take bytes (read with a size limit) and a file
// name for messages; every error is a *SyntaxError naming the file and, where
// known, the line and field, so callers can report it and go on. No reader
// panics on any input: each has a fuzz target seeded from testdata.
package parsers
