package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/seshat-bench/seshat/workloads"
)

// gpuWorkload is the helper workload whose points need the GPUs their
// `gpus` setting says.
type gpuWorkload struct{ helperWorkload }

func (gpuWorkload) GPUs(settings map[string]any) int {
	n, _ := settings["gpus"].(int)
	return n
}

// TestSlurmDryRun: the batch scripts --dry-run prints (a golden): one array
// per GPU count, the directives from the config, a time limit from
// --timeout, quoted directories, and valid bash.
func TestSlurmDryRun(t *testing.T) {
	t.Parallel()
	opts := runOpts(t, "/results", "expe:\n  e:\n    helper: [exit 0, \"it's\"]\n    gpus: [0, 2]\n")
	opts.Lookup = func(string) (workloads.Runner, error) { return gpuWorkload{}, nil }
	opts.Self, opts.Timeout, opts.Python = "/shared/bin/seshat", 90*time.Second, "/opt/py/bin/python3"
	s := &Slurm{Partition: "gpu", Account: "perf", QOS: "normal", GPUType: "a100", MaxParallel: 2,
		Directives: []string{"--exclusive", "--mem=8G"}, Invocation: "0123abcd"}
	plan, err := Plan(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := s.DryRun(&out, opts, plan); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "slurm_dryrun.golden"), out.Bytes())
	scripts := strings.Split(out.String(), "#!/bin/bash\n")[1:]
	if len(scripts) != 2 {
		t.Fatalf("%d scripts, want one per GPU count", len(scripts))
	}
	for i, script := range scripts {
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "script"); err != nil {
			t.Errorf("script %d is not valid bash: %v", i+1, err)
		}
	}
}

// golden compares got with a golden file (go test -update rewrites it).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update to accept):\n%s", path, got)
	}
}

func TestSlurmTimeLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limit   string
		timeout time.Duration
		want    string
	}{
		{name: "none", want: ""},
		{name: "from timeout", timeout: 90 * time.Second, want: "3"},
		{name: "whole minutes", timeout: time.Minute, want: "2"},
		{name: "configured wins", limit: "1-00:00:00", timeout: time.Minute, want: "1-00:00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := (&Slurm{TimeLimit: tc.limit}).timeLimit(tc.timeout); got != tc.want {
				t.Errorf("time limit %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseSlurmQueue(t *testing.T) {
	t.Parallel()
	out := "12_0|COMPLETED|node1|None\n12_1|TIMEOUT|node2|TimeLimit\n12_[2-9]|PENDING||Resources\n" +
		"12_3.batch|CANCELLED by 0|node1\n12_4|CANCELLED by 0|node3\n\n12_5|PENDING||Priority\n"
	got, err := parseSlurmQueue("squeue", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]slurmTaskState{
		"12_0": {State: "COMPLETED", Node: "node1"},
		"12_1": {State: "TIMEOUT", Node: "node2", Reason: "TimeLimit"},
		"12_4": {State: "CANCELLED", Node: "node3"},
		"12_5": {State: "PENDING", Reason: "Priority"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if _, err := parseSlurmQueue("squeue", []byte("12_0|RUNNING\n")); err == nil || !strings.Contains(err.Error(), "squeue output line 1") {
		t.Errorf("short line: %v", err)
	}
}

func TestSlurmExitCodes(t *testing.T) {
	t.Parallel()
	for state, want := range map[string]int{"TIMEOUT": 124, "DEADLINE": 124, "OUT_OF_MEMORY": 137, "CANCELLED": 143,
		"PREEMPTED": 143, "NODE_FAIL": 1, "BOOT_FAIL": 1, "FAILED": 1, "LOST": 1} {
		if got := slurmExitCode(state); got != want {
			t.Errorf("%s: exit code %d, want %d", state, got, want)
		}
	}
}
