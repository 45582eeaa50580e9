// Package store turns a results directory into a Matrix of entries.
//
// Data flows in four steps:
//
//  1. Discover walks the results directory for test roots (directories with a
//     settings.yaml), honouring `skip` files, ignoring roots nested in roots,
//     following symlinks with loop protection.
//  2. Each root's settings are merged from settings.*.yaml files of its
//     parents, parent first, then its own files; filters select roots.
//  3. Each selected, complete root is parsed by its workload's Parser:
//     parse-once results come from a per-root cache (.seshat_cache.json)
//     when the parser version and the size and mtime of every file they were
//     read from are unchanged; parse-always runs every time. Roots are parsed
//     in parallel, bounded by GOMAXPROCS.
//  4. The Matrix keeps entries sorted by path, drops true duplicates (same
//     settings, `@`-prefixed ones included) with a warning, and lists the
//     variables: non-`@` settings with more than one value.
//
// Nothing here fails on a bad artifact: a broken file is a warning on its
// entry, and the other entries are parsed.
package store
