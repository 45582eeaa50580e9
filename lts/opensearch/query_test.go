package opensearch

import (
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
)

// TestSearchQueryUntilInsideAMillisecond: the exclusive upper bound of a
// query that falls inside a millisecond keeps the runs that started in it
// before the bound (stored starts have milliseconds): a build's last run
// is not left out of `compare build:ID`.
func TestSearchQueryUntilInsideAMillisecond(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 26, 12, 0, 0, 123_400_000, time.UTC) // 12:00:00.1234
	for _, tc := range []struct {
		until time.Time
		want  string
	}{
		{start.Add(time.Nanosecond), "2026-11-26T12:00:00.124Z"},
		{start.Truncate(time.Millisecond), "2026-11-26T12:00:00.123Z"},
	} {
		q := searchQuery(lts.Query{Until: tc.until})
		r := q["bool"].(map[string]any)["filter"].([]any)[0].(map[string]any)["range"].(map[string]any)["metadata.start"].(map[string]any)
		if r["lt"] != tc.want {
			t.Errorf("until %s: lt %v, want %s", tc.until.Format(time.RFC3339Nano), r["lt"], tc.want)
		}
	}
}
