// Package atomicfile writes files so that a reader sees either the old content
// or the whole new content, never a half-written file: data goes to a temporary
// file in the same directory (hidden, so result-tree walkers skip it), then is
// renamed over the target. On any failure, panics included, the temporary
// file is removed and the target is left as it was.
package atomicfile
