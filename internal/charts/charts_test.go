package charts

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestInlineHasNoEndTag: the inlined files hold no "</script" or
// "</style", which would end their element early and show the rest of the
// script as text on every static page.
func TestInlineHasNoEndTag(t *testing.T) {
	t.Parallel()
	s := strings.ToLower(string(Inline()))
	if n := strings.Count(s, "</script"); n != 2 {
		t.Errorf("%d </script end tags in the inlined charts, want the 2 of their own elements", n)
	}
	if n := strings.Count(s, "</style"); n != 1 {
		t.Errorf("%d </style end tags in the inlined charts, want 1", n)
	}
	for _, want := range []string{"uPlot 1.6.32", "SeshatCharts"} {
		if !strings.Contains(string(Inline()), want) {
			t.Errorf("the inlined charts lack %q", want)
		}
	}
}

// TestDrawable: points JSON cannot carry (NaN, infinities) are left out,
// and a chart with no point left is nil, so a page falls back to its SVG
// instead of failing to write.
func TestDrawable(t *testing.T) {
	t.Parallel()
	c := &Chart{ID: "c", Series: []Series{{Name: "s", Points: []Point{{X: 0, Y: 1, Lo: Range(math.NaN())}, {X: 1, Y: math.NaN()}}}},
		Marks: []Mark{{X: math.Inf(1), Kind: MarkChange}, {X: 0, Kind: MarkRegression}}}
	d := c.Drawable()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("the drawable chart does not marshal: %v", err)
	}
	if got := len(d.Series[0].Points); got != 1 || len(d.Marks) != 1 {
		t.Errorf("kept %d points and %d marks, want 1 and 1: %s", got, len(d.Marks), b)
	}
	// A series with no point is no legend entry (the script read its
	// points as an array and stopped on null: the A/B report drew none).
	c.Series = append([]Series{{Name: "history"}}, c.Series...)
	if d := c.Drawable(); len(d.Series) != 1 || d.Series[0].Name != "s" {
		t.Errorf("series %+v, want s alone", d.Series)
	}
	empty := &Chart{Series: []Series{{Name: "s", Points: []Point{{X: 0, Y: math.Inf(-1)}}}}}
	if empty.Drawable() != nil {
		t.Error("a chart with no finite point is drawable, want nil")
	}
}
