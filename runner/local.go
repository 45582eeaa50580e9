package runner

import (
	"context"
	"errors"
)

// Local runs every point in a child process of this machine, one after
// the other, in plan order (DESIGN §10).
type Local struct{}

// Execute implements Executor.
func (Local) Execute(ctx context.Context, opts Options, plan []Planned, t *Tracker) error {
	for i, pl := range plan {
		if ctx.Err() != nil {
			t.Interrupt()
			return nil
		}
		if t.Stopped() {
			return nil
		}
		if pl.Skip {
			t.Skipped(i, pl)
			continue
		}
		t.Begin(i, pl)
		dir, o, err := runOne(ctx, opts, pl)
		pl.Dir = dir
		if err != nil && !errors.Is(err, ErrInterrupted) {
			// The runner itself failed (disk full...): stop, it would fail again.
			t.Broken(i, pl, o, err)
			return err
		}
		if t.End(i, pl, o) {
			return nil
		}
	}
	return nil
}
