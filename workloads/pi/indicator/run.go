package indicator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads/pi/measure"
)

// Options are what the child process knows besides the settings.
type Options struct {
	// Python is the interpreter given with `seshat run --python`, used
	// when the run's settings name none.
	Python string
	// Dir is the working directory of Python and exec children ("" for
	// the current one).
	Dir string
	// Stdout and Stderr receive the PI's own output: the run's logs.
	Stdout, Stderr io.Writer
	// Env is the base environment of the Python and exec children: the
	// process's own, passed down by cmd/seshat, as no package below cmd
	// reads the environment. Nil leaves them only what the PI adds.
	Env []string
}

// childEnv is the environment of a child: base, then extra.
func childEnv(base, extra []string) []string {
	// Never nil: a nil exec.Cmd.Env would inherit this process's.
	return append(append(make([]string, 0, len(base)+len(extra)), base...), extra...)
}

// Run runs the PI the settings describe and returns its pi.json document.
func Run(ctx context.Context, settings map[string]any, opts Options) ([]byte, error) {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	p, err := Decode(settings)
	if err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, err)
	}
	if p.PI == "exec" {
		return runExec(ctx, p, opts)
	}

	var (
		timer    measure.Timer
		versions func() map[string]string
		closer   = func() error { return nil }
	)
	switch {
	case p.PI == "import":
		it, err := newImportTimer(ctx, p, opts)
		if err != nil {
			return nil, err
		}
		// Each fresh interpreter reports its versions: keep the last.
		timer, versions = it, func() map[string]string { return it.versions }
	case p.Backend == "gonum":
		t, v, err := gonumTimer(p)
		if err != nil {
			return nil, err
		}
		timer, versions = t, func() map[string]string { return v }
	default:
		pb, err := startBenchmark(ctx, p, opts)
		if err != nil {
			return nil, err
		}
		timer, versions, closer = pb, func() map[string]string { return pb.versions }, pb.Close
	}
	res, err := measure.Run(ctx, timer, p.Plan)
	if cerr := closer(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	doc := result(p, res, versions())
	report(opts.Stderr, p, doc, res)
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode pi.json: %w", err)
	}
	return append(data, '\n'), nil
}

func result(p *Params, res measure.Result, versions map[string]string) models.PIResult {
	st := res.Stats
	m := models.PIMeasurement{
		Elapsed:   st.Median,
		SamplesMs: res.Samples,
		CI95Low:   st.CILow,
		CI95High:  st.CIHigh,
		CV:        st.CV,
	}
	if f := p.FLOPs(); f > 0 {
		m.FLOPs = &f
		if st.Median > 0 {
			rate := f / (st.Median * 1e6) // FLOP per ms -> GFLOPS
			m.Rate = &rate
		}
	}
	return models.PIResult{
		Component:  p.Backend,
		Name:       p.Name(),
		Parameters: p.Parameters(),
		Result:     m,
		Versions:   versions,
	}
}

// report writes one human line about the measurement to the run's stderr.
func report(w io.Writer, p *Params, doc models.PIResult, res measure.Result) {
	st := res.Stats
	rate := ""
	if doc.Result.Rate != nil {
		rate = fmt.Sprintf("%.3g GFLOPS, ", *doc.Result.Rate)
	}
	fmt.Fprintf(w, "seshat pi: %s %s: %smedian %.4g ms, 95%% CI [%.4g, %.4g] (±%.2f%%), CV %.2f%%, %d samples in %.2f s\n",
		doc.Name, p.Backend, rate, st.Median, st.CILow, st.CIHigh, 100*st.HalfWidth(), 100*st.CV, st.N, res.Duration.Seconds())
	if p.Plan.Auto && !res.Converged {
		fmt.Fprintf(w, "seshat pi: warning: the confidence interval of the median (±%.2f%%) did not reach target_ci %.2f%% within max_seconds %g\n",
			100*st.HalfWidth(), 100*p.Plan.TargetCI, p.Plan.MaxDuration.Seconds())
	}
}

// MainOptions are the flags of `seshat pi`.
type MainOptions struct {
	Options
	// SettingsFile is the run's settings.yaml; Output the pi.json to write.
	SettingsFile string
	Output       string
	// Report, when set, receives the run's peak memory once the PI has
	// ended, as one runnable.UsageReport (seshat run gives `seshat pi`
	// a pipe for it); nothing is written where the peak cannot be read.
	Report io.Writer
}

// Main is `seshat pi`: read the settings, run the PI, write pi.json
// atomically (no pi.json at all when the PI failed).
func Main(ctx context.Context, o MainOptions) error {
	if o.SettingsFile == "" || o.Output == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--settings and --output are required")
	}
	data, err := parsers.ReadLimited(o.SettingsFile, 1<<20)
	if err != nil {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	settings, err := parsers.Settings(o.SettingsFile, data)
	if err != nil {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	doc, err := Run(ctx, settings, o.Options)
	if o.Report != nil {
		// The peak of a failed run too: it may be why it failed.
		writeUsageReport(o.Report)
	}
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(o.Output, doc, 0o644)
}

// finite reports whether every value is a usable number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

var errNoAnswer = errors.New("exited before answering (see its stderr above)")
