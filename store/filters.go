package store

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Filters select entries by setting values: every key must match one of its
// values. The zero value selects everything.
type Filters map[string][]any

// ParseFilters reads the --filters syntax "k=v1:v2,k2=v". Values are decoded
// as YAML scalars, so matrix_size=512 matches the integer 512.
func ParseFilters(s string) (Filters, error) {
	f := Filters{}
	s = strings.TrimSpace(s)
	if s == "" {
		return f, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, vals, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("filter %q: want key=value[:value...]", part)
		}
		for _, raw := range strings.Split(vals, ":") {
			var v any
			if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
				v = raw // not a YAML scalar: compare as text
			}
			if _, isScalar := v.([]any); isScalar {
				v = raw
			}
			if _, isMap := v.(map[string]any); isMap {
				v = raw
			}
			if v == nil && raw != "null" && raw != "~" {
				v = raw
			}
			f[k] = append(f[k], v)
		}
	}
	return f, nil
}

// Match reports whether settings satisfy every filter.
func (f Filters) Match(s Settings) bool {
	for k, want := range f {
		got, ok := s[k]
		if !ok {
			return false
		}
		found := false
		for _, w := range want {
			if EqualValues(got, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// String renders the filters back in --filters syntax, keys sorted.
func (f Filters) String() string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		vs := make([]string, len(f[k]))
		for j, v := range f[k] {
			vs[j] = fmt.Sprint(v)
		}
		parts[i] = k + "=" + strings.Join(vs, ":")
	}
	return strings.Join(parts, ",")
}
