package runner

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress is told about each run of a matrix.
type Progress interface {
	Start(total int)
	Begin(i int, p Planned)
	End(i int, p Planned, o Outcome)
	Skipped(i int, p Planned)
	Finish()
}

type nopProgress struct{}

func (nopProgress) Start(int)                 {}
func (nopProgress) Begin(int, Planned)        {}
func (nopProgress) End(int, Planned, Outcome) {}
func (nopProgress) Skipped(int, Planned)      {}
func (nopProgress) Finish()                   {}

// LogProgress writes one plain line per run start and end: for logs and
// CI, where a redrawn bar would be noise.
type LogProgress struct {
	W          io.Writer
	ResultsDir string
	Timeout    time.Duration
	total      int
}

func (l *LogProgress) rel(dir string) string { return relTo(l.ResultsDir, dir) }

// relTo shows dir relative to the results directory, whichever of the two
// is absolute.
func relTo(base, dir string) string {
	ab, err1 := filepath.Abs(base)
	ad, err2 := filepath.Abs(dir)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(ab, ad); err == nil {
			return r
		}
	}
	return dir
}

// Start implements Progress.
func (l *LogProgress) Start(total int) { l.total = total }

// Begin implements Progress.
func (l *LogProgress) Begin(i int, p Planned) {
	fmt.Fprintf(l.W, "seshat run: [%d/%d] %s: started\n", i+1, l.total, l.rel(p.Dir))
}

// End implements Progress.
func (l *LogProgress) End(i int, p Planned, o Outcome) {
	fmt.Fprintf(l.W, "seshat run: [%d/%d] %s: %s (%.1f s)\n", i+1, l.total, l.rel(p.Dir), o.Describe(l.Timeout), o.End.Sub(o.Start).Seconds())
}

// Skipped implements Progress.
func (l *LogProgress) Skipped(i int, p Planned) {
	fmt.Fprintf(l.W, "seshat run: [%d/%d] %s/%s: already complete, skipped\n", i+1, l.total, p.Experiment, p.Slug())
}

// Finish implements Progress.
func (l *LogProgress) Finish() {}

// BarProgress draws a progress bar on a terminal.
type BarProgress struct {
	W          io.Writer
	ResultsDir string
	bar        *progressbar.ProgressBar
	failed     int
}

// Start implements Progress.
func (b *BarProgress) Start(total int) {
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(b.W),
		progressbar.OptionSetDescription("runs"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionFullWidth(),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.W) }),
	)
}

// Begin implements Progress.
func (b *BarProgress) Begin(_ int, p Planned) {
	rel := relTo(b.ResultsDir, p.Dir)
	if b.failed > 0 {
		rel = fmt.Sprintf("%s (%d failed so far)", rel, b.failed)
	}
	b.bar.Describe(rel)
}

// End implements Progress.
func (b *BarProgress) End(_ int, _ Planned, o Outcome) {
	if o.ExitCode != 0 && !o.Interrupted {
		b.failed++
	}
	if !o.Interrupted {
		b.bar.Add(1)
	}
}

// Skipped implements Progress.
func (b *BarProgress) Skipped(int, Planned) { b.bar.Add(1) }

// Finish implements Progress.
func (b *BarProgress) Finish() {
	if !b.bar.IsFinished() {
		fmt.Fprintln(b.W)
	}
}
