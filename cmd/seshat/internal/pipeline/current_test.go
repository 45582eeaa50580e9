package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/workloadtest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/parsers"
)

// The test_uuids of the toy sample tree's complete runs, and of a run only
// an LTS file holds.
const (
	toyUUID1 = "0b5e3a57-8f0e-4c1a-9a51-1d1f1c0f4a11"
	toyUUID2 = "1c6f4b68-9a1f-4d2b-8b62-2e2a2d1a5b22"
	toyUUID3 = "2d7a5c79-ab2a-4e3c-9c73-3f3b3e2b6c33"
	newUUID  = "4f9c7e9b-cd4c-4a5e-9e95-515d5d4d8e55"
)

// ltsFileOf writes the LTS file of toy runs of the given test_uuids (as
// parse --output-lts does) and returns its path.
func ltsFileOf(t *testing.T, uuids ...string) string {
	t.Helper()
	root := t.TempDir()
	for i, id := range uuids {
		start := t0.Add(time.Duration(i) * time.Hour)
		run := &workloadtest.Run{UUID: id, Start: start, End: start.Add(time.Second), ElapsedMs: ms(2), Device: "gpu"}
		if err := workloadtest.WriteRun(root, "other/00"+string(rune('1'+i)), map[string]any{"size": 64 + i}, code(0), run); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "lts.json")
	if err := Parse(context.Background(), newTestEnv().env, ParseOptions{ResultsDir: root, OutputLTS: file, NoCache: true}); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCurrentRunsRule: the one rule of every verb for --results-dir and
// --lts: either, or both, read together, a run in both (same test_uuid)
// counted once, the results directory's first; an LTS file missing or over
// lts.FileLimit fails naming it.
func TestCurrentRunsRule(t *testing.T) {
	t.Parallel()
	dir := toyTree(t)
	fresh := ltsFileOf(t, newUUID)
	mixed := ltsFileOf(t, toyUUID1, newUUID)
	huge := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, lts.FileLimit+1); err != nil { // sparse: refused before it is read
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	// The same runs twice in one file, as a copied run directory would be.
	data, err := os.ReadFile(mixed)
	if err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(t.TempDir(), "twice.json")
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(data)), "["), "]")
	if err := os.WriteFile(twice, []byte("["+body+","+body+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		runs       CurrentRuns
		uuids      []string // of the records, in order
		incomplete int
		from       string
		warned     bool  // the same test_uuid twice in one input
		err        error // wrapped by the error, with exit status 4 or 1
		code       exitcode.Code
		errText    string
	}{
		{name: "dir only", runs: CurrentRuns{ResultsDir: dir},
			uuids: []string{toyUUID1, toyUUID2, toyUUID3}, incomplete: 1, from: "results directory " + dir},
		{name: "file only", runs: CurrentRuns{LTSFile: mixed},
			uuids: []string{toyUUID1, newUUID}, from: "LTS file " + mixed},
		{name: "both", runs: CurrentRuns{ResultsDir: dir, LTSFile: fresh},
			uuids: []string{toyUUID1, toyUUID2, toyUUID3, newUUID}, incomplete: 1, from: "results directory " + dir + " and LTS file " + fresh},
		{name: "both, a run in both counted once", runs: CurrentRuns{ResultsDir: dir, LTSFile: mixed},
			uuids: []string{toyUUID1, toyUUID2, toyUUID3, newUUID}, incomplete: 1, from: "results directory " + dir + " and LTS file " + mixed},
		{name: "one input, a run twice: once, with a warning", runs: CurrentRuns{ResultsDir: dir, LTSFile: twice},
			uuids: []string{toyUUID1, toyUUID2, toyUUID3, newUUID}, incomplete: 1, from: "results directory " + dir + " and LTS file " + twice, warned: true},
		{name: "filters select the directory's entries only", runs: CurrentRuns{ResultsDir: dir, LTSFile: fresh, Filters: "size=1024"},
			uuids: []string{toyUUID3, newUUID}, from: "results directory " + dir + " and LTS file " + fresh},
		{name: "file over the limit", runs: CurrentRuns{ResultsDir: dir, LTSFile: huge},
			err: parsers.ErrTooLarge, code: exitcode.Failure, errText: "--lts: read " + huge + ": "},
		{name: "missing file", runs: CurrentRuns{ResultsDir: dir, LTSFile: missing},
			err: fs.ErrNotExist, code: exitcode.InvalidInput, errText: "--lts: open " + missing},
		{name: "missing file, named as the verb asks", runs: CurrentRuns{LTSFile: missing, LTSName: "compare"},
			err: fs.ErrNotExist, code: exitcode.InvalidInput, errText: "compare: open " + missing},
		{name: "neither", code: exitcode.InvalidInput, errText: "give --results-dir DIR or --lts FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			te := newTestEnv()
			set, err := tt.runs.Read(context.Background(), &te.env)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) || exitcode.Of(err) != tt.code || (tt.err != nil && !errors.Is(err, tt.err)) {
					t.Fatalf("Read = %v (exit %d), want %q, exit %d, wrapping %v", err, exitcode.Of(err), tt.errText, tt.code, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v\n%s", err, te.stderr)
			}
			var uuids []string
			for _, p := range set.Payloads() {
				uuids = append(uuids, p.Metadata.TestUUID)
			}
			if !slices.Equal(uuids, tt.uuids) || len(set.Incomplete) != tt.incomplete || set.From != tt.from {
				t.Errorf("runs %v, %d incomplete, from %q; want %v, %d, %q", uuids, len(set.Incomplete), set.From, tt.uuids, tt.incomplete, tt.from)
			}
			// Only the copy within one input is warned about: twice.json[3]
			// repeats [1]; [2] is a run of the results directory too.
			warned := strings.Count(te.stderr.String(), `level=WARN msg="same test_uuid`)
			if want := `level=WARN msg="same test_uuid as an earlier run: counted once" entry=` + twice + "[3]"; (warned == 1) != tt.warned || (tt.warned && !strings.Contains(te.stderr.String(), want)) {
				t.Errorf("warned %v, want %v (a run in both inputs is the rule, a run twice in one a copy):\n%s", warned, tt.warned, te.stderr)
			}
			if tt.runs.ResultsDir != "" {
				// What --confirm re-runs from: every entry of the parse, by path.
				if e := set.Entries["expe/003__1024"]; tt.incomplete > 0 && (e == nil || e.Settings["size"] != 1024) {
					t.Errorf("the parse's entries are not kept: %v", set.Entries)
				}
			}
		})
	}
}
