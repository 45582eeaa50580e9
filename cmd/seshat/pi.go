package main

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/logging"
	"github.com/seshat-bench/seshat/workloads/pi/indicator"
)

// newPICmd is the hidden child of `seshat run` that runs one PI.
func newPICmd(g *globals) *cobra.Command {
	var o indicator.MainOptions
	reportFD := -1
	cmd := &cobra.Command{
		Use:    "pi",
		Short:  "Run one PI of a run directory (the child process of seshat run)",
		Hidden: true,
		Args:   noArgs,
		// Not the root's setup: the run's settings are in the environment as
		// SESHAT_<KEY> and must not be read as flags or config.
		PersistentPreRunE: childSetup(g),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			o.Stdout, o.Stderr, o.Env = g.p.stdout, g.p.stderr, g.p.environ
			if reportFD >= 0 {
				report, err := reportFile(reportFD)
				if err != nil {
					return err
				}
				defer report.Close()
				o.Report = report
			}
			return indicator.Main(cmd.Context(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.SettingsFile, "settings", "", "the run's settings.yaml")
	f.StringVar(&o.Output, "output", "", "pi.json to write")
	f.StringVar(&o.Python, "python", "", "Python interpreter when the settings name none")
	f.IntVar(&reportFD, "report-fd", -1, "file descriptor to report the run's peak memory on (seshat run's pipe)")
	return cmd
}

// reportFile is the open file descriptor fd, closed at exec so that the
// PI's processes do not hold seshat run's pipe.
func reportFile(fd int) (*os.File, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--report-fd %d: %w", fd, err)
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "report"), nil
}

// childSetup replaces the root's setup for the commands seshat runs in
// itself (`pi`, `run-point`): no config file and no SESHAT_ variables, only
// a logger on stderr.
func childSetup(g *globals) func(*cobra.Command, []string) error {
	return func(*cobra.Command, []string) error {
		g.log = logging.New(g.p.stderr, false, false)
		return nil
	}
}
