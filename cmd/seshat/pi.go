package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/internal/logging"
	"github.com/seshat-bench/seshat/workloads/pi/indicator"
)

// newPICmd is the hidden child of `seshat run` that runs one PI.
func newPICmd(g *globals) *cobra.Command {
	var o indicator.MainOptions
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
			return indicator.Main(cmd.Context(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.SettingsFile, "settings", "", "the run's settings.yaml")
	f.StringVar(&o.Output, "output", "", "pi.json to write")
	f.StringVar(&o.Python, "python", "", "Python interpreter when the settings name none")
	return cmd
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
