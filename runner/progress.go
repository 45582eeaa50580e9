package runner

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Progress is told about each run of a matrix.
type Progress interface {
	Start(total int)
	Begin(i int, p Planned)
	End(i int, p Planned, o Outcome)
	Skipped(i int, p Planned)
	Finish()
}

// PlanAware is implemented by a Progress that wants the whole plan before
// the first run (to estimate the time left); Run calls SetPlan before Start.
type PlanAware interface {
	SetPlan(plan []Planned)
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

// BarProgress draws one progress line on a terminal, redrawn in place:
//
//	[=========>          ] 12/40  30%  2m10s, ~5m20s left  test2_gonum/017__matrix_size=1024_repeat=1 (2 failed)
//
// The line always fits the terminal: the run directory is cut first, then
// the bar narrows to 10 cells, and on a very narrow terminal only the
// counts remain. The time left is estimated from how long the runs took,
// point by point (see estimator), not from the number of runs. It is drawn
// by hand rather than with a progress bar library: those size the bar from
// the description (a long run directory left no room for the bar at all)
// and estimate from the run count.
type BarProgress struct {
	W          io.Writer
	ResultsDir string
	// Width returns the terminal's width in columns, asked at every redraw
	// so that a resized terminal is followed; nil or 0: 80.
	Width func() int

	mu      sync.Mutex
	est     *estimator
	s       barState
	start   time.Time // of the matrix
	begun   time.Time // of the current run
	running int       // index of the current run, -1 between runs
	stop    chan struct{}
	stopped chan struct{}
}

// barRedraw is how often the line is redrawn between runs' starts and ends
// (the elapsed time and the time left move).
const barRedraw = 500 * time.Millisecond

// SetPlan implements PlanAware: the estimator needs the points to come.
func (b *BarProgress) SetPlan(plan []Planned) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.est = newEstimator(plan)
}

// Start implements Progress.
func (b *BarProgress) Start(total int) {
	b.mu.Lock()
	b.s = barState{total: total}
	b.start, b.running = time.Now(), -1
	if b.est == nil {
		b.est = newEstimator(nil)
	}
	b.stop, b.stopped = make(chan struct{}), make(chan struct{})
	b.drawLocked()
	b.mu.Unlock()
	go func() {
		defer close(b.stopped)
		t := time.NewTicker(barRedraw)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.mu.Lock()
				b.drawLocked()
				b.mu.Unlock()
			}
		}
	}()
}

// Begin implements Progress.
func (b *BarProgress) Begin(i int, p Planned) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running, b.begun = i, time.Now()
	b.s.current = relTo(b.ResultsDir, p.Dir)
	b.drawLocked()
}

// End implements Progress.
func (b *BarProgress) End(_ int, p Planned, o Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running = -1
	if !o.Interrupted {
		b.s.done++
		b.est.observe(p, o.End.Sub(o.Start))
		if o.ExitCode != 0 {
			b.s.failed++
		}
	}
	b.drawLocked()
}

// Skipped implements Progress.
func (b *BarProgress) Skipped(int, Planned) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.done++
	b.drawLocked()
}

// Finish implements Progress: the last line stays, the cursor goes below.
func (b *BarProgress) Finish() {
	close(b.stop)
	<-b.stopped
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.current = ""
	b.drawLocked()
	fmt.Fprintln(b.W)
}

func (b *BarProgress) drawLocked() {
	now := time.Now()
	b.s.elapsed = now.Sub(b.start)
	next, runningFor := b.s.done, time.Duration(0)
	if b.running >= 0 {
		next, runningFor = b.running, now.Sub(b.begun)
	}
	b.s.left, b.s.leftKnown = b.est.remaining(next, runningFor)
	width := 0
	if b.Width != nil {
		width = b.Width()
	}
	if width <= 0 {
		width = 80
	}
	// \r to the line's start, \x1b[K clears what a longer line left.
	fmt.Fprintf(b.W, "\r%s\x1b[K", renderBar(width, b.s))
}

// barState is what one drawn line shows.
type barState struct {
	done, total, failed int
	elapsed             time.Duration
	left                time.Duration
	leftKnown           bool
	current             string // the run in progress, relative to the results directory
}

// Bar cells: between 10 and 40, a quarter of the width.
const (
	minBarCells = 10
	maxBarCells = 40
	minDirCut   = 16 // a run directory cut shorter than this says nothing
)

// barLayout is one way to draw a state, with parts left out.
type barLayout struct {
	cells                 int // 0: no bar
	elapsed, left, failed bool
	dir                   string
}

// renderBar lays out one line of at most width-1 columns (writing the last
// column makes some terminals wrap). When everything does not fit, it
// gives up, in order: bar cells beyond 10, the start of the run directory,
// the run directory, the elapsed time, the failure count, the time left,
// the bar.
func renderBar(width int, s barState) string {
	room := width - 1
	full := barLayout{cells: min(max(room/4, minBarCells), maxBarCells), elapsed: true, left: s.done < s.total,
		failed: s.failed > 0, dir: s.current}
	if l := full.render(s); len(l) <= room {
		return l
	}
	lay := full
	for lay.cells > minBarCells {
		lay.cells--
		if len(lay.render(s)) <= room {
			return lay.render(s)
		}
	}
	if lay.dir != "" {
		over := len(lay.render(s)) - room
		if keep := len(lay.dir) - over - 3; keep+3 >= minDirCut {
			lay.dir = "..." + lay.dir[len(lay.dir)-keep:] // the end tells runs apart
			return lay.render(s)
		}
		lay.dir = ""
	}
	for _, drop := range []func(*barLayout){
		func(l *barLayout) {},
		func(l *barLayout) { l.elapsed = false },
		func(l *barLayout) { l.failed = false },
		func(l *barLayout) { l.left = false },
		func(l *barLayout) { l.cells = 0 },
	} {
		drop(&lay)
		if line := lay.render(s); len(line) <= room {
			return line
		}
	}
	return lay.render(s)[:max(room, 0)]
}

func (l barLayout) render(s barState) string {
	var b strings.Builder
	pct := 100
	if s.total > 0 {
		pct = 100 * s.done / s.total
	}
	if l.cells > 0 {
		filled := l.cells * pct / 100
		b.WriteByte('[')
		b.WriteString(strings.Repeat("=", filled))
		if filled < l.cells {
			b.WriteByte('>')
			b.WriteString(strings.Repeat(" ", l.cells-filled-1))
		}
		b.WriteString("] ")
	}
	fmt.Fprintf(&b, "%d/%d %3d%%", s.done, s.total, pct)
	var timing []string
	if l.elapsed {
		timing = append(timing, shortDuration(s.elapsed))
	}
	if l.left {
		if s.leftKnown {
			timing = append(timing, "~"+shortDuration(s.left)+" left")
		} else {
			timing = append(timing, "estimating")
		}
	}
	if len(timing) > 0 {
		b.WriteString("  " + strings.Join(timing, ", "))
	}
	if l.dir != "" {
		b.WriteString("  " + l.dir)
	}
	if l.failed {
		fmt.Fprintf(&b, "  (%d failed)", s.failed)
	}
	return b.String()
}

// shortDuration writes 42s, 5m20s, 2h05m.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
