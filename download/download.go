package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
)

// Defaults of Options.
const (
	DefaultJobs         = 8
	DefaultStallTimeout = 30 * time.Second
)

// Options configure one download.
type Options struct {
	// URL is the top of the tree: a directory listing, or an S3 bucket
	// listing (its prefix parameter names the tree).
	URL string
	// Dir is the results directory the tree is written into; nothing is
	// written outside it.
	Dir  string
	Mode Mode
	// Jobs bounds the requests in flight (DefaultJobs when 0).
	Jobs int
	// MaxFileSize refuses larger files (0: no limit).
	MaxFileSize int64
	// StallTimeout abandons a request that brings no data for this long
	// (DefaultStallTimeout when 0).
	StallTimeout time.Duration
	// Declared is called once the settings files (and a workload.yaml at
	// the top) are in Dir, for every mode but All: it says which files the
	// workload of each test root declares. Nil: only the files every run
	// has are fetched.
	Declared func(dir string) (FileSet, error)
	Log      *slog.Logger
	// Progress receives the progress: a line redrawn in place when
	// Terminal, else a line every ProgressEvery (none when 0). Nil: none.
	Progress      io.Writer
	Terminal      bool
	Width         func() int
	ProgressEvery time.Duration
}

// Problem is a file or a listing that could not be had.
type Problem struct {
	// Path is relative to the results directory ("" for the top).
	Path string
	// URL is where it was asked for; nil when nothing was asked
	// (cache-only).
	URL *url.URL
	Err error
}

func (p Problem) String() string {
	if p.URL != nil {
		return p.URL.Redacted() + ": " + p.Err.Error()
	}
	return p.Path + ": " + p.Err.Error()
}

// Report is what a download did.
type Report struct {
	URL  string
	Dir  string
	Mode Mode
	// Format is the kind of listing at the top (see Page.Format, or s3).
	Format string
	// Dirs counts the listing pages read, Listed the files they list,
	// Roots the test roots among them.
	Dirs, Listed, Roots int
	// Selected counts the files the mode wants; each is fetched, kept
	// (already present) or missing.
	Selected, Fetched, Kept int
	Bytes                   int64
	Missing                 []Problem
	// Problems are listings that could not be read and entries refused.
	Problems []Problem
	// Warnings are grouped: each text once, with the test roots it
	// concerns.
	Warnings []Warning
}

// Warning is one warning text and the test roots it concerns.
type Warning struct {
	Text  string
	Roots []string
}

// Complete tells whether every selected file is in the results directory
// and every listing was read.
func (r *Report) Complete() bool { return len(r.Missing) == 0 && len(r.Problems) == 0 }

type downloader struct {
	o        Options
	jobs     int
	client   *client
	root     *os.Root // nil in cache-only mode when Dir does not exist
	progress *progress
	log      *slog.Logger

	mu       sync.Mutex
	report   *Report
	unlisted int // unlisted files asked for and absent
	warnings map[string][]string
	bufs     sync.Pool
}

// Run downloads the tree at o.URL into o.Dir. The report is always
// returned; the error is for what stops the whole download (invalid
// options, a top that is no listing, cancellation). Files and listings
// that fail are in the report, and the rest goes on.
func Run(ctx context.Context, o Options) (*Report, error) {
	d := &downloader{o: o, jobs: o.Jobs, log: o.Log, warnings: map[string][]string{},
		report: &Report{URL: redact.URL(o.URL), Dir: o.Dir, Mode: o.Mode}}
	d.bufs.New = func() any { b := make([]byte, 32<<10); return &b }
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	top, err := d.check()
	if err != nil {
		return d.report, err
	}
	if o.Mode != CacheOnly {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return d.report, fmt.Errorf("--results-dir: %w", err)
		}
	}
	d.root, err = os.OpenRoot(o.Dir)
	switch {
	case err == nil:
		defer d.root.Close()
	case o.Mode == CacheOnly && errors.Is(err, fs.ErrNotExist):
	default:
		return d.report, fmt.Errorf("--results-dir: %w", err)
	}
	d.client = newClient(d.jobs, d.o.StallTimeout)
	d.progress = newProgress(o)
	d.progress.start()
	defer d.progress.finish()

	t, err := d.walk(ctx, top)
	if err != nil {
		return d.finish(), err
	}
	d.report.Format, d.report.Dirs, d.report.Listed = t.format, t.dirs, len(t.files)
	sort.Slice(t.files, func(i, j int) bool { return t.files[i].rel < t.files[j].rel })
	roots := testRoots(t.files)
	d.report.Roots = len(roots)

	// The settings first (what the runs' workloads are), exit_code last
	// (a run is complete once it is there, as seshat run writes it).
	var first, rest, last []remoteFile
	for _, f := range t.files {
		switch {
		case path.Base(f.rel) == exitCodeFile:
			last = append(last, f)
		case always(f.rel):
			first = append(first, f)
		default:
			rest = append(rest, f)
		}
	}
	d.progress.plan(len(first) + len(last))
	d.fetchAll(ctx, first)
	rest = d.declared(t.files, roots, rest)
	d.progress.plan(len(rest))
	d.fetchAll(ctx, rest)
	d.fetchAll(ctx, last)
	d.report.Selected = len(first) + len(rest) + len(last) - d.unlisted
	return d.finish(), ctx.Err()
}

