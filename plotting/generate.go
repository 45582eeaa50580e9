package plotting

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/store"
)

// IndexFile is the page linking every report of an output directory.
const IndexFile = "reports_index.html"

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed when a report is first written, not at every start
// of seshat.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(templateFS, "templates/*.tmpl"))
})

// Options control Generate.
type Options struct {
	OutputDir string
	Jobs      []Job
	// Registries are the reports and plots of every workload that has some;
	// a directive none of them knows fails before anything is written.
	Registries     []*Registry
	BatchKey, XKey string
	History        HistorySource
	// HistoryAxis is the x axis of the KPI history figures: AxisTime
	// (the default when empty) or AxisBuild.
	HistoryAxis string
	// Regression, when set, is the regression report the top
	// reports_index.html links to.
	Regression *RegressionLink
	Log        *slog.Logger
}

// RegressionLink is the regression report (`seshat regression`) an index
// links to, with its verdict.
type RegressionLink struct {
	// Href is the report's address relative to the output directory.
	Href string
	// Outcome (failed, passed-with-findings, passed, no-data) and Verdict
	// are the report's own words, from its regression_summary.json; empty
	// when it could not be read.
	Outcome, Verdict string
}

// Result counts what Generate wrote.
type Result struct {
	Pages, Figures, EmptyPages int
	// Index is the path of the top reports_index.html.
	Index string
}

// Generate writes the pages of every job: figures (SVG, PNG, CSV) under
// figures/, one HTML page per directive, a reports_index.html per job and,
// when the jobs have ids, one at the top linking them. An unknown directive
// is an *UnknownError; nothing is written then.
func Generate(ctx context.Context, m *store.Matrix, opts Options) (*Result, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	regs := append([]*Registry(nil), opts.Registries...)
	sort.Slice(regs, func(i, j int) bool { return regs[i].Workload() < regs[j].Workload() })
	for _, j := range opts.Jobs {
		if err := Check(regs, j.Generate); err != nil {
			return nil, err
		}
	}
	if err := mkdirAll(opts.OutputDir); err != nil {
		return nil, err
	}
	res := &Result{Index: filepath.Join(opts.OutputDir, IndexFile)}
	var top []indexJob
	withIDs := false
	for _, job := range opts.Jobs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := opts.OutputDir
		if job.ID != "" {
			withIDs = true
			dir = filepath.Join(opts.OutputDir, job.ID)
		}
		ij, err := generateJob(ctx, m, job, dir, regs, opts, res)
		if err != nil {
			return nil, err
		}
		if job.ID != "" {
			ij.Href = job.ID + "/"
			if err := writeIndex(dir, indexView{Title: job.ID, Summary: "Reports of " + job.ID + ".", TopHref: "../" + IndexFile, Jobs: []indexJob{{Entries: ij.Entries, Filters: ij.Filters, Pages: ij.Pages}}}); err != nil {
				return nil, err
			}
			for i := range ij.Pages {
				ij.Pages[i].Href = ij.Href + ij.Pages[i].Href
			}
		}
		top = append(top, ij)
	}
	summary := fmt.Sprintf("%d entries from %s.", len(m.Entries), path.Base(filepath.ToSlash(m.ResultsDir)))
	if withIDs {
		summary = fmt.Sprintf("%d report groups over %s", len(top), summary)
	}
	if err := writeIndex(opts.OutputDir, indexView{Title: "Seshat reports", Summary: summary, Jobs: top, Regression: opts.Regression}); err != nil {
		return nil, err
	}
	return res, nil
}

