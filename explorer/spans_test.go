package explorer

import (
	"slices"
	"testing"
	"time"
)

// TestBuildSpans: a build read in spans of its time (one a core) reads
// each of its runs in exactly one span, however its runs' starts fall.
func TestBuildSpans(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(minutes ...int) []time.Time {
		var out []time.Time
		for _, m := range minutes {
			out = append(out, t0.Add(time.Duration(m)*time.Minute))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		times []time.Time
		cores int
		spans int
	}{
		{"one core", at(0, 1, 2, 3, 4, 5), 1, 1},
		{"few runs", at(0, 1, 2), 2, 1},
		{"even", at(0, 1, 2, 3, 4, 5, 6, 7), 2, 2},
		{"four cores", at(0, 1, 2, 3, 4, 5, 6, 7, 8), 4, 4},
		{"starts shared at the cut", at(0, 1, 1, 1, 1, 1, 2, 3), 2, 2},
		{"one start", at(5, 5, 5, 5, 5, 5), 2, 1},
		{"the cuts at one start", at(0, 3, 3, 3, 3, 3, 3, 3, 3), 4, 2},
	} {
		spans := buildSpans(&build{ID: "b", times: tc.times}, tc.cores)
		if len(spans) != tc.spans {
			t.Errorf("%s: %d spans, want %d", tc.name, len(spans), tc.spans)
		}
		for i, ts := range tc.times {
			in := 0
			for _, q := range spans {
				if !slices.Equal(q.Builds, []string{"b"}) {
					t.Errorf("%s: a span of builds %v", tc.name, q.Builds)
				}
				if !ts.Before(q.Since) && (q.Until.IsZero() || ts.Before(q.Until)) {
					in++
				}
			}
			if in != 1 {
				t.Errorf("%s: run %d (%v) in %d spans, want 1", tc.name, i, ts, in)
			}
		}
	}
}
