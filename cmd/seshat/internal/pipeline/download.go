package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/seshat-bench/seshat/download"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
)

// DownloadOptions are the options of `seshat download`.
type DownloadOptions struct {
	URL        string
	ResultsDir string
	Mode       string
	// Workload, when set, is the workload of every run instead of the one
	// its settings name.
	Workload string
	Jobs     int
	// MaxFileSize is --max-file-size as typed (500MB, 1GiB, 0 for none).
	MaxFileSize  string
	StallTimeout time.Duration
}

// downloadProgressEvery is how often a download off a terminal says how
// far it is.
const downloadProgressEvery = 10 * time.Second

// Download runs `seshat download`: the tree at the URL into the results
// directory, then the summary on stdout. Anything missing at the end (a
// file, a listing) exits 1; a tree with nothing in it exits 3.
func Download(ctx context.Context, env Env, o DownloadOptions) error {
	mode, err := download.ParseMode(o.Mode)
	if err != nil {
		return exitcode.With(exitcode.InvalidInput, fmt.Errorf("--mode: %w", err))
	}
	maxSize, err := humanize.ParseBytes(o.MaxFileSize)
	if err != nil || maxSize > 1<<62 {
		return exitcode.Errorf(exitcode.InvalidInput, "--max-file-size %q: not a size (1GiB, 500MB, 0 for no limit)", o.MaxFileSize)
	}
	if o.Workload != "" {
		if _, ok := env.registry().Get(o.Workload); !ok {
			return exitcode.Errorf(exitcode.InvalidInput, "--workload: unknown workload %q (known: %s)", o.Workload, strings.Join(env.registry().Names(), ", "))
		}
	}
	opts := download.Options{
		URL: o.URL, Dir: o.ResultsDir, Mode: mode, Jobs: o.Jobs, MaxFileSize: int64(maxSize), StallTimeout: o.StallTimeout,
		Log: env.logger(),
		Declared: func(dir string) (download.FileSet, error) {
			// A workload.yaml at the top of the tree has just arrived.
			err := discoverWorkload(&env, dir)
			return declaredFiles(env.registry(), o.Workload), err
		},
	}
	if !env.Quiet {
		opts.Progress, opts.Terminal, opts.Width, opts.ProgressEvery = env.Stderr, env.Terminal, env.TermWidth, downloadProgressEvery
	}
	report, err := download.Run(ctx, opts)
	if err != nil {
		var coded *exitcode.Error
		if errors.As(err, &coded) {
			return err
		}
		if report.Dirs == 0 {
			return fmt.Errorf("download: %w", err)
		}
	}
	if werr := report.WriteSummary(env.Stdout); werr != nil {
		return werr
	}
	switch {
	case err != nil:
		return fmt.Errorf("download: %w", err)
	case !report.Complete():
		return exitcode.Errorf(exitcode.Failure, "download: %s missing, %s (listed above)",
			plural(len(report.Missing), "file"), plural(len(report.Problems), "listing problem"))
	case report.Listed == 0:
		return exitcode.Errorf(exitcode.NoData, "download: %s lists no file", report.URL)
	}
	return nil
}

// declaredFiles answers which files a run's workload declares: those of
// the workload its settings name (or the one --workload names); for a run
// naming none or an unknown one, those of every workload known, with a
// warning.
func declaredFiles(reg *workloads.Registry, override string) download.FileSet {
	return func(settings models.Settings) ([]download.Pattern, error) {
		name := override
		if name == "" {
			name, _ = settings["workload"].(string)
		}
		if w, ok := reg.Get(name); ok {
			return download.Patterns(w), nil
		}
		var all []download.Pattern
		for _, n := range reg.Names() {
			w, _ := reg.Get(n)
			all = append(all, download.Patterns(w)...)
		}
		if name == "" {
			return all, errors.New("no `workload` setting (or give --workload): fetching the files every known workload declares")
		}
		return all, fmt.Errorf("unknown workload %q: fetching the files every known workload declares", name)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
