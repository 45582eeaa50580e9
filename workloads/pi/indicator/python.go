package indicator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/workloads/pi/scripts"
)

// DebianPython is tried first: on Debian and Ubuntu the distribution's
// numpy and torch packages are installed for it, while `python3` on PATH
// may be a pyenv or virtualenv interpreter without them.
const DebianPython = "/usr/bin/python3"

// interpreters lists the Python interpreters to try, in order: the one the
// settings or --python name, else /usr/bin/python3 then python3 on PATH.
func interpreters(p *Params, opts Options) []string {
	if p.Python != "" {
		return []string{p.Python}
	}
	if opts.Python != "" {
		return []string{opts.Python}
	}
	list := []string{DebianPython}
	if lp, err := exec.LookPath("python3"); err == nil && lp != DebianPython {
		list = append(list, lp)
	}
	return list
}

// missingModule says that an interpreter lacks the framework: the next
// interpreter may have it.
type missingModule struct {
	python, module, msg string
}

func (e *missingModule) Error() string { return e.python + ": " + e.msg }

// MissingFrameworkError says that no interpreter tried could import the
// framework a PI needs. The run fails with it; the matrix goes on.
type MissingFrameworkError struct {
	Module string
	// Tried holds one "interpreter: reason" per interpreter.
	Tried    []string
	explicit bool
}

func (e *MissingFrameworkError) Error() string {
	how := "set the `python` setting or `seshat run --python` to an interpreter that has it"
	if e.explicit {
		how = "install it for that interpreter or name another one"
	}
	return fmt.Sprintf("%s cannot be imported: %s; %s (on Debian and Ubuntu: apt-get install python3-%s)",
		e.Module, strings.Join(e.Tried, "; "), how, e.Module)
}

func noInterpreter(module string, tried []string, explicit bool) error {
	return &MissingFrameworkError{Module: module, Tried: tried, explicit: explicit}
}

// answer is one message of the driver protocol (see package scripts).
type answer struct {
	Ready *struct {
		Versions map[string]string `json:"versions"`
	} `json:"ready"`
	Done          bool              `json:"done"`
	SamplesMs     []float64         `json:"samples_ms"`
	ElapsedMs     *float64          `json:"elapsed_ms"`
	Versions      map[string]string `json:"versions"`
	Error         string            `json:"error"`
	MissingModule *string           `json:"missing_module"`
}

// pyProcess is a running Python program speaking the driver protocol.
type pyProcess struct {
	python string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *os.File
	dec    *json.Decoder
}

// startPython starts python -c program args... with answers on fd 3.
func startPython(ctx context.Context, python, program string, args []string, env []string, opts Options, stdin bool) (*pyProcess, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, python, append([]string{"-c", program}, args...)...)
	cmd.Dir = opts.Dir
	cmd.Env = childEnv(opts.Env, env)
	cmd.Stdout, cmd.Stderr = opts.Stdout, opts.Stderr
	cmd.ExtraFiles = []*os.File{w} // fd 3
	pp := &pyProcess{python: python, cmd: cmd, out: r, dec: json.NewDecoder(r)}
	if stdin {
		if pp.in, err = cmd.StdinPipe(); err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
	}
	err = cmd.Start()
	w.Close() // the child holds its copy: EOF on r when it exits
	if err != nil {
		r.Close()
		return nil, err
	}
	return pp, nil
}

// read decodes the next answer; an error answer becomes an error.
func (pp *pyProcess) read(module string) (answer, error) {
	var a answer
	if err := pp.dec.Decode(&a); err != nil {
		werr := pp.wait()
		if werr != nil {
			return a, fmt.Errorf("%s %w: %v", pp.python, errNoAnswer, werr)
		}
		return a, fmt.Errorf("%s %w", pp.python, errNoAnswer)
	}
	if a.Error != "" {
		if a.MissingModule != nil && *a.MissingModule == module {
			pp.wait()
			return a, &missingModule{python: pp.python, module: module, msg: a.Error}
		}
		pp.wait()
		return a, errors.New(a.Error)
	}
	return a, nil
}

func (pp *pyProcess) send(req map[string]int) error {
	data, _ := json.Marshal(req)
	if _, err := pp.in.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("%s: %w", pp.python, err)
	}
	return nil
}

func (pp *pyProcess) wait() error {
	if pp.in != nil {
		pp.in.Close()
	}
	err := pp.cmd.Wait()
	pp.out.Close()
	return err
}

// threadEnv pins the BLAS and OpenMP thread pools, read when the framework
// loads.
func threadEnv(threads int) []string {
	if threads <= 0 {
		return nil
	}
	n := strconv.Itoa(threads)
	return []string{"OMP_NUM_THREADS=" + n, "OPENBLAS_NUM_THREADS=" + n, "MKL_NUM_THREADS=" + n}
}

// pyBenchmark is the measure.Timer of a numpy or torch PI.
type pyBenchmark struct {
	*pyProcess
	module   string
	versions map[string]string
}

