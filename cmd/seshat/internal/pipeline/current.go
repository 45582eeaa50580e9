package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// CurrentRuns names where a verb's current runs are: the one seam through
// which upload, regression and compare (a side that is a path) read them;
// visualize reads its --history file with the same reader (readLTSFile).
//
//   - ResultsDir is parsed, with the cache unless NoCache, leniently:
//     Workload and Filters select its entries (as for `seshat parse`; they
//     do not apply to the LTS file).
//   - LTSFile is read with lts.ReadFile (at most lts.FileLimit bytes); a
//     workload file beside it declares its workload.
//
// Given both, both are read, the results directory's runs first, and a run
// in both (the same test_uuid) counts once: the first read is kept. The
// same test_uuid twice in one input (a copied run directory) is also kept
// once, with a warning.
type CurrentRuns struct {
	ResultsDir, LTSFile string
	Workload, Filters   string
	NoCache             bool
	// LTSName is how errors name the LTS file: "--lts" when empty.
	LTSName string
}

// CurrentSet is what CurrentRuns.Read read.
type CurrentSet struct {
	// Records are the payloads, one per test_uuid: the results
	// directory's (complete entries, by path), then the LTS file's (in its
	// order). A record without payload says why in its Warnings.
	Records []lts.EntryPayload
	// Incomplete are the results directory's entries that did not finish
	// (no payload is built for them).
	Incomplete []*store.Entry
	// Entries are the parse's entries by path: what --confirm needs to run
	// a point again (its settings, experiment and build as parsed).
	Entries map[string]*store.Entry
	// From says where the runs came from ("results directory DIR and LTS
	// file FILE"); Stats is the parse's statistics line ("" without a
	// results directory).
	From, Stats string
}

// Payloads are the payloads of the records that have one.
func (s CurrentSet) Payloads() []*models.Payload { return lts.Payloads(s.Records) }

// Read reads the current runs, logging each record's warnings. The
// workload files found beside them join env's workloads.
func (c CurrentRuns) Read(ctx context.Context, env *Env) (CurrentSet, error) {
	if c.ResultsDir == "" && c.LTSFile == "" {
		return CurrentSet{}, exitcode.Errorf(exitcode.InvalidInput, "give --results-dir DIR or --lts FILE")
	}
	set := CurrentSet{Entries: map[string]*store.Entry{}}
	var from []string
	type first struct {
		path  string
		input int
	}
	kept := map[string]first{} // by test_uuid
	add := func(records []lts.EntryPayload, input int) {
		for _, r := range records {
			if r.Payload != nil && r.Payload.Metadata.TestUUID != "" {
				id := r.Payload.Metadata.TestUUID
				if f, dup := kept[id]; dup {
					log := env.logger().Debug // the same run in both inputs: the rule
					if f.input == input {
						log = env.logger().Warn // a copied run directory
					}
					log("same test_uuid as an earlier run: counted once", "entry", r.Path, "test_uuid", id, "kept", f.path)
					continue
				}
				kept[id] = first{r.Path, input}
			}
			set.Records = append(set.Records, r)
		}
	}
	if c.ResultsDir != "" {
		m, err := LoadMatrix(ctx, env, c.ResultsDir, c.Workload, c.Filters, c.NoCache)
		if err != nil {
			return CurrentSet{}, err
		}
		from = append(from, "results directory "+c.ResultsDir)
		set.Stats = m.Stats().String()
		add(buildPayloads(*env, m), 0)
		for _, e := range m.Entries {
			set.Entries[e.Path] = e
			if !e.Complete {
				set.Incomplete = append(set.Incomplete, e)
			}
		}
	}
	if c.LTSFile != "" {
		name := c.LTSName
		if name == "" {
			name = "--lts"
		}
		// A workload file beside the LTS file declares its workload.
		if err := discoverWorkload(env, filepath.Dir(c.LTSFile)); err != nil {
			return CurrentSet{}, err
		}
		records, err := readLTSFile(*env, c.LTSFile)
		if err != nil {
			return CurrentSet{}, fmt.Errorf("%s: %w", name, err)
		}
		from = append(from, "LTS file "+c.LTSFile)
		for _, r := range records {
			for _, w := range r.Warnings {
				env.logger().Warn(r.Path + ": " + w)
			}
		}
		add(records, 1)
	}
	set.From = strings.Join(from, " and ")
	return set, nil
}