// check validates the options and returns the top URL.
func (d *downloader) check() (*url.URL, error) {
	o := &d.o
	if o.URL == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "name the URL to download")
	}
	if err := redact.CheckUserinfo(o.URL); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "%s: %w", redact.URL(o.URL), err)
	}
	top, err := url.Parse(o.URL)
	if err != nil || (top.Scheme != "http" && top.Scheme != "https") || top.Host == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "%s: not an http:// or https:// URL", redact.URL(o.URL))
	}
	if o.Dir == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--results-dir: name the directory to download into")
	}
	if _, err := ParseMode(string(o.Mode)); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, fmt.Errorf("--mode: %w", err))
	}
	if o.Jobs < 0 || o.MaxFileSize < 0 || o.StallTimeout < 0 {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--jobs, --max-file-size and --stall-timeout cannot be negative")
	}
	if d.jobs == 0 {
		d.jobs = DefaultJobs
	}
	if o.StallTimeout == 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	return top, nil
}

// declared keeps, of rest, the files the workloads of their test roots
// declare (all of rest in All mode), and adds the dot files they declare
// that the listing does not show (nginx's autoindex hides them): those are
// asked for by name, and their absence is no error.
func (d *downloader) declared(files []remoteFile, roots []string, rest []remoteFile) []remoteFile {
	if d.o.Declared == nil || len(roots) == 0 {
		if d.o.Mode == All {
			return rest
		}
		return nil
	}
	set, err := d.o.Declared(d.o.Dir)
	if err != nil {
		d.warn(err.Error(), "")
	}
	extra := extraSettings(files)
	hasYAML := map[string]bool{} // the roots holding settings.yaml, not .yml
	for _, f := range files {
		if dir, name := path.Split(f.rel); name == settingsFile {
			hasYAML[strings.TrimSuffix(dir, "/")] = true
		}
	}
	patterns := make(map[string][]Pattern, len(roots))
	for _, r := range roots {
		if set == nil {
			break
		}
		var settings map[string]any
		if d.root != nil {
			var errs []error
			settings, errs = settingsOf(d.root, r, extra, !hasYAML[r])
			for _, err := range errs {
				d.warn(err.Error(), r)
			}
		}
		ps, err := set(settings)
		if err != nil {
			d.warn(err.Error(), r)
		}
		patterns[r] = ps
	}
	var keep []remoteFile
	for _, f := range rest {
		r, ok := rootOf(roots, f.rel)
		if !ok {
			if d.o.Mode == All {
				keep = append(keep, f)
			}
			continue
		}
		rel := f.rel
		if r != "" {
			rel = f.rel[len(r)+1:]
		}
		if d.o.Mode == All || match(patterns[r], rel) {
			keep = append(keep, f)
		}
	}
	return append(keep, unlistedDotFiles(files, roots, patterns)...)
}

// unlistedDotFiles are the dot files (.uuid) the test roots' workloads
// declare at the top of the root and the listing does not show, to be
// asked for beside the root's settings file.
func unlistedDotFiles(files []remoteFile, roots []string, patterns map[string][]Pattern) []remoteFile {
	listed := make(map[string]bool, len(files))
	settings := map[string]*url.URL{}
	for _, f := range files {
		listed[f.rel] = true
		if dir, name := path.Split(f.rel); name == settingsFile || name == settingsFileAlt {
			settings[strings.TrimSuffix(dir, "/")] = f.url
		}
	}
	var out []remoteFile
	for _, r := range roots {
		for _, p := range patterns[r] {
			rel := join(r, p.Name)
			if p.Dir != "" || !strings.HasPrefix(p.Name, ".") || unsafeName(p.Name) != "" || listed[rel] || settings[r] == nil {
				continue
			}
			listed[rel] = true
			u := settings[r].ResolveReference(&url.URL{Path: p.Name, RawPath: url.PathEscape(p.Name)})
			out = append(out, remoteFile{rel: rel, url: u, size: -1, unlisted: true})
		}
	}
	return out
}

