package download

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
)

// redraw is how often the line on a terminal is redrawn.
const redraw = 200 * time.Millisecond

// progress shows how far a download is: on a terminal one line redrawn in
// place,
//
//	[=========>          ] 9,120/20,014 files  5.1 MiB  (2 missing)
//
// elsewhere (CI logs) the same text as a plain line every so often. The
// workers only count; a goroutine of its own draws.
type progress struct {
	w        io.Writer
	terminal bool
	every    time.Duration
	width    func() int

	dirs, listedFiles           atomic.Int64
	total, done, missed, nbytes atomic.Int64
	fetching                    atomic.Bool
	stop, stopped               chan struct{}
	once                        sync.Once
	started                     time.Time
}

func newProgress(o Options) *progress {
	return &progress{w: o.Progress, terminal: o.Terminal, every: o.ProgressEvery, width: o.Width}
}

func (p *progress) listed(dirs, files int) {
	p.dirs.Add(int64(dirs))
	p.listedFiles.Add(int64(files))
}

func (p *progress) plan(files int) {
	p.fetching.Store(true)
	p.total.Add(int64(files))
}

func (p *progress) fetched(n int64) { p.done.Add(1); p.nbytes.Add(n) }
func (p *progress) kept()           { p.done.Add(1) }
func (p *progress) failed()         { p.done.Add(1); p.missed.Add(1) }

func (p *progress) start() {
	if p.w == nil || (!p.terminal && p.every <= 0) {
		return
	}
	p.started = time.Now()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	tick := p.every
	if p.terminal {
		tick = redraw
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
}

func (p *progress) finish() {
	p.once.Do(func() {
		if p.stop == nil {
			return
		}
		close(p.stop)
		<-p.stopped
		if p.terminal {
			p.draw()
			fmt.Fprintln(p.w)
		}
	})
}

func (p *progress) draw() {
	width := 80
	if p.width != nil {
		if w := p.width(); w > 0 {
			width = w
		}
	}
	line := p.line(width - 1)
	if p.terminal {
		// \r to the line's start, \x1b[K clears what a longer line left.
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		return
	}
	fmt.Fprintf(p.w, "seshat download: %s (%s)\n", line, time.Since(p.started).Round(time.Second))
}

// line is the progress in at most room columns.
func (p *progress) line(room int) string {
	if !p.fetching.Load() {
		return fmt.Sprintf("listing: %s directories, %s files", humanize.Comma(p.dirs.Load()), humanize.Comma(p.listedFiles.Load()))
	}
	done, total := p.done.Load(), p.total.Load()
	text := fmt.Sprintf("%s/%s files  %s", humanize.Comma(done), humanize.Comma(total), humanize.IBytes(uint64(p.nbytes.Load())))
	if m := p.missed.Load(); m > 0 {
		text += fmt.Sprintf("  (%s missing)", humanize.Comma(m))
	}
	if p.terminal {
		cells := min(max(room/4, 10), 40)
		filled := cells
		if total > 0 {
			filled = int(int64(cells) * done / total)
		}
		bar := "[" + strings.Repeat("=", filled)
		if filled < cells {
			bar += ">" + strings.Repeat(" ", cells-filled-1)
		}
		if l := bar + "] " + text; len(l) <= room {
			return l
		}
	}
	if len(text) > room && room > 0 {
		return text[:room]
	}
	return text
}
