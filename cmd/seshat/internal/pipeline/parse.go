package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/store"
)

// ParseOptions are the options of `seshat parse`.
type ParseOptions struct {
	ResultsDir   string
	Workload     string
	Filters      string
	OutputMatrix string
	// OutputLTS receives the LTS payloads of the complete entries, validated
	// strictly, as a JSON array sorted by path ("-" for stdout).
	OutputLTS string
	Pretty    bool
	NoCache   bool
}

// LoadMatrix parses a results directory with env's workloads, to which it
// adds the workload file at the top of the directory, if any.
func LoadMatrix(ctx context.Context, env *Env, resultsDir, workload, filters string, noCache bool) (*store.Matrix, error) {
	if resultsDir == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--results-dir is required")
	}
	if err := discoverWorkload(env, resultsDir); err != nil {
		return nil, err
	}
	f, err := store.ParseFilters(filters)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--filters: %w", err)
	}
	if workload != "" {
		if _, ok := env.registry().Get(workload); !ok {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "--workload: unknown workload %q (known: %v)", workload, env.registry().Names())
		}
	}
	return store.Load(ctx, store.Options{
		ResultsDir: resultsDir,
		Workload:   workload,
		Filters:    f,
		NoCache:    noCache,
		BaseURL:    env.ResultsBaseURL,
		Lookup:     env.registry().Lookup,
		Log:        env.Log,
	})
}

// Parse runs `seshat parse`: one parse, then every requested output, then
// the stats line on stderr. LTS payloads are built from that same parse,
// leniently, and validated strictly only before being written: an invalid
// payload writes no LTS output and exits 4 naming each entry and field (the
// matrix, lenient by nature, is still written).
func Parse(ctx context.Context, env Env, opts ParseOptions) error {
	if opts.OutputMatrix == "-" && opts.OutputLTS == "-" {
		return exitcode.Errorf(exitcode.InvalidInput, "--output-matrix and --output-lts cannot both write to stdout")
	}
	m, err := LoadMatrix(ctx, &env, opts.ResultsDir, opts.Workload, opts.Filters, opts.NoCache)
	if err != nil {
		return err
	}
	var records []lts.EntryPayload
	if opts.OutputLTS != "" {
		records = buildPayloads(env, m)
	}
	if opts.OutputMatrix != "" {
		err := atomicfile.WriteOutput(opts.OutputMatrix, env.Stdout, func(w io.Writer) error {
			return m.WriteJSON(w, opts.Pretty)
		})
		if err != nil {
			return fmt.Errorf("--output-matrix: %w", err)
		}
	}
	if opts.OutputLTS != "" {
		if err := lts.ValidateAll(records); err != nil {
			fmt.Fprintln(env.status(), m.Stats())
			return fmt.Errorf("--output-lts: %w", err)
		}
		err := atomicfile.WriteOutput(opts.OutputLTS, env.Stdout, func(w io.Writer) error {
			return lts.WriteJSON(w, lts.Payloads(records), opts.Pretty)
		})
		if err != nil {
			return fmt.Errorf("--output-lts: %w", err)
		}
	}
	fmt.Fprintln(env.status(), m.Stats())
	return nil
}