// startBenchmark starts the backend's program with the first interpreter
// that can import the framework.
func startBenchmark(ctx context.Context, p *Params, opts Options) (*pyBenchmark, error) {
	program, err := scripts.Benchmark(p.Backend)
	if err != nil {
		return nil, err
	}
	params := map[string]any{
		"pi": p.PI, "dtype": p.Dtype, "device": p.Device, "seed": p.Seed, "threads": p.Threads,
		"matrix_size": p.MatrixSize, "channels_last": p.ChannelsLast,
	}
	if p.PI != "matmul" {
		g := p.Conv
		params["geometry"] = map[string]int{
			"batch": g.Batch, "input_height": g.InH, "input_width": g.InW, "input_channels": g.InC,
			"filter_height": g.KH, "filter_width": g.KW, "output_channels": g.OutC,
			"strides": g.Stride, "pad_height": g.PadH, "pad_width": g.PadW,
		}
		params["out_height"], params["out_width"] = g.OutH(), g.OutW()
	}
	arg, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	module := scripts.Module(p.Backend)
	var tried []string
	cands := interpreters(p, opts)
	for _, python := range cands {
		pp, err := startPython(ctx, python, program, []string{string(arg)}, threadEnv(p.Threads), opts, true)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", python, err))
			continue
		}
		a, err := pp.read(module)
		var mm *missingModule
		if errors.As(err, &mm) {
			tried = append(tried, mm.Error())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s PI on %s: %w", p.PI, p.Backend, err)
		}
		if a.Ready == nil {
			pp.wait()
			return nil, fmt.Errorf("%s: unexpected first answer from the PI program", python)
		}
		fmt.Fprintf(opts.Stderr, "seshat pi: running the %s program with %s\n", p.Backend, python)
		return &pyBenchmark{pyProcess: pp, module: module, versions: a.Ready.Versions}, nil
	}
	return nil, noInterpreter(module, tried, len(cands) == 1 && (p.Python != "" || opts.Python != ""))
}

// Warmup implements measure.Timer.
func (b *pyBenchmark) Warmup(_ context.Context, n int) error {
	if err := b.send(map[string]int{"warmup": n}); err != nil {
		return err
	}
	a, err := b.read(b.module)
	if err == nil && !a.Done {
		err = errors.New("unexpected answer to a warm-up request")
	}
	return err
}

// Time implements measure.Timer.
func (b *pyBenchmark) Time(_ context.Context, n int) ([]float64, error) {
	if err := b.send(map[string]int{"time": n}); err != nil {
		return nil, err
	}
	a, err := b.read(b.module)
	if err != nil {
		return nil, err
	}
	if len(a.SamplesMs) != n || !finite(a.SamplesMs...) {
		return nil, fmt.Errorf("asked for %d samples, got %d (or non-finite values)", n, len(a.SamplesMs))
	}
	return a.SamplesMs, nil
}

// Close ends the program: stdin closed, exit status checked.
func (b *pyBenchmark) Close() error {
	if err := b.wait(); err != nil {
		return fmt.Errorf("%s: %w", b.python, err)
	}
	return nil
}

// importTimer measures `import MODULE`, one fresh interpreter per sample.
type importTimer struct {
	python, module string
	env            []string
	opts           Options
	versions       map[string]string
}

// newImportTimer picks the interpreter with an untimed probe import (which
// also warms the file cache).
func newImportTimer(ctx context.Context, p *Params, opts Options) (*importTimer, error) {
	it := &importTimer{module: p.Module, env: threadEnv(p.Threads), opts: opts}
	var tried []string
	cands := interpreters(p, opts)
	for _, python := range cands {
		it.python = python
		_, err := it.once(ctx)
		var mm *missingModule
		if errors.As(err, &mm) {
			tried = append(tried, mm.Error())
			continue
		}
		if err != nil {
			tried = append(tried, err.Error())
			var ee *exec.Error
			if errors.As(err, &ee) {
				continue
			}
			return nil, err
		}
		fmt.Fprintf(opts.Stderr, "seshat pi: timing import %s with %s\n", p.Module, python)
		return it, nil
	}
	return nil, noInterpreter(p.Module, tried, len(cands) == 1 && (p.Python != "" || opts.Python != ""))
}

func (it *importTimer) once(ctx context.Context) (float64, error) {
	pp, err := startPython(ctx, it.python, scripts.Import(), []string{it.module}, it.env, it.opts, false)
	if err != nil {
		return 0, err
	}
	a, err := pp.read(it.module)
	if err != nil {
		return 0, err
	}
	if werr := pp.wait(); werr != nil {
		return 0, fmt.Errorf("%s: %w", it.python, werr)
	}
	if a.ElapsedMs == nil || !finite(*a.ElapsedMs) || *a.ElapsedMs < 0 {
		return 0, fmt.Errorf("%s: the import PI program gave no time", it.python)
	}
	it.versions = a.Versions
	return *a.ElapsedMs, nil
}

// Warmup implements measure.Timer.
func (it *importTimer) Warmup(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if _, err := it.once(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Time implements measure.Timer.
func (it *importTimer) Time(ctx context.Context, n int) ([]float64, error) {
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		ms, err := it.once(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, ms)
	}
	return out, nil
}
