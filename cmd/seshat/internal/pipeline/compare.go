package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seshat-bench/seshat/compare"
	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
)

// CompareOptions are the options of `seshat compare`.
type CompareOptions struct {
	// A and B are results directories, LTS files, or build:ID, the runs
	// of a build in Store.
	A, B string
	// Store is the store's URL (lts.DefaultStoreURL when empty), read
	// only for a build:ID side.
	Store      string
	Connection StoreConnection
	Format     string
	Output     string
	NoCache    bool
	// FailOnWorse exits 2 when a KPI got significantly worse.
	FailOnWorse bool
}

// Compare runs `seshat compare A B`: each side's payloads, grouped into
// entries less the workloads' comparison and ignored keys, summarised and
// tested as benchstat does, or on every run and every per-iteration sample
// when the runs recorded them (compare.MethodHierarchical). Exit 3 when the sides share no KPI.
func Compare(ctx context.Context, env Env, o CompareOptions) error {
	if o.A == "" || o.B == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "compare: give two results directories, LTS files or build:ID")
	}
	format := o.Format
	if format == "" {
		format = compare.FormatText
	}
	known := false
	for _, f := range compare.Formats {
		known = known || f == format
	}
	if !known {
		return exitcode.Errorf(exitcode.InvalidInput, "--format: %q is not one of %v", o.Format, compare.Formats)
	}
	var sides [2][]*models.Payload
	var store lts.Store // opened for the first build:ID side
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	for i, path := range []string{o.A, o.B} {
		if id, ok := strings.CutPrefix(path, compare.BuildPrefix); ok {
			if id == "" {
				return exitcode.Errorf(exitcode.InvalidInput, "compare: %q names no build", path)
			}
			if store == nil {
				s, err := openStore(ctx, env, o.Store, o.Connection)
				if errors.Is(err, lts.ErrNoStore) {
					return exitcode.Errorf(exitcode.NoData, "compare: %s: %w", redact.URL(o.Store), err)
				}
				if err != nil {
					return err
				}
				store = s
			}
			var err error
			if sides[i], err = (compare.StoreBuild{Store: store, ID: id}).Payloads(ctx); err != nil {
				return err
			}
			continue
		}
		var err error
		if sides[i], err = compareSide(ctx, &env, path, o.NoCache); err != nil {
			return err
		}
	}
	t := compare.Build(sides[0], sides[1], [2]string{o.A, o.B}, compare.Options{Keys: env.compareKeys, Definition: env.kpiDefinition, Samples: env.compareSamples})
	shared := 0
	for _, kt := range t.KPIs {
		for _, r := range kt.Rows {
			if r.A != nil && r.B != nil {
				shared++
			}
		}
	}
	if shared == 0 {
		return exitcode.Errorf(exitcode.NoData, "compare: %s and %s have no entry x KPI in common", o.A, o.B)
	}
	err := atomicfile.WriteOutput(o.Output, env.Stdout, func(w io.Writer) error { return t.Write(w, format) })
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if _, worse := t.Significant(); worse > 0 && o.FailOnWorse {
		return exitcode.Errorf(exitcode.RegressionFound, "compare: %d entry x KPI results are significantly worse in %s", worse, o.B)
	}
	return nil
}

// compareKeys are the labels left out of a compared entry's identity: the
// workload's comparison and ignored keys.
func (e Env) compareKeys(workload string) []string {
	w, ok := e.registry().Get(workload)
	if !ok {
		return nil
	}
	d, ok := w.(workloads.RegressionDefaults)
	if !ok {
		return nil
	}
	k := d.RegressionKeys()
	return append(append([]string{}, k.ComparisonKeys...), k.IgnoredKeys...)
}

// compareSamples are the per-iteration samples behind a KPI value of a
// run, from its workload when it can give them (workloads.SampleProvider).
func (e Env) compareSamples(p *models.Payload, kpi string) []float64 {
	w, ok := e.registry().Get(p.Metadata.Workload)
	if !ok {
		return nil
	}
	sp, ok := w.(workloads.SampleProvider)
	if !ok {
		return nil
	}
	return sp.KPISamples(p, kpi)
}

// compareSide reads a side that is a path: a results directory, or an
// LTS file (CurrentRuns). The workload files found there join env's
// workloads.
func compareSide(ctx context.Context, env *Env, path string, noCache bool) ([]*models.Payload, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "compare: %w", err)
	}
	runs := CurrentRuns{LTSFile: path, LTSName: "compare"}
	if st.IsDir() {
		runs = CurrentRuns{ResultsDir: path, NoCache: noCache}
	}
	set, err := runs.Read(ctx, env)
	if err != nil {
		return nil, err
	}
	if set.Stats != "" {
		fmt.Fprintf(env.Stderr, "%s: %s\n", path, set.Stats)
	}
	return set.Payloads(), nil
}
