package pi

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// jsonSafe returns a value decoded from YAML in a form encoding/json can
// always write, so that one odd config.yaml never makes a whole cache or
// matrix document unwritable. YAML allows what JSON does not: maps
// with non-string keys get their keys as text (on a clash between, say, 1 and
// "1", the first in sorted order wins, so the result is deterministic);
// .nan, .inf and -.inf become those strings; timestamps become RFC 3339 text
// (a bare date stays a date); invalid UTF-8 is replaced. Everything else is
// returned as it is.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case map[any]any:
		keys := make([]any, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keyText(keys[i], true) < keyText(keys[j], true) })
		out := make(map[string]any, len(x))
		for _, k := range keys {
			name := keyText(k, false)
			if _, clash := out[name]; !clash {
				out[name] = jsonSafe(x[k])
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
		return x
	case time.Time:
		if x.Equal(x.Truncate(24*time.Hour)) && x.Location() == time.UTC {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	}
	return v
}

// keyText renders a YAML map key as a JSON object key; typed adds the type so
// that sorting tells 1 and "1" apart.
func keyText(k any, typed bool) string {
	s := fmt.Sprint(jsonSafe(k))
	if typed {
		return fmt.Sprintf("%T:%s", k, s)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
