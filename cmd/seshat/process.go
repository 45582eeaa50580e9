package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/seshat-bench/seshat/runner/host"
)

// process is everything a command touches of the outside world. main builds
// it from the real process; tests build fake ones and run whole commands.
type process struct {
	ctx       context.Context
	args      []string
	getenv    func(string) (string, bool)
	environ   []string // the base environment of the processes seshat starts
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	stderrTTY bool // progress bars and colours only on a terminal
	// stderrWidth is the width of that terminal in columns (0: unknown).
	stderrWidth func() int
	// host is the machine's /proc and /sys (the zero value: the real ones;
	// tests point it at a recorded tree).
	host host.Host
}

func osProcess() *process {
	// SIGINT/SIGTERM cancel the context: long jobs stop cleanly and exit 1.
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return &process{
		ctx:       ctx,
		args:      os.Args[1:],
		getenv:    os.LookupEnv,
		environ:   os.Environ(),
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		stderrWidth: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
}
