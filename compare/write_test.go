package compare

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/golden"
)

// update rewrites the golden files in testdata instead of comparing:
// go test ./compare -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMarkdownEscapesHostileValues: a markdown table is pasted where
// GitHub renders it (a pull request, a step summary); no entry, KPI, unit,
// side name or warning becomes HTML or Markdown there.
func TestMarkdownEscapesHostileValues(t *testing.T) {
	t.Parallel()
	const img = "<img src=x onerror=alert(1)>"
	side := func(c float64) *Summary { return &Summary{Center: c, Lo: c * 0.9, Hi: c * 1.1, N: 5} }
	tab := &Table{A: "results/`main`" + img, B: "build:``x", Confidence: 0.95, Alpha: 0.05,
		KPIs: []*KPITable{{Workload: "w", KPI: "rate_<b>x</b>", Unit: "req" + img + "/s", Rows: []*Row{{
			Entry: "path=" + img + "|*x*[e](javascript:alert(1))", A: side(100), B: side(150), Delta: 50, P: 0.001, Method: MethodMannWhitney,
			Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN(), Significant: true, Verdict: "better",
			Warnings: []string{"all samples are equal ~~x~~ " + img},
		}}}},
	}
	var b bytes.Buffer
	if err := tab.Write(&b, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, raw := range []string{"[e](", "~~x", "*x*"} {
		if strings.Contains(md, raw) {
			t.Errorf("markdown holds %q unescaped", raw)
		}
	}
	// (The sides' names are code spans, where "<img" is text.)
	for _, line := range strings.Split(md, "\n")[1:] {
		if strings.Contains(line, "<") {
			t.Errorf("a line holds HTML: %s", line)
		}
	}
	golden.Check(t, filepath.Join("testdata", "hostile.markdown"), b.Bytes(), *update)
}
