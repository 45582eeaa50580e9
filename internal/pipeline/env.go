package pipeline

import (
	"io"
	"log/slog"
)

// Env is the process as a pipeline call sees it.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	Log    *slog.Logger
	// Terminal is true when stderr is a terminal (progress bars).
	Terminal bool
	// TermWidth returns the width of that terminal in columns (0: unknown).
	TermWidth func() int
	// Getenv reads the process environment.
	Getenv func(string) (string, bool)
	// Quiet (-q) keeps stderr for errors: no progress, no status lines.
	Quiet bool
}

// status is where status lines go (parse statistics, summaries): stderr,
// unless Quiet.
func (e Env) status() io.Writer {
	if e.Quiet || e.Stderr == nil {
		return io.Discard
	}
	return e.Stderr
}

func (e Env) env(name string) string {
	if e.Getenv == nil {
		return ""
	}
	v, _ := e.Getenv(name)
	return v
}
