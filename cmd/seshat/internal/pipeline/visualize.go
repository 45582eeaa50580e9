package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	kpihistory "github.com/seshat-bench/seshat/analyze/history"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/workloads"
)

// VisualizeOptions are the options of `seshat visualize`.
type VisualizeOptions struct {
	ResultsDir string
	Workload   string
	Filters    string
	NoCache    bool
	// PlotsFile is a plots.yaml; Generate lines name reports or plots
	// directly and win over PlotsFile. Without either, every report of
	// every workload is made.
	PlotsFile string
	Generate  []string
	// History is where the KPI history report reads stored KPIs: an LTS
	// store URL (sqlite:PATH, http(s)://host:port) or a file of LTS
	// payloads (as `parse --output-lts` writes them).
	History string
	// Connection says how to reach an OpenSearch History (indices, TLS,
	// password file), as for upload and regression.
	Connection     StoreConnection
	BatchKey, XKey string
	// HistoryAxis is the x axis of the KPI history figures: time (the
	// default when empty) or build.
	HistoryAxis string
	// RegressionReport is the regression_report.html (or its directory)
	// reports_index.html links to; when empty, a regression-report
	// directory under or beside the output directory, if there is one.
	RegressionReport string
	OutputDir        string
}

// Visualize runs `seshat visualize`: check what is asked (unknown names
// fail before any parsing), open the history, parse the results once, then
// write the figures, pages and indexes.
func Visualize(ctx context.Context, env Env, opts VisualizeOptions) error {
	if opts.OutputDir == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--output-dir is required")
	}
	if opts.ResultsDir == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--results-dir is required")
	}
	if opts.HistoryAxis != "" && !slices.Contains(plotting.HistoryAxes(), opts.HistoryAxis) {
		return exitcode.Errorf(exitcode.InvalidInput, "--history-axis %q: want %s", opts.HistoryAxis, strings.Join(plotting.HistoryAxes(), " or "))
	}
	// The workload file of the results declares reports too.
	if err := discoverWorkload(&env, opts.ResultsDir); err != nil {
		return err
	}
	var regs []*plotting.Registry
	for _, p := range env.registry().PlotProviders() {
		regs = append(regs, p.Plots())
	}
	jobs, err := visualizeJobs(opts, regs)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := plotting.Check(regs, j.Generate); err != nil {
			return exitcode.With(exitcode.InvalidInput, err)
		}
	}
	history, closeHistory, err := openHistory(ctx, env, opts.History, opts.Connection)
	if err != nil {
		return err
	}
	defer closeHistory()
	m, err := LoadMatrix(ctx, &env, opts.ResultsDir, opts.Workload, opts.Filters, opts.NoCache)
	if err != nil {
		return err
	}
	if len(opts.Generate) == 0 && opts.PlotsFile == "" {
		// By default, the reports of the workloads these results hold.
		present := map[string]bool{}
		for _, e := range m.Entries {
			present[e.Workload] = true
		}
		var used []*plotting.Registry
		for _, r := range regs {
			if present[r.Workload()] {
				used = append(used, r)
			}
		}
		if len(used) > 0 {
			regs = used
			if jobs, err = visualizeJobs(opts, regs); err != nil {
				return err
			}
		}
	}
	// The KPI history pages draw the points of the one grouping
	// (analyze/history) that regression and serve use.
	var source plotting.HistorySource
	if history != nil {
		source = &kpihistory.Source{Store: history}
	}
	res, err := plotting.Generate(ctx, m, plotting.Options{
		OutputDir: opts.OutputDir, Jobs: jobs, Registries: regs,
		BatchKey: opts.BatchKey, XKey: opts.XKey, History: source, HistoryAxis: opts.HistoryAxis,
		Regression: regressionLink(env, opts.OutputDir, opts.RegressionReport), Log: env.Log,
	})
	var unknown *plotting.UnknownError
	if errors.As(err, &unknown) {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.status(), m.Stats())
	fmt.Fprintf(env.status(), "wrote %d pages (%d without data), %d figures: %s\n", res.Pages, res.EmptyPages, res.Figures, res.Index)
	return nil
}

// regressionLink finds the regression report the index links to: the one
// named (a file, or a directory holding regression_report.html; linked
// even when it is not written yet: in CI the analysis may run after the
// reports), else a regression report under or beside the output
// directory (findRegressionReport). Its verdict comes from the
// regression_summary.json beside it, when there.
func regressionLink(env Env, outDir, named string) *plotting.RegressionLink {
	var page string
	switch {
	case named != "":
		page = named
		fi, err := os.Stat(named)
		if (err == nil && fi.IsDir()) || (err != nil && !strings.HasSuffix(named, ".html")) {
			page = filepath.Join(named, RegressionHTML) // a report directory, maybe not written yet
		}
		if err != nil {
			env.logger().Debug("--regression-report not written yet; linked as named", "path", page, "err", err)
		}
	default:
		page = findRegressionReport(outDir)
		if page == "" {
			return nil
		}
	}
	link := &plotting.RegressionLink{Href: relativeHref(outDir, page)}
	data, err := parsers.ReadLimited(filepath.Join(filepath.Dir(page), RegressionSummary), parsers.DefaultLimit)
	if err != nil {
		return link
	}
	var summary struct {
		Outcome string `json:"outcome"`
		Verdict string `json:"verdict"`
	}
	if json.Unmarshal(data, &summary) == nil {
		link.Outcome, link.Verdict = summary.Outcome, summary.Verdict
	}
	return link
}

