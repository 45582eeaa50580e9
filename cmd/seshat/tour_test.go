package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tourLine is one command of README's short tour: its words, the file its
// stdout is redirected to, and the exit status its comment states.
type tourLine struct {
	text   string
	args   []string
	stdout string
	exit   int
}

var tourExit = regexp.MustCompile(`\bexit (\d+)\b`)

// readTour returns the commands of the first sh block of README's "A short
// tour": lines continued with a backslash joined, comments cut (the exit
// status one states kept, 0 when none does), blank and comment lines left
// out.
func readTour(t *testing.T, readme string) []tourLine {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## A short tour\n")
	if !ok {
		t.Fatal(`README.md has no "## A short tour" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the short tour has no ```sh block")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("the short tour's sh block is not closed")
	}
	var lines []tourLine
	var cont string
	for _, raw := range strings.Split(block, "\n") {
		code, comment, _ := strings.Cut(raw, "#")
		if strings.TrimSpace(code) == "" {
			continue
		}
		code = cont + code
		if strings.HasSuffix(strings.TrimRight(raw, " "), `\`) {
			cont = strings.TrimSuffix(strings.TrimRight(code, " "), `\`) + " " // every line so far
			continue
		}
		cont = ""
		l := tourLine{text: strings.Join(strings.Fields(code), " ")}
		if m := tourExit.FindStringSubmatch(comment); m != nil {
			l.exit, _ = strconv.Atoi(m[1])
		}
		words := strings.Fields(code)
		if i := slices.Index(words, ">"); i >= 0 {
			if i != len(words)-2 {
				t.Fatalf("tour line %q: a redirection the test does not know", l.text)
			}
			l.stdout, words = words[i+1], words[:i]
		}
		l.args = words
		lines = append(lines, l)
	}
	if cont != "" {
		t.Fatalf("the tour's last line %q ends with a backslash", cont)
	}
	return lines
}

// TestTour runs README's short tour as a newcomer pastes it, in a
// directory holding only the files it names, and checks the exit status
// each line's comment states. The build lines (go build, export) are what
// the test binary already is; every seshat line runs through runSeshat.
//
// The tour's benchmark is the demo's (examples/demo.yaml) with matrices of
// 96 and 128 in place of 128, 256 and 512: the large products take most of
// the time of the runs and change no exit status, float64 doing 55-65% of
// float32's GFLOPS at every size (128 stays, for the tour's history line).
// regressionRow and noisyRow find a result of that status in the table
// (its STATUS column, then its CI column), not the words in the last line.
var (
	regressionRow = regexp.MustCompile(` regression +(fail|pass) `)
	noisyRow      = regexp.MustCompile(` noisy +skip `)
)

func TestTour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 40 PIs")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := readTour(t, string(readme))
	if len(lines) < 10 {
		t.Fatalf("the tour has %d commands, want the demo's steps:\n%+v", len(lines), lines)
	}

	const sizes = "matrix_size: [128, 256, 512]"
	if strings.Count(string(demo), sizes) != 2 {
		t.Fatalf("examples/demo.yaml no longer sets %q in both stacks: update TestTour", sizes)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("examples", 0o755)
	if err := os.WriteFile(filepath.Join("examples", "demo.yaml"), []byte(strings.ReplaceAll(string(demo), sizes, "matrix_size: [96, 128]")), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, l := range lines {
		switch l.args[0] {
		case "go", "export":
			continue
		case "seshat":
		default:
			t.Fatalf("tour line %q: the test runs seshat, go build and export lines only", l.text)
		}
		res := runSeshat(t, nil, l.args[1:]...)
		if l.stdout != "" {
			if err := os.WriteFile(l.stdout, []byte(res.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if res.code == l.exit {
			t.Logf("%s: exit %d", l.text, res.code)
			continue
		}
		// The tour says so: on a host so busy that its nights differ by
		// as much as float64 from float32, every result is noisy.
		if l.args[1] == "regression" && l.exit == 2 && res.code == 0 &&
			!regressionRow.MatchString(res.stdout) && noisyRow.MatchString(res.stdout) {
			t.Logf("%s: exit 0, every change noisy (a busy host):\n%s", l.text, res.stdout)
			continue
		}
		t.Fatalf("%s: exit %d, the tour says %d\nstdout:\n%s\nstderr:\n%s", l.text, res.code, l.exit, res.stdout, res.stderr)
	}

	for _, f := range []string{
		"seshat-tour/night-3/stack_a", "seshat-tour/matrix.json", "seshat-tour/lts.json", "seshat-tour/kpis.om",
		".seshat/lts.db", "seshat-tour/regression/regression_report.html", "seshat-tour/regression/summary.md",
		"seshat-tour/reports/reports_index.html", "seshat-tour/reports/kpi_history.html",
	} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the tour's files: %v", err)
		}
	}
	// The index links the tour's regression report, found beside it, and
	// the report links back to the index (--reports-index).
	if index, _ := os.ReadFile("seshat-tour/reports/reports_index.html"); !strings.Contains(string(index), `href="../regression/regression_report.html"`) {
		t.Error("seshat-tour/reports/reports_index.html does not link ../regression/regression_report.html")
	}
	if report, _ := os.ReadFile("seshat-tour/regression/regression_report.html"); !strings.Contains(string(report), `href="../reports/reports_index.html"`) {
		t.Error("seshat-tour/regression/regression_report.html does not link back to ../reports/reports_index.html")
	}
	if kpis, _ := os.ReadFile("seshat-tour/kpis.om"); !strings.HasSuffix(string(kpis), "# EOF\n") {
		t.Errorf("seshat-tour/kpis.om is not OpenMetrics:\n%s", kpis)
	}
}
