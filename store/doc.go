// Package store turns a results directory into a Matrix of entries.
//
// Data flows in four steps:
//
//  1. Discover walks the results directory for test roots (directories with a
//     settings.yaml), honouring `skip` files, ignoring roots nested in roots
//     and hidden directories, following symlinks with loop protection. Real
//     directories are walked in parallel, symlinked ones after them in path
//     order, so the outcome never depends on timing.
//  2. Each root's settings are merged from settings.*.yaml files of its
//     parents, parent first, then its own settings.*.yaml (name order) and
//     settings.yaml last; filters select roots. exit_code decides the state:
//     missing is incomplete (not parsed), unreadable is failed. Whatever
//     the workload, a parsed root's build.json gives Entry.Build (missing:
//     an older run, silently; broken: a warning, and no build).
//  3. Each selected, complete root is parsed by its workload's Parser:
//     parse-once results come from the cache, one record per root, kept in
//     one .seshat_cache.cbor file per directory holding roots (a pack), when
//     the workload and its parser version, the entry's settings and
//     exit code, the size and mtime of every file parse-once read (or its
//     absence), build.json's included, and the directory each artifact
//     dirname glob resolved to are unchanged; parse-always runs every time. A damaged cache is a warning
//     and a re-parse; a cache that cannot be written costs a re-parse next
//     time, nothing more. A pack is rewritten, atomically, only when one of
//     its records changed; a checksum guards it. It also remembers each
//     root's listing with the directory's mtime and ctime, so an unchanged
//     root is not listed again. Each root is parsed by the walker goroutine that
//     found it (GOMAXPROCS of them), with its directory open: its files are
//     stated and read relative to it. A panicking parser fails its entry
//     only.
//  4. The Matrix keeps entries sorted by path, drops true duplicates (same
//     settings, `@`-prefixed ones included, and the same build) with a
//     warning, and lists the
//     variables: non-`@` settings with more than one value.
//
// Nothing here fails on a bad artifact: a broken file is a warning on its
// entry, and the other entries are parsed.
package store
