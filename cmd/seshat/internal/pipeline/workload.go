package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
	"github.com/seshat-bench/seshat/workloads/declared"
)

// Workloads are the workloads of a command: the built-in ones and the
// workload file named by --workload-file (or seshat.yaml's workload_file),
// if any, which every verb then knows as it knows pi.
func Workloads(workloadFile string) (*workloads.Registry, error) {
	r := workloads.Builtin()
	if workloadFile == "" {
		return r, nil
	}
	r, _, err := declared.Use(r, workloadFile)
	if err != nil {
		return nil, fmt.Errorf("--workload-file: %w", err)
	}
	return r, nil
}

// discoverWorkload adds the workload.yaml at the top of dir, if any, to
// env's workloads, and logs which workload it declares.
func discoverWorkload(env *Env, dir string) error {
	r, w, err := declared.Discover(env.registry(), dir)
	if err != nil {
		return err
	}
	env.Workloads = r
	if w != nil {
		env.logger().Debug("workload file", "path", w.Source, "workload", w.Name())
	}
	return nil
}

// keepWorkloadFile copies the workload files of a run's declared workloads
// to the top of its results directory, so that parse, upload and the other
// verbs find them there with no flag. A different file already there is
// left alone, with a warning.
func keepWorkloadFile(env Env, resultsDir string, names []string) {
	for _, name := range names {
		w, ok := env.registry().Get(name)
		d, isDeclared := w.(*declared.Workload)
		if !ok || !isDeclared {
			continue
		}
		dst := filepath.Join(resultsDir, declared.FileName)
		src, err := parsers.ReadLimited(d.Source, 1<<20)
		if err != nil {
			env.logger().Warn("workload file not copied to the results", "err", err)
			return
		}
		old, err := os.ReadFile(dst)
		switch {
		case err == nil && bytes.Equal(old, src):
		case err == nil:
			env.logger().Warn(fmt.Sprintf("%s differs from %s: left as it is; give --workload-file to parse these results", dst, d.Source))
		case errors.Is(err, fs.ErrNotExist):
			if err := atomicfile.WriteFile(dst, src, 0o644); err != nil {
				env.logger().Warn("workload file not copied to the results", "err", err)
			}
		default:
			env.logger().Warn("workload file not copied to the results", "err", err)
		}
		return // one workload file per results directory
	}
}

// WorkloadCheckOptions are the options of `seshat workload check`.
type WorkloadCheckOptions struct {
	File       string
	ResultsDir string
}

// WorkloadCheck validates a workload file and, given a results directory,
// shows what it extracts from the first complete run of that workload:
// each value, the labels and the KPIs, the warnings, and whether the payload
// passes strict validation. An invalid file exits 4 naming each line and
// key; a run whose payload is invalid exits 4 too.
func WorkloadCheck(ctx context.Context, env Env, o WorkloadCheckOptions) error {
	if o.File == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "name the workload file to check")
	}
	w, err := declared.Load(o.File)
	if err != nil {
		return err
	}
	s := w.Spec()
	fmt.Fprintf(env.Stdout, "%s: workload %s (kpi_settings_version %s): %d files, %d values, %d labels, %d KPIs, %d reports\n",
		o.File, s.Name, s.KPISettingsVersion, len(s.Files), len(s.Values), len(s.Labels), len(s.KPIs), len(w.Plots().Reports()))
	if o.ResultsDir == "" {
		return nil
	}
	lookup := func(name string) (store.Parser, bool) {
		if name == w.Name() {
			return w, true
		}
		return env.registry().Lookup(name)
	}
	m, err := store.Load(ctx, store.Options{ResultsDir: o.ResultsDir, NoCache: true, Lookup: lookup, Log: env.Log})
	if err != nil {
		return err
	}
	var e *store.Entry
	for _, c := range m.Entries {
		if c.Complete && c.Workload == w.Name() {
			e = c
			break
		}
	}
	if e == nil {
		return exitcode.Errorf(exitcode.NoData, "%s: no complete run of workload %s (its runs' settings say workload: %s)", o.ResultsDir, w.Name(), w.Name())
	}
	p, warnings := lts.Build(e, w, lts.Options{})
	warnings = append(slices.Clone(e.Warnings), warnings...)
	out := env.Stdout
	fmt.Fprintf(out, "\nrun %s (exit code %s)\n", e.Path, exitText(e.ExitCode))
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  value\tread from\tgot")
	r, _ := e.Results.(*declared.Results)
	for _, name := range sortedNames(s.Values) {
		v := s.Values[name]
		got := "(absent)"
		if r != nil {
			if d, ok := r.Values[name]; ok {
				got = d.Text()
				if d.Numbers != nil {
					got = fmt.Sprint(d.Numbers)
				}
				got = parsers.Truncate(got, 60)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s %s\t%s\n", name, s.Files[v.File].Path, query(v), got)
	}
	tw.Flush()
	fmt.Fprintf(out, "  test_uuid %s, start %s, end %s\n", p.Metadata.TestUUID, p.Metadata.Start.Format("2006-01-02T15:04:05Z07:00"), p.Metadata.End.Format("2006-01-02T15:04:05Z07:00"))
	fmt.Fprintln(out, "  labels:")
	for _, k := range sortedNames(p.Metadata.Labels) {
		fmt.Fprintf(out, "    %s=%s\n", k, p.Metadata.Labels[k])
	}
	fmt.Fprintln(out, "  KPIs:")
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, d := range w.KPIs().Definitions() {
		v, ok := p.KPIs[d.Name]
		text := "(absent)"
		if ok {
			text = d.Display(v.Value)
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", d.Name, text, d.Direction)
	}
	tw.Flush()
	for _, wn := range warnings {
		fmt.Fprintf(out, "  warning: %s\n", wn)
	}
	if err := lts.Validate(p, w.KPIs()); err != nil {
		fmt.Fprintf(out, "  strict validation: %v\n", err)
		return exitcode.Errorf(exitcode.InvalidInput, "%s: the payload of %s is invalid", o.File, e.Path)
	}
	fmt.Fprintln(out, "  strict validation: ok")
	return nil
}

func exitText(code *int) string {
	if code == nil {
		return "unknown"
	}
	return fmt.Sprint(*code)
}

func query(v *declared.Value) string {
	switch {
	case v.Path != "":
		return v.Path
	case v.Column != "":
		return "column " + v.Column
	}
	return "regex " + v.Regex
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