// batchSize bounds the files of one directory a worker takes at once: a
// directory of thousands of files is still fetched jobs at a time.
const batchSize = 16

// batch is files of one directory, handled by one worker through one
// os.Root of that directory: resolving the path once per batch instead of
// at every open, stat and rename halves the system calls of a download of
// many small files.
type batch struct {
	dir   string // slash-separated, "." for the top
	files []remoteFile
}

// batches groups files by directory, in the order the directories come,
// batchSize files at most each.
func batches(files []remoteFile) []batch {
	var out []batch
	open := map[string]int{} // directory -> its batch being filled
	for _, f := range files {
		dir := path.Dir(f.rel)
		i, ok := open[dir]
		if !ok || len(out[i].files) == batchSize {
			out = append(out, batch{dir: dir})
			i = len(out) - 1
			open[dir] = i
		}
		out[i].files = append(out[i].files, f)
	}
	return out
}

// fetchAll brings files, jobs at a time, each as the mode says: fetched,
// kept when present (prefer-cache), or only looked for (cache-only).
func (d *downloader) fetchAll(ctx context.Context, files []remoteFile) {
	work := make(chan batch)
	var wg sync.WaitGroup
	for range min(d.jobs, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				d.batch(ctx, b)
			}
		}()
	}
	for _, b := range batches(files) {
		if ctx.Err() != nil {
			break
		}
		work <- b
	}
	close(work)
	wg.Wait()
}

// batch brings the files of one directory.
func (d *downloader) batch(ctx context.Context, b batch) {
	dir, err := d.openDir(b.dir)
	if err != nil {
		for _, f := range b.files {
			u := f.url
			if d.o.Mode == CacheOnly {
				u = nil
			}
			d.missing(Problem{Path: f.rel, URL: u, Err: err})
		}
		return
	}
	if dir != d.root {
		defer dir.Close()
	}
	for _, f := range b.files {
		if ctx.Err() != nil {
			return
		}
		d.one(ctx, dir, f)
	}
}

// errAbsent is why a file not in the results directory is missing in
// cache-only mode.
var errAbsent = errors.New("absent")

// openDir opens a directory of the results directory, making it unless
// the mode fetches nothing. Nil with no error: absent in cache-only mode.
func (d *downloader) openDir(dir string) (*os.Root, error) {
	if d.root == nil {
		return nil, nil
	}
	if dir == "." {
		return d.root, nil
	}
	name := filepath.FromSlash(dir)
	r, err := d.root.OpenRoot(name)
	switch {
	case err == nil:
		return r, nil
	case errors.Is(err, fs.ErrNotExist) && d.o.Mode == CacheOnly:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		if err := d.root.MkdirAll(name, 0o755); err != nil {
			return nil, unwrapPath(err)
		}
		r, err = d.root.OpenRoot(name)
	}
	return r, unwrapPath(err)
}

// one brings one file, through dir (its directory), and records what
// became of it.
func (d *downloader) one(ctx context.Context, dir *os.Root, f remoteFile) {
	if d.o.Mode == CacheOnly || d.o.Mode == PreferCache {
		why := present(dir, f)
		if why == nil {
			d.mu.Lock()
			d.report.Kept++
			d.mu.Unlock()
			d.progress.kept()
			return
		}
		if d.o.Mode == CacheOnly {
			if f.unlisted && errors.Is(why, errAbsent) {
				d.absentUnlisted()
				return
			}
			d.missing(Problem{Path: f.rel, Err: why})
			return
		}
	}
	if d.o.MaxFileSize > 0 && f.size > d.o.MaxFileSize {
		d.missing(Problem{Path: f.rel, URL: f.url, Err: &TooLargeError{Size: f.size, Max: d.o.MaxFileSize}})
		return
	}
	n, err := d.fetch(ctx, dir, f)
	if err != nil {
		if ctx.Err() != nil {
			return // interrupted: reported once, by Run
		}
		var se *StatusError
		if f.unlisted && errors.As(err, &se) && se.Code == http.StatusNotFound {
			d.absentUnlisted()
			return
		}
		d.log.Debug("not fetched", "url", f.url.Redacted(), "err", err)
		d.missing(Problem{Path: f.rel, URL: f.url, Err: err})
		return
	}
	d.mu.Lock()
	d.report.Fetched++
	d.report.Bytes += n
	d.mu.Unlock()
	d.progress.fetched(n)
}

