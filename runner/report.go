package runner

import (
	"bytes"
	"io"
	"os"
	"time"
)

// maxReport bounds what a child may write on its report pipe.
const maxReport = 4 << 10

// reportGrace is how long the report is waited for once every process
// of the run is dead: only one that escaped the containment can still
// hold the pipe open.
const reportGrace = 100 * time.Millisecond

// reportPipe is the pipe a child reports its run's usage on
// (Exec.Report): the child holds the write end as its file descriptor
// runnable.ReportFD, seshat reads the other.
type reportPipe struct {
	r, w *os.File
	got  chan []byte
}

func newReportPipe() (*reportPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &reportPipe{r: r, w: w, got: make(chan []byte, 1)}, nil
}

// started closes seshat's copy of the write end, so that the read ends
// when the child's copies are closed, and starts reading.
func (p *reportPipe) started() {
	p.w.Close()
	p.w = nil
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, io.LimitReader(p.r, maxReport+1))
		p.got <- b.Bytes()
	}()
}

// read returns what the child wrote, once the run's processes are dead;
// nil if nothing, or more than maxReport bytes, came.
func (p *reportPipe) read() []byte {
	_ = p.r.SetReadDeadline(time.Now().Add(reportGrace))
	b := <-p.got
	if len(b) == 0 || len(b) > maxReport {
		return nil
	}
	return b
}

func (p *reportPipe) close() {
	if p.w != nil {
		p.w.Close()
	}
	p.r.Close()
}
