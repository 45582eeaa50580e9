package plotting

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimeTicksReadable: whatever the span, a time axis gets a few
// labelled ticks, at calendar boundaries, no two labels alike.
func TestTimeTicksReadable(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 12, 30, 21, 47, 13, 0, time.UTC)
	tests := []struct {
		span  time.Duration
		first string // the first label
	}{
		{40 * time.Second, "21:47:20\n2025-12-30"},
		{10 * time.Minute, "21:48\n2025-12-30"},
		{90 * time.Minute, "22:00\n2025-12-30"},
		{5 * time.Hour, "22:00\n2025-12-30"}, // crosses midnight
		{40 * time.Hour, "00:00\n2025-12-31"},
		{3 * 24 * time.Hour, "Dec 31\n2025"},
		{12 * 24 * time.Hour, "Jan 1\n2026"},
		{45 * 24 * time.Hour, "Jan 5\n2026"},
		{100 * 24 * time.Hour, "Jan 1\n2026"},
		{200 * 24 * time.Hour, "Jan\n2026"},
		{800 * 24 * time.Hour, "2026"},
		{30 * 365 * 24 * time.Hour, "2030"},
	}
	for _, tt := range tests {
		t.Run(tt.span.String(), func(t *testing.T) {
			t.Parallel()
			lo, hi := unixSeconds(start), unixSeconds(start.Add(tt.span))
			ticks := TimeTicks{}.Ticks(lo, hi)
			var labels []string
			for i, tk := range ticks {
				if tk.Value < lo || tk.Value > hi {
					t.Errorf("tick %v outside [%v, %v]", tk.Value, lo, hi)
				}
				if i > 0 && tk.Value <= ticks[i-1].Value {
					t.Errorf("ticks not increasing at %d", i)
				}
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if len(labels) < 2 || len(labels) > DefaultTimeLabels {
				t.Errorf("%d labels %q, want 2 to %d", len(labels), labels, DefaultTimeLabels)
			}
			if len(labels) > 0 && labels[0] != tt.first {
				t.Errorf("first label %q, want %q (all: %q)", labels[0], tt.first, labels)
			}
			sorted := slices.Clone(labels)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != len(labels) {
				t.Errorf("labels repeat: %q", labels)
			}
		})
	}
}

// Hours over two days repeat as text: every label then names its day.
func TestTimeTicksRepeatsGetTheirDay(t *testing.T) {
	t.Parallel()
	lo := unixSeconds(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))
	hi := lo + 36*3600
	var labels []string
	for _, tk := range (TimeTicks{Max: 8}).Ticks(lo, hi) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	for _, l := range labels {
		if !strings.Contains(l, "\n2025-03-0") {
			t.Errorf("label %q lacks its day (all %q)", l, labels)
		}
	}
}

func TestBuildTicks(t *testing.T) {
	t.Parallel()
	labels := make([]string, 30)
	for i := range labels {
		labels[i] = BuildLabel("", "", "v"+string(rune('a'+i%26)))
	}
	ticks := BuildTicks{Labels: DistinctLabels(labels), Max: 10}.Ticks(-0.5, 29.5)
	var named []int
	for _, tk := range ticks {
		if tk.Label != "" {
			named = append(named, int(tk.Value))
		}
	}
	if len(ticks) != 30 || len(named) != 10 || named[len(named)-1] != 29 || ticks[29].Label != "vd #2" {
		t.Errorf("%d ticks, labelled %v (last %q)", len(ticks), named, ticks[29].Label)
	}
	for _, tt := range []struct{ commit, build, cmp, want string }{
		{"0123456789abcdef", "ci-1", "v1", "0123456"},
		{"", "ci-1", "v1", "ci-1"},
		{"", "run:6f1c2a4e-8b1d", "v1", "run 6f1c2a4e"},
		{"", "", "v1", "v1"},
		{"", "nightly-2026-01-01-linux", "", "nightly-2026-…"},
	} {
		if got := BuildLabel(tt.commit, tt.build, tt.cmp); got != tt.want {
			t.Errorf("BuildLabel(%q, %q, %q) = %q, want %q", tt.commit, tt.build, tt.cmp, got, tt.want)
		}
	}
}

// Numbers read as the tables write them: no exponent, no repeated label.
func TestNumberTicks(t *testing.T) {
	t.Parallel()
	for _, r := range [][2]float64{{0.9995, 1.0005}, {6.7e7, 6.8e7}, {-33, 10}, {0, 1e9}, {2e-7, 9e-7}, {410, 412}} {
		var labels []string
		for _, tk := range (NumberTicks{Signed: true}).Ticks(r[0], r[1]) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		sorted := slices.Clone(labels)
		slices.Sort(sorted)
		if len(labels) < 2 || len(labels) > 7 || len(slices.Compact(sorted)) != len(labels) {
			t.Errorf("%v: labels %q", r, labels)
		}
		for _, l := range labels {
			if strings.ContainsAny(l, "eE") || l == "-0" || l == "+0" {
				t.Errorf("%v: label %q", r, l)
			}
		}
	}
}
