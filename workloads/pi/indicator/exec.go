package indicator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// outputGrace is how long the exec PI waits for its command's output to
// close once the command has exited.
const outputGrace = time.Second

// maxExecOutput bounds what an exec PI may print: a pi.json document.
const maxExecOutput = 64 << 20

// runExec runs the exec PI's command; its stdout must be one pi.json
// document, which is validated and returned as printed (extra fields kept).
func runExec(ctx context.Context, p *Params, opts Options) ([]byte, error) {
	cmd := exec.CommandContext(ctx, commandPath(p.Command[0], opts.Env), p.Command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = childEnv(opts.Env, nil)
	var out limitedBuffer
	out.limit = maxExecOutput
	cmd.Stdout = io.MultiWriter(&out, opts.Stdout) // kept in stdout.log too
	var errTail tailBuffer
	cmd.Stderr = io.MultiWriter(opts.Stderr, &errTail)
	// A process the command started in the background may keep its stdout
	// open long after the command exited (`server &`): stop waiting for
	// it; `seshat run` kills what a run leaves behind.
	cmd.WaitDelay = outputGrace
	name := "command " + strings.Join(p.Command, " ")
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		fmt.Fprintf(opts.Stderr, "seshat pi: %s exited, but a process it started still holds its output open; stopped waiting after %s\n", name, outputGrace)
		err = nil
	}
	if err != nil {
		// The command's own last words first: they are what the run's
		// summary shows (runner.StderrReason).
		if last := errTail.lastLine(); last != "" {
			return nil, fmt.Errorf("%s (%s: %w)", last, name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if out.over {
		return nil, fmt.Errorf("%s: printed more than %d bytes; stdout must be one pi.json document", name, maxExecOutput)
	}
	data := out.Bytes()
	// What is wrong first, the command last: the run's summary shows the
	// start of this line (runner.StderrReason).
	if err := ValidatePIJSON("the command's stdout", data); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, name)
	}
	// framework_version is a required label of every pi payload: a run
	// without one could be neither checked strictly nor uploaded. Say so
	// now rather than at upload.
	var doc models.PIResult
	if err := json.Unmarshal(data, &doc); err == nil && doc.Versions[doc.Component] == "" && p.FrameworkVersion == "" {
		return nil, fmt.Errorf("%w (%s)", &parsers.SyntaxError{File: "the command's stdout", Field: "versions." + doc.Component,
			Msg: fmt.Sprintf(`required: the version of what the command measured labels its runs (framework_version); print "versions": {%q: "1.2.3"} or set framework_version in the benchmark file`, doc.Component)}, name)
	}
	return data, nil
}

// commandPath is the program of an exec PI's command: a relative path
// with a directory (`ab/base/bench`, `./bench`) is taken from the
// directory `seshat run` was started in (runnable.WorkDirEnv in env), as a
// person writing the benchmark file means it, not from the run directory
// the command runs in; a bare name is looked up in PATH.
func commandPath(name string, env []string) string {
	if filepath.IsAbs(name) || !strings.ContainsRune(name, '/') {
		return name
	}
	for i := len(env) - 1; i >= 0; i-- {
		if wd, ok := strings.CutPrefix(env[i], runnable.WorkDirEnv+"="); ok && wd != "" {
			return filepath.Join(wd, name)
		}
	}
	return name
}

// ValidatePIJSON checks that data is a pi.json document the parser can use:
// valid JSON, a component and a name, an @result with a finite elapsed
// time, and finite numbers.
func ValidatePIJSON(file string, data []byte) error {
	var required struct {
		Component *string          `json:"component"`
		Name      *string          `json:"name"`
		Result    *json.RawMessage `json:"@result"`
	}
	if err := parsers.JSON(file, data, &required); err != nil {
		return err
	}
	var doc models.PIResult
	if err := parsers.JSON(file, data, &doc); err != nil {
		return err
	}
	var missing []string
	if required.Component == nil || *required.Component == "" {
		missing = append(missing, "component")
	}
	if required.Name == nil || *required.Name == "" {
		missing = append(missing, "name")
	}
	if required.Result == nil {
		missing = append(missing, "@result")
	}
	if len(missing) > 0 {
		return &parsers.SyntaxError{File: file, Field: strings.Join(missing, ", "), Msg: "required in a pi.json document"}
	}
	r := doc.Result
	if !finite(r.Elapsed, r.CI95Low, r.CI95High, r.CV) || !finite(r.SamplesMs...) || r.Elapsed < 0 {
		return &parsers.SyntaxError{File: file, Field: "@result", Msg: "elapsed, samples and statistics must be finite, elapsed >= 0"}
	}
	if r.Rate != nil && (!finite(*r.Rate) || *r.Rate < 0) {
		return &parsers.SyntaxError{File: file, Field: "@result.rate", Msg: "must be a finite number >= 0"}
	}
	if r.FLOPs != nil && (!finite(*r.FLOPs) || *r.FLOPs < 0) {
		return &parsers.SyntaxError{File: file, Field: "@result.flops", Msg: "must be a finite number >= 0"}
	}
	return nil
}

// limitedBuffer keeps at most limit bytes and remembers overflowing, while
// accepting everything (so the command never blocks on a full pipe).
type limitedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last tailBytes bytes written to it.
type tailBuffer struct{ b []byte }

const tailBytes = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written, spaces trimmed.
func (t *tailBuffer) lastLine() string {
	lines := strings.Split(string(t.b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
