package models

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Filter selects by name and value: a thing matches when every name of the
// filter has one of its values. It is the one filter syntax of seshat, the
// text of --filters, ignored_entries and plots.yaml filters:
//
//	k=v1:v2,k2=v
//
// Commas separate names, colons values; names and values are trimmed of
// spaces and cannot hold ',' or ':' (values) or '=' (either). A name given
// twice adds values to it. What the values are compared with is the
// reader's business, stated in docs/cli.md: settings (package store decodes
// each value as a YAML scalar, so 512 matches the integer 512) or KPI
// labels (package lts compares the strings).
type Filter map[string][]string

// ParseFilter reads the filter syntax. An empty (or blank) text is the empty
// filter, which matches everything. Errors quote the part at fault.
func ParseFilter(s string) (Filter, error) {
	f := Filter{}
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, vals, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		switch {
		case strings.TrimSpace(part) == "":
			return nil, fmt.Errorf("empty filter in %q (stray comma?)", s)
		case !ok:
			return nil, fmt.Errorf("filter %q: want key=value[:value...]", part)
		case k == "":
			return nil, fmt.Errorf("filter %q: empty key", part)
		case strings.Contains(vals, "="):
			return nil, fmt.Errorf("filter %q: more than one '=' (separate filters with ',')", part)
		}
		for _, v := range strings.Split(vals, ":") {
			f[k] = append(f[k], strings.TrimSpace(v))
		}
	}
	return f, nil
}

// Names returns the names of the filter, sorted.
func (f Filter) Names() []string { return slices.Sorted(maps.Keys(f)) }

// CheckLabelNames refuses names that are not label names (snake_case), for
// filters on KPI labels.
func (f Filter) CheckLabelNames() error {
	for _, name := range f.Names() {
		if !IsSnakeCase(name) {
			return fmt.Errorf("filter %s: %q is not a label name (snake_case)", f.format(name), name)
		}
	}
	return nil
}

// Match tells whether labels match: every name of the filter is a label
// whose value is one of the filter's values. The empty filter matches
// everything.
func (f Filter) Match(labels map[string]string) bool {
	for name, values := range f {
		v, ok := labels[name]
		if !ok || !slices.Contains(values, v) {
			return false
		}
	}
	return true
}

// String renders the filter in its syntax, names sorted: ParseFilter reads it
// back as the same filter.
func (f Filter) String() string {
	parts := make([]string, 0, len(f))
	for _, name := range f.Names() {
		parts = append(parts, f.format(name))
	}
	return strings.Join(parts, ",")
}

func (f Filter) format(name string) string { return name + "=" + strings.Join(f[name], ":") }
