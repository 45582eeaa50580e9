package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFailedRunSaysWhy: a failing exec command's summary line gives the
// last line of its stderr, not only its exit code; and the error report
// shows its settings as written (the command's ">&2" and "&&"), escaped
// once for HTML, never as JSON's \u003e\u0026.
func TestFailedRunSaysWhy(t *testing.T) {
	t.Parallel()
	bench := writeBenchmark(t, `expe:
  bad:
    pi: exec
    command: [sh, -c, 'echo loading >&2 && echo "error: cannot open model.bin: no such file" >&2; echo >&2; exit 1']
`)
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshat(t, nil, "run", "--benchmark", bench, "--results-dir", results)
	if r.code != 1 {
		t.Fatalf("run: exit %d, want 1\n%s", r.code, r.stderr)
	}
	const why = "seshat run: failed: bad/000__run: exit code 1: error: cannot open model.bin: no such file (command sh -c echo loading >&2 && echo"
	if !strings.Contains(r.stderr, why) {
		t.Errorf("the summary does not say why the run failed: want %q in\n%s", why, r.stderr)
	}

	out := filepath.Join(t.TempDir(), "reports")
	r = runSeshat(t, nil, "visualize", "--results-dir", results, "--output-dir", out, "--generate", "report: Error report")
	if r.code != 0 {
		t.Fatalf("visualize: exit %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "error_report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), `\u00`) {
		t.Errorf("the error report holds JSON escapes:\n%s", regexp.MustCompile(`.{0,60}\\u00.{0,60}`).FindString(string(page)))
	}
	// The page's text, as a browser shows it: tags dropped, entities read once.
	text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(page), ""))
	const setting = `["sh","-c","echo loading >&2 && echo \"error: cannot open model.bin: no such file\" >&2; echo >&2; exit 1"]`
	if !strings.Contains(text, setting) {
		t.Errorf("the error report does not show the command as written, %s", setting)
	}
	if !strings.Contains(text, "error: cannot open model.bin: no such file") {
		t.Error("the error report lacks the run's stderr")
	}
}
