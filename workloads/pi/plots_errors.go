package pi

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// stderrLines is how many last lines of stderr.log the error report shows.
const stderrLines = 15

// lastLines returns the last n lines of s, without a trailing newline.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// stderrTail is the end of a run's stderr: from the parse when the entry was
// parsed, else read now (an incomplete run is not parsed, but its stderr
// often tells why it stopped).
func stderrTail(e *store.Entry) string {
	if r, ok := e.Results.(*Results); ok && r != nil {
		return lastLines(r.StderrTail, stderrLines)
	}
	if e.Dir == "" {
		return ""
	}
	data, err := parsers.ReadTail(filepath.Join(e.Dir, StderrFile), LogTailBytes)
	if err != nil {
		return ""
	}
	return lastLines(logText(data), stderrLines)
}

func warningsText(e *store.Entry) string { return strings.Join(e.Warnings, "\n") }

func errorReport(ctx *plotting.Context) (*plotting.Page, error) {
	page := &plotting.Page{Title: ReportErrors}
	failed := &plotting.Table{Caption: "Failed runs (non-zero exit code)", Columns: []string{"run", "exit code", "warnings", "last lines of stderr"}}
	incomplete := &plotting.Table{Caption: "Incomplete runs (no readable exit_code: interrupted, or still running)", Columns: []string{"run", "warnings", "last lines of stderr"}}
	unmeasured := &plotting.Table{Caption: "Runs that exited 0 without a usable measurement", Columns: []string{"run", "warnings"}}
	warned := &plotting.Table{Caption: "Successful runs with warnings", Columns: []string{"run", "warnings"}}
	ok := 0
	for _, e := range ctx.Entries {
		r, _ := e.Results.(*Results)
		path := plotting.Text(e.Path)
		warns := plotting.Cell{Text: warningsText(e), Pre: true}
		switch {
		case !e.Complete:
			incomplete.AddRow(path, warns, plotting.Cell{Text: stderrTail(e), Pre: true})
		case e.ExitCode == nil || *e.ExitCode != 0:
			code := "unknown"
			if e.ExitCode != nil {
				code = fmt.Sprint(*e.ExitCode)
			}
			failed.AddRow(path, plotting.Cell{Text: code, Num: true, Class: "bad"}, warns, plotting.Cell{Text: stderrTail(e), Pre: true})
		case r == nil || r.PI == nil || !(r.PI.Result.Elapsed > 0):
			unmeasured.AddRow(path, warns)
		default:
			ok++
			if len(e.Warnings) > 0 {
				warned.AddRow(path, warns)
			}
		}
	}
	page.Summary = fmt.Sprintf("%d entries: %d successful, %d failed, %d incomplete, %d without a measurement. "+
		"Failed and incomplete runs are left out of every figure; their settings still count in the tables of settings.",
		len(ctx.Entries), ok, len(failed.Rows), len(incomplete.Rows), len(unmeasured.Rows))
	for _, s := range []struct {
		title string
		t     *plotting.Table
	}{{"Failed runs", failed}, {"Incomplete runs", incomplete}, {"Runs without a measurement", unmeasured}, {"Warnings", warned}} {
		if len(s.t.Rows) > 0 {
			page.Sections = append(page.Sections, plotting.Section{Title: s.title, Tables: []*plotting.Table{s.t}})
		}
	}
	if len(page.Sections) == 0 {
		page.Sections = []plotting.Section{{Title: "No errors", Text: fmt.Sprintf("Every one of the %d runs exited 0 with a measurement and no warning.", ok)}}
	}
	return page, nil
}
