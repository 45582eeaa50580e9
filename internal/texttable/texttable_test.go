package texttable

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

const blasPath = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so,/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"

// checkWidth fails on a line wider than Width.
func checkWidth(t *testing.T, text string) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line of %d columns, over %d:\n%s", n, Width, l)
		}
	}
}

// TestTableFits: a table too wide cuts the cells of the columns it may
// cut, never the numbers, and keeps the columns aligned.
func TestTableFits(t *testing.T) {
	t.Parallel()
	tab := Table{
		Header: []string{"#", "ENTRY", "VALUE", "NOTE"},
		Rows: [][]string{
			{"kpi heading that spans the table " + blasPath},
			{"1", "blas=" + blasPath + " matrix_size=128", "412.7", "[1]"},
			{"10", "matrix_size=256", "1234567.25", ""},
		},
		Cut:   []int{1},
		Right: []int{0, 2},
	}
	var b bytes.Buffer
	if err := tab.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out)
	}
	if !strings.HasSuffix(lines[1], "…") || !strings.HasPrefix(lines[1], "kpi heading that spans") {
		t.Errorf("spanning row not cut to the width: %q", lines[1])
	}
	if !strings.Contains(lines[2], "…  ") || !strings.Contains(lines[2], "412.7  [1]") {
		t.Errorf("entry cell not cut, or the value with it: %q", lines[2])
	}
	if !strings.Contains(lines[3], "1234567.25") || !strings.HasPrefix(lines[3], "10  matrix_size=256 ") {
		t.Errorf("short row changed: %q", lines[3])
	}
	// Right-aligned numbers end in one column.
	end := func(line, cell string) int { return utf8.RuneCountInString(line[:strings.Index(line, cell)+len(cell)]) }
	if end(lines[2], "412.7") != end(lines[3], "1234567.25") {
		t.Errorf("values not right-aligned:\n%s\n%s", lines[2], lines[3])
	}
}

// TestTableNarrowIsUnchanged: a table that fits is written as is.
func TestTableNarrowIsUnchanged(t *testing.T) {
	t.Parallel()
	tab := Table{Header: []string{"A", "B"}, Rows: [][]string{{"x", "1"}, {"long", "22"}}, Cut: []int{0}}
	var b bytes.Buffer
	if err := tab.Write(&b); err != nil {
		t.Fatal(err)
	}
	if want := "A     B\nx     1\nlong  22\n"; b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestCommon(t *testing.T) {
	t.Parallel()
	common, varying := Common([]map[string]string{
		{"os": "debian 12", "blas": "openblas 0.3.21", "size": "128", "only": "here"},
		{"os": "debian 12", "blas": "openblas 0.3.21", "size": "256"},
	})
	if len(common) != 2 || common["os"] != "debian 12" || common["blas"] != "openblas 0.3.21" {
		t.Errorf("common = %v", common)
	}
	if strings.Join(varying, ",") != "only,size" {
		t.Errorf("varying = %v, want only,size", varying)
	}
	var b bytes.Buffer
	if err := WriteCommon(&b, common); err != nil {
		t.Fatal(err)
	}
	if b.String() != "blas: openblas 0.3.21\nos: debian 12\n" {
		t.Errorf("WriteCommon wrote %q", b.String())
	}
}

// TestNotes: a note shared by rows has one mark; long notes wrap within
// the width, under their text.
func TestNotes(t *testing.T) {
	t.Parallel()
	var n Notes
	long := strings.Repeat("too noisy to judge: changes under 68.3% cannot be told from this series' noise ", 3)
	marks := []string{n.Mark("no history for this KPI"), n.Mark(long), n.Mark("no history for this KPI"), n.Mark("")}
	if strings.Join(marks, ",") != "[1],[2],[1]," {
		t.Errorf("marks %v", marks)
	}
	var b bytes.Buffer
	if err := n.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "[1] no history for this KPI" || !strings.HasPrefix(lines[1], "[2] too noisy") || len(lines) < 4 || !strings.HasPrefix(lines[2], "    ") {
		t.Errorf("notes:\n%s", out)
	}
	if got := strings.Join(strings.Fields(strings.Join(lines[1:], " ")), " "); got != "[2] "+strings.TrimSpace(long) {
		t.Errorf("wrapping changed the text: %q", got)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 4, "abc…"},
		{"a, b, c", 4, "a…"},
		{"±±±±", 2, "±…"},
		{"abc", 1, "…"},
	} {
		if got := Cut(tt.in, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
