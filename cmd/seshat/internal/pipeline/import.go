package pipeline

import (
	"fmt"
	"time"

	"github.com/seshat-bench/seshat/importers"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/models"
)

// ImportOptions are the options of `seshat import`.
type ImportOptions struct {
	Format     string
	Inputs     []string
	ResultsDir string
	Expe       string
	// Time and BuildTime are RFC 3339 texts ("" when not given).
	Time, BuildTime          string
	CIEngine, CIRunID, CIURL string
	Build                    models.Build
}

// Import runs `seshat import`: every input read by the format's importer,
// written as run directories; what was skipped is logged.
func Import(env Env, o ImportOptions) error {
	opts := importers.Options{Build: o.Build, Expe: o.Expe}
	for _, t := range []struct {
		flag, text string
		into       *time.Time
	}{{"--time", o.Time, &opts.Time}, {"--build-time", o.BuildTime, &opts.Build.Time}} {
		if t.text == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.text)
		if err != nil {
			return exitcode.Errorf(exitcode.InvalidInput, "%s: %q is not an RFC 3339 time", t.flag, t.text)
		}
		*t.into = v.UTC()
	}
	if o.CIEngine != "" || o.CIRunID != "" || o.CIURL != "" {
		// Written into build.json: never with a user and password.
		ciURL, err := redact.StripUserinfo(o.CIURL)
		if err != nil {
			return exitcode.Errorf(exitcode.InvalidInput, "--ci-url %s: %w", redact.URL(o.CIURL), err)
		}
		if ciURL != "" && models.ValidateValue("--ci-url", ciURL, "url") != nil {
			return exitcode.Errorf(exitcode.InvalidInput, "--ci-url %q: not an absolute URL", ciURL)
		}
		opts.Build.CI = &models.CI{Engine: o.CIEngine, RunID: o.CIRunID, URL: ciURL}
	}
	s, err := importers.Import(o.Format, o.Inputs, o.ResultsDir, opts)
	for _, w := range s.Warnings {
		env.logger().Warn(w)
	}
	if s.Runs > 0 {
		fmt.Fprintf(env.Stderr, "imported %d runs from %d of %d inputs into %v\n", s.Runs, s.Inputs, len(o.Inputs), s.Dirs)
	}
	return err
}
