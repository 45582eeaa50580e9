package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	_ "github.com/seshat-bench/seshat/importers" // registers the workloads of imported runs
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/logging"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/internal/suggest"
	"github.com/seshat-bench/seshat/internal/version"
	_ "github.com/seshat-bench/seshat/lts/opensearch" // registers the http(s):// stores
	_ "github.com/seshat-bench/seshat/lts/sqlite"     // registers the sqlite: store
	"github.com/seshat-bench/seshat/workloads"
	_ "github.com/seshat-bench/seshat/workloads/pi" // registers the pi workload
)

// globals is what every verb receives: the process, the resolved settings
// and the logger, ready once the root's PersistentPreRunE has run.
type globals struct {
	p          *process
	configPath string
	// workloadFile is --workload-file: a workload.yaml to register.
	workloadFile string
	// workloads are the built-in workloads and workloadFile's, once setup
	// has run (nil before: the built-in ones).
	workloads *workloads.Registry
	verbose   bool
	quiet     bool
	settings  *config.Settings
	log       *slog.Logger
}

// env is the pipeline's view of the process.
func (g *globals) env() pipeline.Env {
	e := pipeline.Env{Stdout: g.p.stdout, Stderr: g.p.stderr, Log: g.log, Terminal: g.p.stderrTTY,
		TermWidth: g.p.stderrWidth, Environ: redact.Environ(g.p.environ), Quiet: g.quiet, Host: g.p.host,
		Workloads: g.workloads}
	if g.settings != nil { // nil for the children seshat runs in itself (childSetup)
		e.ResultsBaseURL = g.settings.ResultsBaseURL
	}
	return e
}

func newRootCmd(p *process) *cobra.Command {
	g := &globals{p: p, log: logging.Discard()}
	root := &cobra.Command{
		Use:           "seshat",
		Short:         "Continuous performance testing for AI/ML software stacks",
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.setup(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.configPath, "config", "", "config file (default "+config.DefaultFile+" when present)")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "show debug messages")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "show errors only")
	pf.StringVar(&g.workloadFile, "workload-file", "", "a workload.yaml declaring a workload (one at the top of --results-dir is found by itself)")
	config.BindKey(pf, "workload-file", "workload_file")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return exitcode.With(exitcode.InvalidInput, suggestFlag(cmd, err))
	})
	root.AddCommand(verbs(g)...)
	registerCompletions(root)
	// --version prints what `seshat version` prints.
	root.Version = version.String()
	root.SetVersionTemplate("{{.Version}}\n")
	// Streams first: the completion command captures its writer when built.
	root.SetIn(p.stdin)
	root.SetOut(p.stdout)
	root.SetErr(p.stderr)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			strictParent(c)
		}
	}
	return root
}

// suggestFlag names the nearest flag of cmd in pflag's unknown-flag error,
// as cobra names the nearest command: "unknown flag --buidl-id; did you
// mean --build-id?".
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Errorf("unknown flag --%s; did you mean --%s?", name, s)
	}
	return fmt.Errorf("unknown flag --%s (%s --help lists the flags)", name, cmd.CommandPath())
}

// strictParent makes a command that only groups subcommands refuse a
// missing or unknown one with InvalidInput: cobra would print the help and
// exit 0, hiding a typo (`seshat completion bsh`) from a script.
func strictParent(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		var names []string
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		if len(args) == 0 {
			return exitcode.Errorf(exitcode.InvalidInput, "%s: name one of: %s", cmd.CommandPath(), strings.Join(names, ", "))
		}
		return exitcode.Errorf(exitcode.InvalidInput, "%s: unknown command %q (want one of: %s)", cmd.CommandPath(), args[0], strings.Join(names, ", "))
	}
}

// needsConfig tells whether a command reads seshat.yaml. Printing the
// version or a completion script must work anywhere, even beside a broken
// config file (shells run completion at every start), and so must looking
// at the host.
func needsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "version", "completion", "help", "host", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return false
		}
	}
	return true
}

// verbs lists every subcommand; each lives in a file of its own.
func verbs(g *globals) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(g),
		newDemoCmd(g),
		newParseCmd(g),
		newKPIsCmd(g),
		newSchemaCmd(g),
		newUploadCmd(g),
		newDownloadCmd(g),
		newHistoryCmd(g),
		newServeCmd(g),
		newChangePointsCmd(g),
		newDashboardsCmd(g),
		newRunCmd(g),
		newPICmd(g),
		newRunPointCmd(g),
		newVisualizeCmd(g),
		newRegressionCmd(g),
		newWorkloadCmd(g),
		newImportCmd(g),
		newCompareCmd(g),
		newHostCmd(g),
	}
}

// setup resolves every setting of the command (config.Resolve: file < env
// < flags) and sets the logger up.
func (g *globals) setup(cmd *cobra.Command) error {
	settings, err := config.Resolve(cmd, g.p.getenv, needsConfig(cmd))
	if err != nil {
		return err
	}
	g.settings = settings
	g.log = logging.New(g.p.stderr, g.verbose, g.quiet)
	if needsConfig(cmd) {
		g.workloads, err = pipeline.Workloads(g.workloadFile)
	}
	return err
}

// addNoCacheFlag declares --no-cache, of every verb that parses a results
// directory.
func addNoCacheFlag(f *pflag.FlagSet, noCache *bool) {
	f.BoolVar(noCache, "no-cache", false, "ignore parse caches (also "+config.EnvIgnoreCache+"=1)")
	config.BindKey(f, "no-cache", "parse.no_cache")
	config.BindEnv(f, "no-cache", config.EnvIgnoreCache)
}

// noArgs refuses positional arguments with an InvalidInput error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.Errorf(exitcode.InvalidInput, "unexpected argument %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// runE adapts a verb's work: errors without an exit code are failures (1).
// Errors cobra raises itself (unknown command, flag syntax) never pass here
// and are mapped to InvalidInput in execute.
func runE(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var coded *exitcode.Error
		if err != nil && !errors.As(err, &coded) {
			return exitcode.With(exitcode.Failure, err)
		}
		return err
	}
}

// execute runs the command line of p and returns the exit status.
func execute(p *process) int {
	root := newRootCmd(p)
	root.SetArgs(p.args)
	err := root.ExecuteContext(p.ctx)
	if err == nil {
		return int(exitcode.Success)
	}
	var coded *exitcode.Error
	if !errors.As(err, &coded) {
		// Raised by cobra itself: unknown command or a malformed command line.
		err = exitcode.With(exitcode.InvalidInput, err)
	}
	fmt.Fprintf(p.stderr, "seshat: %v\n", err)
	return int(exitcode.Of(err))
}