// generateJob writes the pages of one job into dir and returns its index entry.
func generateJob(ctx context.Context, m *store.Matrix, job Job, dir string, regs []*Registry, opts Options, res *Result) (indexJob, error) {
	if err := mkdirAll(dir); err != nil {
		return indexJob{}, err
	}
	byWorkload := map[string][]*store.Entry{}
	count := 0
	for _, e := range m.Entries {
		if job.Match(e.Settings) {
			byWorkload[e.Workload] = append(byWorkload[e.Workload], e)
			count++
		}
	}
	ij := indexJob{ID: job.ID, Entries: count, Filters: job.FilterText()}
	topHref := ""
	if job.ID != "" {
		topHref = "../" + IndexFile
	}
	stems := map[string]bool{}
	contexts := map[string]*Context{}
	for _, d := range job.Generate {
		// Every workload that knows the directive and has entries gets a
		// page; when none has entries, the first that knows it says so.
		var targets []*Registry
		for _, r := range regs {
			if _, ok := r.Lookup(d); ok && len(byWorkload[r.Workload()]) > 0 {
				targets = append(targets, r)
			}
		}
		if len(targets) == 0 {
			for _, r := range regs {
				if _, ok := r.Lookup(d); ok {
					targets = append(targets, r)
					break
				}
			}
		}
		for _, r := range targets {
			g, _ := r.Lookup(d)
			stem := Slug(d.Name)
			if d.Kind == KindPlot {
				stem = "plot_" + stem
			}
			if len(targets) > 1 {
				stem = Slug(r.Workload()) + "_" + stem
			}
			if stems[stem] {
				continue // the same directive listed twice
			}
			stems[stem] = true
			gctx := contexts[r.Workload()]
			if gctx == nil {
				entries := byWorkload[r.Workload()]
				gctx = &Context{Context: ctx, Workload: r.Workload(), Entries: entries, Variables: store.Variables(entries),
					BatchKey: opts.BatchKey, XKey: opts.XKey, History: opts.History, HistoryAxis: opts.HistoryAxis, Log: opts.Log}
				contexts[r.Workload()] = gctx
			}
			page, err := buildPage(gctx, g, job)
			if err != nil {
				return indexJob{}, fmt.Errorf("%s %s: %w", r.Workload(), d, err)
			}
			if err := writePage(dir, stem, page, gctx, job, topHref); err != nil {
				return indexJob{}, err
			}
			n := len(page.Figures())
			res.Pages++
			res.Figures += n
			if page.Empty != "" {
				res.EmptyPages++
			}
			title := page.Title
			if len(targets) > 1 {
				title += " (" + r.Workload() + ")"
			}
			ij.Pages = append(ij.Pages, indexPage{Title: title, Href: stem + ".html", Description: g.Description, Figures: n, Empty: page.Empty != ""})
		}
	}
	return ij, nil
}

// buildPage runs a generator, or says there is nothing to draw.
func buildPage(ctx *Context, g Generator, job Job) (*Page, error) {
	if len(ctx.Entries) == 0 {
		msg := "No entries of the " + ctx.Workload + " workload in these results"
		if f := job.FilterText(); f != "" {
			msg = "No entries of the " + ctx.Workload + " workload match the filters " + f
		}
		return &Page{Title: g.Name, Empty: msg + "."}, nil
	}
	page, err := g.Build(ctx)
	if err != nil {
		return nil, err
	}
	if page.Title == "" {
		page.Title = g.Name
	}
	return page, nil
}

// writePage writes the figures of a page under figures/<stem>/ (on
// GOMAXPROCS workers: drawing and PNG encoding dominate) and the page.
func writePage(dir, stem string, page *Page, ctx *Context, job Job, topHref string) error {
	figs := page.Figures()
	figDir := filepath.Join(dir, "figures", stem)
	if len(figs) > 0 {
		if err := mkdirAll(figDir); err != nil {
			return err
		}
	}
	names := map[string]int{}
	files := make([]string, len(figs))
	for i, f := range figs {
		name := Slug(f.Name)
		names[name]++
		if k := names[name]; k > 1 {
			name += "_" + strconv.Itoa(k)
		}
		files[i] = name
		base := "figures/" + stem + "/" + name
		f.SVG, f.PNG, f.CSV = base+".svg", base+".png", base+".csv"
		if f.Chart != nil {
			f.Chart.ID = stem + "/" + name
		}
		if f.Alt == "" {
			f.Alt = f.Title
		}
	}
	errs := make([]error, len(figs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(figs)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = figs[i].write(figDir, files[i])
			}
		})
	}
	for i := range figs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	vary, fixed := settingsTables(ctx.Entries)
	view := pageView{Page: page, Workload: ctx.Workload, JobID: job.ID, Filters: job.FilterText(),
		EntryCount: len(ctx.Entries), Vary: vary, Fixed: fixed, IndexHref: IndexFile, TopHref: topHref}
	return render(filepath.Join(dir, stem+".html"), "report.html.tmpl", view)
}

type pageView struct {
	*Page
	Workload, JobID, Filters string
	EntryCount               int
	Vary, Fixed              *Table
	IndexHref, TopHref       string
}

type indexView struct {
	Title, Summary, TopHref string
	Regression              *RegressionLink
	Jobs                    []indexJob
}

type indexJob struct {
	ID, Href, Filters string
	Entries           int
	Pages             []indexPage
}

type indexPage struct {
	Title, Href, Description string
	Figures                  int
	Empty                    bool
}

// Style is the stylesheet of every page (a <style> element), for pages
// written outside this package (the regression report), so that all the
// reports of a run look alike.
func Style() template.HTML {
	var b bytes.Buffer
	if err := templates().ExecuteTemplate(&b, "style", nil); err != nil {
		panic(err) // the embedded template is checked by the tests
	}
	return template.HTML(b.String()) //nolint:gosec // our own embedded stylesheet
}

func writeIndex(dir string, v indexView) error {
	return render(filepath.Join(dir, IndexFile), "index.html.tmpl", v)
}

func render(file, tmpl string, data any) error {
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, tmpl, data); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return atomicfile.WriteFileNoSync(file, buf.Bytes(), 0o644)
}

func sortStrings(s []string) { sort.Strings(s) }
