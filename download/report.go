package download

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
)

// listedLines bounds each list of the summary: the rest are counted.
const listedLines = 50

// WriteSummary writes what the download did, for a person: where from and
// to, what was listed, what became of the selected files, then each
// missing file and each problem with its URL and reason.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	format := r.Format
	if format == "" {
		format = "no"
	}
	fmt.Fprintf(&b, "%s -> %s (mode %s, %s listing)\n", r.URL, r.Dir, r.Mode, format)
	pages := count(r.Dirs, "directory", "directories")
	if r.Format == "s3" {
		pages = count(r.Dirs, "page", "pages")
	}
	fmt.Fprintf(&b, "listed %s: %s, %s\n", pages, count(r.Listed, "file", "files"),
		count(r.Roots, "test root", "test roots"))
	if r.Mode == CacheOnly {
		fmt.Fprintf(&b, "selected %s: %s present, %s missing\n", count(r.Selected, "file", "files"),
			humanize.Comma(int64(r.Kept)), humanize.Comma(int64(len(r.Missing))))
	} else {
		fmt.Fprintf(&b, "selected %s: %s fetched (%s), %s already present, %s missing\n", count(r.Selected, "file", "files"),
			humanize.Comma(int64(r.Fetched)), humanize.IBytes(uint64(r.Bytes)), humanize.Comma(int64(r.Kept)),
			humanize.Comma(int64(len(r.Missing))))
	}
	list := func(title string, ps []Problem) {
		if len(ps) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for i, p := range ps {
			if i == listedLines {
				fmt.Fprintf(&b, "  ... and %s more\n", humanize.Comma(int64(len(ps)-listedLines)))
				break
			}
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	list("missing", r.Missing)
	list("problems", r.Problems)
	if len(r.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, wa := range r.Warnings {
			switch len(wa.Roots) {
			case 0:
				fmt.Fprintf(&b, "  %s\n", wa.Text)
			case 1:
				fmt.Fprintf(&b, "  %s: %s\n", wa.Roots[0], wa.Text)
			default:
				fmt.Fprintf(&b, "  %s and %s more: %s\n", wa.Roots[0], count(len(wa.Roots)-1, "test root", "test roots"), wa.Text)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(int64(n)) + " " + many
}
