package pipeline

import (
	"context"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/runner/host"
)

// FormatText is the report for a person (host check's default).
const FormatText = "text"

// HostCheckOptions are the options of `seshat host check`.
type HostCheckOptions struct {
	// Format is FormatText (default) or FormatJSON.
	Format string
	// Sample is how long other processes are watched for their CPU use
	// (0: not watched).
	Sample time.Duration
}

// HostCheck runs `seshat host check`: what makes this host noisy, one line
// per check and a verdict line last (or one JSON document). A noisy host
// is a finding, not an error: it exits 0 either way.
func HostCheck(ctx context.Context, env Env, o HostCheckOptions) error {
	format := o.Format
	if format == "" {
		format = FormatText
	}
	if format != FormatText && format != FormatJSON {
		return exitcode.Errorf(exitcode.InvalidInput, "--format: %q is not %s or %s", o.Format, FormatText, FormatJSON)
	}
	if o.Sample < 0 {
		return exitcode.Errorf(exitcode.InvalidInput, "--sample %s: must not be negative", o.Sample)
	}
	r, err := host.Inspect(ctx, env.Host, host.Options{Sample: o.Sample})
	if err != nil {
		return err
	}
	if format == FormatJSON {
		return r.WriteJSON(env.Stdout)
	}
	return r.WriteText(env.Stdout)
}
