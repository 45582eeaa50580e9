package texttable

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mitchellh/go-wordwrap"
)

// Width is the width, in columns, that tables and notes fit: a terminal's
// usual 100, whatever the output is (the text of a CI log is read in a
// terminal-sized pane too).
const Width = 100

// gap separates columns.
const gap = "  "

// Table is a table of text cells: a header and rows, written aligned. A
// row of one cell in a table of several columns spans the table: it heads
// the rows below it (an entry above its KPIs), is cut to Width and sets no
// column's width.
type Table struct {
	Header []string
	Rows   [][]string
	// Cut lists the columns whose cells may be cut to fit Width (those of
	// labels, names, paths), widest first; the others (numbers, statuses)
	// are never cut, so a table may stay wider when they alone are.
	Cut []int
	// Right aligns the cells of these columns to the right (numbers).
	Right []int
}

// minCut is the narrowest a cut column becomes: what is left must still
// tell something.
const minCut = 12

// Write writes the table, cutting cells as Cut allows so that no line is
// wider than Width; the last column is not padded.
func (t *Table) Write(w io.Writer) error {
	widths := t.widths()
	total := len(gap) * (len(widths) - 1)
	for _, n := range widths {
		total += n
	}
	for total > Width {
		// Narrow the widest column that may be cut, by one column at a
		// time: the widest ones shrink first and end equal.
		best := -1
		for _, c := range t.Cut {
			if c < len(widths) && widths[c] > max(minCut, runes(header(t.Header, c))) && (best < 0 || widths[c] > widths[best]) {
				best = c
			}
		}
		if best < 0 {
			break
		}
		widths[best]--
		total--
	}
	var b strings.Builder
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		if row == nil {
			continue
		}
		if t.spans(row) {
			if _, err := fmt.Fprintln(w, strings.TrimRight(Cut(row[0], Width), " ")); err != nil {
				return err
			}
			continue
		}
		b.Reset()
		for i, cell := range row {
			cell = Cut(cell, widths[i])
			pad := strings.Repeat(" ", widths[i]-runes(cell))
			if i == len(row)-1 && !slices.Contains(t.Right, i) {
				b.WriteString(cell)
				break
			}
			if slices.Contains(t.Right, i) {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
			if i < len(row)-1 {
				b.WriteString(gap)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// spans tells whether a row spans the table.
func (t *Table) spans(row []string) bool { return len(row) == 1 && len(t.Header) > 1 }

func header(h []string, i int) string {
	if i < len(h) {
		return h[i]
	}
	return ""
}

// widths are the widths of the columns: their widest cell.
func (t *Table) widths() []int {
	var widths []int
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		if t.spans(row) {
			continue
		}
		for i, cell := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], runes(cell))
		}
	}
	return widths
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// Cut shortens s to n columns, its end replaced by an ellipsis.
func Cut(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ,") + "…"
}

// Common splits label sets into the labels every set has with one value,
// and the names of the others (in some sets only, or with several values),
// sorted: the first are said once above a table, the second name its rows.
func Common(sets []map[string]string) (common map[string]string, varying []string) {
	common = map[string]string{}
	names := map[string]bool{}
	for _, s := range sets {
		for k := range s {
			names[k] = true
		}
	}
	for k := range names {
		v, same := "", true
		for i, s := range sets {
			sv, ok := s[k]
			if !ok || (i > 0 && sv != v) {
				same = false
				break
			}
			v = sv
		}
		if same {
			common[k] = v
		} else {
			varying = append(varying, k)
		}
	}
	slices.Sort(varying)
	return common, varying
}

// WriteCommon writes labels as benchstat writes the configuration its
// results share: one "key: value" line each, sorted, each fitted to Width.
func WriteCommon(w io.Writer, labels map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if _, err := fmt.Fprintln(w, Cut(k+": "+labels[k], Width)); err != nil {
			return err
		}
	}
	return nil
}

// Notes numbers the prose that would make a table too wide: a row shows
// its note's mark ("[2]"), the text goes below the table once however many
// rows share it.
type Notes struct {
	texts []string
}

// Mark returns the mark of a note, numbering it when new; "" for no note.
func (n *Notes) Mark(text string) string {
	if text == "" {
		return ""
	}
	i := slices.Index(n.texts, text)
	if i < 0 {
		n.texts = append(n.texts, text)
		i = len(n.texts) - 1
	}
	return fmt.Sprintf("[%d]", i+1)
}

// Write writes the notes in order, each wrapped to Width with its
// continuation lines indented under its text.
func (n *Notes) Write(w io.Writer) error {
	for i, text := range n.texts {
		mark := fmt.Sprintf("[%d] ", i+1)
		indent := strings.Repeat(" ", len(mark))
		lines := strings.Split(wordwrap.WrapString(strings.TrimSpace(text), uint(Width-len(mark))), "\n")
		for j, l := range lines {
			prefix := mark
			if j > 0 {
				prefix = indent
			}
			if _, err := fmt.Fprintln(w, prefix+l); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteWrapped writes a line of prose wrapped to Width, the lines after
// the first indented by two spaces.
func WriteWrapped(w io.Writer, text string) error {
	for i, l := range strings.Split(wordwrap.WrapString(text, Width-2), "\n") {
		if i > 0 {
			l = "  " + l
		}
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// Len is the number of notes.
func (n *Notes) Len() int { return len(n.texts) }