// findRegressionReport looks for the regression_report.html of `seshat
// regression` under or beside outDir: in a regression-report directory (the
// default --report-dir) first, else in any directory under outDir, else
// beside it (the tour's seshat-tour/regression beside seshat-tour/reports),
// the first by name; "" when there is none.
func findRegressionReport(outDir string) string {
	parent := filepath.Join(outDir, "..")
	dirs := []string{filepath.Join(outDir, DefaultRegressionReportDir), filepath.Join(parent, DefaultRegressionReportDir)}
	dirs = append(append(dirs, subdirs(outDir)...), subdirs(parent)...)
	return firstFile(dirs, RegressionHTML)
}

// subdirs are the directories in root, by name; none when it cannot be
// read.
func subdirs(root string) []string {
	entries, err := os.ReadDir(root) // sorted by name
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

// firstFile is the path of the first regular file name in dirs; "" when
// none has one.
func firstFile(dirs []string, name string) string {
	for _, dir := range dirs {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// relativeHref is a link from a page in dir to target, slash-separated.
func relativeHref(dir, target string) string {
	absDir, err1 := filepath.Abs(dir)
	absTarget, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(target)
	}
	rel, err := filepath.Rel(absDir, absTarget)
	if err != nil {
		return filepath.ToSlash(absTarget)
	}
	return filepath.ToSlash(rel)
}

// visualizeJobs reads what to generate: plots.yaml, --generate lines, or
// every report of every workload.
func visualizeJobs(opts VisualizeOptions, regs []*plotting.Registry) ([]plotting.Job, error) {
	switch {
	case len(opts.Generate) > 0:
		// --generate wins over --plots: the narrower request is the one a
		// person typed (plots.yaml often comes from seshat.yaml).
		job := plotting.Job{}
		for _, g := range opts.Generate {
			d, err := plotting.ParseDirective(g)
			if err != nil {
				return nil, exitcode.Errorf(exitcode.InvalidInput, "--generate: %w", err)
			}
			job.Generate = append(job.Generate, d)
		}
		return []plotting.Job{job}, nil
	case opts.PlotsFile != "":
		data, err := parsers.ReadLimited(opts.PlotsFile, parsers.DefaultLimit)
		if err != nil {
			return nil, exitcode.Input(fmt.Errorf("--plots: %w", err))
		}
		jobs, err := plotting.ReadSpec(opts.PlotsFile, data)
		if err != nil {
			return nil, exitcode.With(exitcode.InvalidInput, err)
		}
		return jobs, nil
	}
	job := plotting.Job{}
	for _, r := range regs {
		for _, d := range r.Reports() {
			if !containsDirective(job.Generate, d) {
				job.Generate = append(job.Generate, d)
			}
		}
	}
	return []plotting.Job{job}, nil
}

func containsDirective(ds []plotting.Directive, d plotting.Directive) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// openHistory opens the KPI history named by --history: an LTS store URL
// (a scheme a backend registered: sqlite:PATH, http(s)://host:port) or a
// file of LTS payloads (optionally file:PATH), held in memory; nil when
// none. The returned close function is never nil.
func openHistory(ctx context.Context, env Env, source string, conn StoreConnection) (lts.Store, func(), error) {
	nop := func() {}
	if source == "" {
		return nil, nop, nil
	}
	if namesStore(source) {
		// A store that does not exist is refused rather than created: a
		// mistyped path would read as an empty history.
		s, err := openStore(ctx, env, source, conn)
		if errors.Is(err, lts.ErrNoStore) {
			return nil, nop, exitcode.Errorf(exitcode.InvalidInput, "--history %s: %w", redact.URL(source), err)
		}
		if err != nil {
			return nil, nop, fmt.Errorf("--history: %w", err)
		}
		return s, func() {
			if err := s.Close(); err != nil {
				env.logger().Warn(fmt.Sprintf("--history %s: %v", s, err))
			}
		}, nil
	}
	path := strings.TrimPrefix(source, "file:")
	records, err := readLTSFile(env, path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) { // not read: no hint about its content
		return nil, nop, fmt.Errorf("--history: %w", err)
	}
	if err != nil {
		return nil, nop, fmt.Errorf("--history: %w (want a JSON array of LTS payloads, as seshat parse --output-lts writes)", err)
	}
	for _, r := range records {
		for _, w := range r.Warnings {
			env.logger().Warn(fmt.Sprintf("--history: %s: %s (left out)", r.Path, w))
		}
	}
	return lts.NewMemory(path, lts.Payloads(records)...), nop, nil
}

// namesStore tells whether --history names a store rather than a file: a
// scheme a backend registered, or what may hold a password
// (admin:pw@host:9200, a forgotten http://) when no file has that name:
// lts.Open refuses it hiding the password, where reading a file would
// echo the whole name.
func namesStore(source string) bool {
	if lts.IsStoreURL(source) {
		return true
	}
	if redact.URL(source) == source {
		return false
	}
	_, err := os.Stat(source)
	return err != nil
}

// Generators lists every report and plot of the workloads of reg as
// --generate takes them ("report: Rate per batch"), each followed by a tab
// and its description (what shell completion shows).
func Generators(reg *workloads.Registry) []string {
	var out []string
	for _, p := range reg.PlotProviders() {
		r := p.Plots()
		for _, kind := range []plotting.Kind{plotting.KindReport, plotting.KindPlot} {
			for _, name := range r.Names(kind) {
				d := plotting.Directive{Kind: kind, Name: name}
				g, _ := r.Lookup(d)
				out = append(out, d.String()+"\t"+g.Description)
			}
		}
	}
	return out
}
