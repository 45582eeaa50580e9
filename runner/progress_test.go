package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// frames splits what a bar wrote into the lines it drew.
func frames(out string) []string {
	var fs []string
	for _, f := range regexp.MustCompile("\r|\n").Split(out, -1) {
		if f = strings.TrimSuffix(f, "\x1b[K"); strings.TrimSpace(f) != "" {
			fs = append(fs, f)
		}
	}
	return fs
}

var barCells = regexp.MustCompile(`\[[=> ]+\]`)

// TestBarProgressDrawsABar: in a terminal of 80 and 200 columns the bar has
// cells, the line fits the width, and the long run directory is cut to fit
// rather than squeezing the bar to nothing.
func TestBarProgressDrawsABar(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 200} {
		var buf bytes.Buffer
		opts := runOpts(t, t.TempDir(), "expe:\n  a_rather_long_experiment_name_for_a_terminal:\n    helper: [exit 0, exit 1]\n    some_long_setting_name: [a_long_value_to_fill_the_line, another_long_value]\n")
		opts.Progress = &BarProgress{W: &buf, ResultsDir: opts.ResultsDir, Width: func() int { return width }}
		Run(context.Background(), opts)
		fs := frames(buf.String())
		if len(fs) == 0 {
			t.Fatalf("width %d: nothing drawn", width)
		}
		for _, f := range fs {
			if len(f) > width-1 {
				t.Errorf("width %d: a %d-column line would wrap: %q", width, len(f), f)
			}
			m := barCells.FindString(f)
			if len(m) < 12 {
				t.Errorf("width %d: no bar of at least 10 cells in %q", width, f)
			}
		}
		if last := fs[len(fs)-1]; !strings.Contains(last, "4/4") || !strings.Contains(last, "2 failed") {
			t.Errorf("width %d: last line %q", width, last)
		}
	}
}

// TestBarLineGolden pins the drawn line at fixed widths (go test -update
// rewrites testdata/progress.golden).
func TestBarLineGolden(t *testing.T) {
	t.Parallel()
	states := []barState{
		{done: 12, total: 40, failed: 2, elapsed: 130 * time.Second, left: 320 * time.Second, leftKnown: true,
			current: "test2_gonum/017__matrix_size=1024_repeat=1"},
		{done: 0, total: 126, elapsed: 3 * time.Second, current: "test1_gonum/000__repetitions=20_repeat=0"},
		{done: 126, total: 126, failed: 0, elapsed: 2*time.Hour + 5*time.Minute, leftKnown: true},
	}
	var b strings.Builder
	for _, width := range []int{200, 80, 40, 20} {
		for i, s := range states {
			line := renderBar(width, s)
			if len(line) > width-1 {
				t.Errorf("width %d state %d: %d columns: %q", width, i, len(line), line)
			}
			b.WriteString(strings.Repeat("-", width-1) + "\n" + line + "\n")
		}
	}
	golden := filepath.Join("testdata", "progress.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("drawn lines differ from %s (go test -update to accept):\n%s", golden, b.String())
	}
}

// TestEstimatorTimesEachPoint: a 1024 run taking ten times a 128 one, the
// time left counts each point at its own duration, not the average.
func TestEstimatorTimesEachPoint(t *testing.T) {
	t.Parallel()
	var plan []Planned
	for r := 0; r < 3; r++ {
		for _, n := range []int{128, 1024} {
			plan = append(plan, Planned{Point: Point{Experiment: "e", Settings: map[string]any{"matrix_size": n, "@repeat": r}}})
		}
	}
	took := map[int]time.Duration{128: time.Second, 1024: 10 * time.Second}
	e := newEstimator(plan)
	if _, ok := e.remaining(0, 0); ok {
		t.Error("an estimate before any run finished")
	}
	for i := 0; i < 3; i++ { // 128, 1024, 128
		e.observe(plan[i], took[plan[i].Settings["matrix_size"].(int)])
	}
	// Running plan[3] (1024) for 4 s: 6 s of it left, then 128 and 1024.
	left, ok := e.remaining(3, 4*time.Second)
	if want := 6*time.Second + time.Second + 10*time.Second; !ok || left != want {
		t.Errorf("left %v (known %v), want %v", left, ok, want)
	}
	// A point never run is timed like its nearest run neighbour: same
	// settings but the size, the closest size.
	plan = append(plan, Planned{Point: Point{Experiment: "e", Settings: map[string]any{"matrix_size": 900, "@repeat": 0}}})
	e = newEstimator(plan)
	e.observe(plan[0], time.Second)
	e.observe(plan[1], 10*time.Second)
	if left, ok := e.remaining(len(plan)-1, 0); !ok || left != 10*time.Second {
		t.Errorf("unseen size 900: %v (known %v), want the 1024 run's 10s", left, ok)
	}
	// Skipped points take no time.
	plan[len(plan)-1].Skip = true
	if left, _ := e.remaining(len(plan)-1, 0); left != 0 {
		t.Errorf("skipped point: %v left", left)
	}
}