// present says why f is not in its directory dir as the listing has it
// (nil when it is).
func present(dir *os.Root, f remoteFile) error {
	if dir == nil {
		return errAbsent
	}
	st, err := dir.Stat(path.Base(f.rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errAbsent
	case err != nil:
		return unwrapPath(err)
	case !st.Mode().IsRegular():
		return errors.New("not a regular file")
	case f.size >= 0 && st.Size() != f.size:
		return fmt.Errorf("%d bytes, the listing says %d", st.Size(), f.size)
	}
	return nil
}

// fetch writes f into its directory dir: into a temporary file renamed
// over it once whole, so that an interruption leaves the old file or none.
// It is whole when it has the bytes of the Content-Length (the transport
// checks) and no fewer than the listing gives (some servers serve a stored
// compressed object decompressed: more is fine).
func (d *downloader) fetch(ctx context.Context, dir *os.Root, f remoteFile) (n int64, err error) {
	max := d.o.MaxFileSize
	var fillErr error // the reason, without the temporary file's name
	err = d.client.get(ctx, f.url, func(resp *http.Response, body io.Reader) error {
		if max > 0 && resp.ContentLength > max {
			return &TooLargeError{Size: resp.ContentLength, Max: max}
		}
		werr := atomicfile.WriteInNoSync(dir, path.Base(f.rel), 0o644, func(w io.Writer) error {
			if max > 0 {
				body = io.LimitReader(body, max+1)
			}
			buf := d.bufs.Get().(*[]byte)
			defer d.bufs.Put(buf)
			// Hide the file's ReadFrom: it would take a buffer of its own.
			var cerr error
			n, cerr = io.CopyBuffer(struct{ io.Writer }{w}, body, *buf)
			switch {
			case cerr != nil:
				fillErr = cerr
			case max > 0 && n > max:
				fillErr = &TooLargeError{Size: -1, Max: max}
			case f.size >= 0 && n < f.size:
				fillErr = fmt.Errorf("%d bytes, fewer than the %d the listing gives", n, f.size)
			}
			return fillErr
		})
		if fillErr != nil {
			return fillErr
		}
		return werr
	})
	return n, unwrapPath(err)
}

// unwrapPath drops the path of an *fs.PathError: the messages name the
// file relative to the results directory, or its URL, themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// problem records a listing that could not be read, or an entry refused.
func (d *downloader) problem(rel string, u *url.URL, err error) {
	d.log.Debug("listing problem", "url", u.Redacted(), "err", err)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.report.Problems = append(d.report.Problems, Problem{Path: rel, URL: u, Err: err})
}

// absentUnlisted counts an unlisted file that is not there either: it is
// not selected after all.
func (d *downloader) absentUnlisted() {
	d.progress.kept()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unlisted++
}

func (d *downloader) missing(p Problem) {
	d.progress.failed()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.report.Missing = append(d.report.Missing, p)
}

// warn records a warning about a test root ("" for the whole tree).
func (d *downloader) warn(text, root string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.warnings[text]; !ok {
		d.warnings[text] = nil
	}
	if root != "" {
		d.warnings[text] = append(d.warnings[text], root)
	}
}

// finish sorts the report, so that it reads the same whatever the order
// the requests ended in.
func (d *downloader) finish() *Report {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.report
	byPlace := func(ps []Problem) {
		sort.SliceStable(ps, func(i, j int) bool {
			if ps[i].Path != ps[j].Path {
				return ps[i].Path < ps[j].Path
			}
			return ps[i].String() < ps[j].String()
		})
	}
	byPlace(r.Missing)
	byPlace(r.Problems)
	r.Warnings = r.Warnings[:0]
	for text, roots := range d.warnings {
		sort.Strings(roots)
		r.Warnings = append(r.Warnings, Warning{Text: text, Roots: roots})
	}
	sort.Slice(r.Warnings, func(i, j int) bool { return r.Warnings[i].Text < r.Warnings[j].Text })
	return r
}
