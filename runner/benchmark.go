package runner

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Benchmark is a decoded benchmark file.
type Benchmark struct {
	// Path is the file as given, for messages and config.yaml.
	Path   string
	Common Settings
	// Experiments in file order.
	Experiments []*Experiment
	// Extra are the extra_settings patterns (path.Match): settings no
	// workload reads, kept on purpose (labels, variables an exec command
	// reads from its environment).
	Extra []string
	// ExtraLine is the line of extra_settings.
	ExtraLine int

	// invalid holds the settings left out for a bad value, as
	// experiment + "\x00" + key (experiment "" for common_settings): their
	// absence is not a problem of its own (Expand).
	invalid map[string]bool
}

// Experiment is one entry of `expe`.
type Experiment struct {
	Name     string
	Line     int
	Settings Settings
	// Repeat is the number of runs per point; 0 when not given (one run,
	// no @repeat setting).
	Repeat int
}

// Settings keep their file order, which is the nesting order of the
// cartesian product (the first list varies slowest).
type Settings struct {
	Keys   []string
	Values map[string]Value
}

// Value is one setting: its possible values (one for a scalar) and line.
type Value struct {
	Values []any
	// List is true when the file gave a list of values.
	List bool
	Line int
}

func (s *Settings) set(key string, v Value) {
	if s.Values == nil {
		s.Values = map[string]Value{}
	}
	if _, ok := s.Values[key]; !ok {
		s.Keys = append(s.Keys, key)
	}
	s.Values[key] = v
}

// RepeatKey is the directive giving the number of runs per point; the
// runs carry RepeatSetting = 0..N-1.
const (
	RepeatKey     = "repeat"
	RepeatSetting = models.RepeatSetting
)

// ListValued settings take a list as one value (an argv); to vary them,
// give a list of lists.
var ListValued = map[string]bool{"command": true}

// BenchmarkError is an invalid benchmark file, naming where.
type BenchmarkError struct {
	File       string
	Line       int
	Experiment string
	Key        string
	Msg        string
}

func (e *BenchmarkError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Experiment != "" {
		fmt.Fprintf(&b, "experiment %q: ", e.Experiment)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// LoadBenchmark reads and decodes a benchmark file. Every error is
// InvalidInput except an unreadable existing file (exitcode.Input). With
// an error it may still return the benchmark, less what was wrong, so that
// the settings of its points can be checked too (every problem of a file
// at once).
func LoadBenchmark(path string) (*Benchmark, error) {
	data, err := parsers.ReadLimited(path, 16<<20)
	if err != nil {
		return nil, exitcode.Input(fmt.Errorf("benchmark file: %w", err))
	}
	b, err := ParseBenchmark(path, data)
	if err != nil {
		return b, exitcode.With(exitcode.InvalidInput, err)
	}
	return b, nil
}

// ParseBenchmark decodes benchmark file content; name is used in messages.
// It checks the shape of the file; the settings of each point are checked
// by the workload when the matrix is expanded (Expand). Every problem of
// the shape is reported, in file order (errors.Join of *BenchmarkError);
// the benchmark is returned with them, less what was wrong, unless
// nothing of it could be read.
func ParseBenchmark(name string, data []byte) (*Benchmark, error) {
	bad := func(line int, expe, key, format string, args ...any) error {
		return &BenchmarkError{File: name, Line: line, Experiment: expe, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if err.Error() == "EOF" {
			return nil, bad(0, "", "", "empty file: expected common_settings and expe")
		}
		var se *parsers.SyntaxError
		if errors.As(parsers.YAML(name, data, new(any)), &se) {
			return nil, se
		}
		return nil, bad(0, "", "", "%v", err)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, bad(doc.Line, "", "", "expected a mapping with common_settings and expe")
	}
	b := &Benchmark{Path: name, invalid: map[string]bool{}}
	var errs []error
	var expe *yaml.Node
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		switch k.Value {
		case "common_settings":
			errs = append(errs, decodeSettings(name, "", v, &b.Common, b.invalid)...)
		case "expe":
			expe = v
		case ExtraKey:
			if err := decodeExtra(name, v, b); err != nil {
				errs = append(errs, err)
			}
		default:
			errs = append(errs, bad(k.Line, "", k.Value, "unknown top-level key (expected common_settings, expe, extra_settings)"))
		}
	}
	switch {
	case expe == nil || (expe.Kind == yaml.ScalarNode && expe.Tag == "!!null"):
		errs = append(errs, bad(doc.Line, "", "expe", "missing: at least one experiment is needed"))
		return nil, joinByLine(errs)
	case expe.Kind != yaml.MappingNode:
		errs = append(errs, bad(expe.Line, "", "expe", "must map experiment names to their settings"))
		return nil, joinByLine(errs)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(expe.Content); i += 2 {
		k, v := expe.Content[i], expe.Content[i+1]
		if !models.ValidExperimentName(k.Value) {
			errs = append(errs, bad(k.Line, k.Value, "", models.ExperimentNameRule))
			continue
		}
		if seen[k.Value] {
			errs = append(errs, bad(k.Line, k.Value, "", "defined twice"))
			continue
		}
		seen[k.Value] = true
		e := &Experiment{Name: k.Value, Line: k.Line}
		if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
			errs = append(errs, decodeSettings(name, e.Name, v, &e.Settings, b.invalid)...)
		}
		b.Experiments = append(b.Experiments, e)
	}
	if len(b.Experiments) == 0 {
		errs = append(errs, bad(expe.Line, "", "expe", "no experiments"))
		return nil, joinByLine(errs)
	}
	// repeat is a directive, not a setting: the experiment's wins over the common one.
	reported := map[int]bool{}
	for _, e := range b.Experiments {
		rv, ok := e.Settings.Values[RepeatKey]
		if !ok {
			rv, ok = b.Common.Values[RepeatKey]
		}
		if !ok {
			continue
		}
		n, isInt := rv.Values[0].(int)
		if rv.List || !isInt || n < 1 {
			if !reported[rv.Line] { // a common repeat once, not once per experiment
				reported[rv.Line] = true
				errs = append(errs, bad(rv.Line, e.Name, RepeatKey, "must be one integer >= 1, got %v", rv.Values))
			}
			continue
		}
		e.Repeat = n
	}
	if len(errs) > 0 {
		return b, joinByLine(errs)
	}
	return b, nil
}

// joinByLine joins benchmark file problems in file order (those without a
// line first).
func joinByLine(errs []error) error {
	return joinSorted(errs, 0)
}

// joinSorted is joinByLine keeping at most limit problems (0: all), the
// rest counted.
func joinSorted(errs []error, limit int) error {
	var flat []error
	for _, err := range errs {
		flat = append(flat, flatten(err)...)
	}
	if len(flat) == 0 {
		return nil
	}
	line := func(err error) int {
		var be *BenchmarkError
		if errors.As(err, &be) {
			return be.Line
		}
		return 0
	}
	slices.SortStableFunc(flat, func(a, b error) int { return line(a) - line(b) })
	if n := len(flat) - limit; limit > 0 && n > 0 {
		flat = append(flat[:limit], fmt.Errorf("... and %d more", n))
	}
	return errors.Join(flat...)
}

// flatten returns the errors a joined error holds, recursively; err alone
// otherwise.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if c, ok := err.(*exitcode.Error); ok {
		return flatten(c.Err) // a code adds no words
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// JoinProblems joins the problems CheckSettings, Expand and LoadBenchmark
// found in one benchmark file into one InvalidInput error, in file order,
// at most maxReported of them.
func JoinProblems(errs ...error) error {
	if err := joinSorted(errs, maxReported); err != nil {
		return exitcode.With(exitcode.InvalidInput, err)
	}
	return nil
}

// ExtraKey declares settings no workload reads, as a list of names or
// patterns (path.Match: label_*).
const ExtraKey = "extra_settings"

func decodeExtra(file string, n *yaml.Node, b *Benchmark) error {
	bad := func(line int, format string, args ...any) error {
		return &BenchmarkError{File: file, Line: line, Key: ExtraKey, Msg: fmt.Sprintf(format, args...)}
	}
	b.ExtraLine = n.Line
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return bad(n.Line, "must be a list of setting names or patterns (label_*)")
	}
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" || item.Value == "" {
			return bad(item.Line, "must be a list of setting names or patterns (label_*), got %q", item.Value)
		}
		if _, err := path.Match(item.Value, ""); err != nil {
			return bad(item.Line, "pattern %q: %v", item.Value, err)
		}
		b.Extra = append(b.Extra, item.Value)
	}
	return nil
}

// isExtra reports whether key is declared in extra_settings.
func (b *Benchmark) isExtra(key string) bool {
	for _, p := range b.Extra {
		if ok, _ := path.Match(p, key); ok {
			return true
		}
	}
	return false
}

// decodeSettings decodes one mapping of settings into into, returning
// every problem; a setting with a problem is left out and marked in
// invalid.
func decodeSettings(file, expe string, n *yaml.Node, into *Settings, invalid map[string]bool) []error {
	var errs []error
	bad := func(line int, key, format string, args ...any) {
		invalid[expe+"\x00"+key] = true
		errs = append(errs, &BenchmarkError{File: file, Line: line, Experiment: expe, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "", "settings must be a mapping of names to values")
		return errs
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		switch {
		case strings.HasPrefix(key, "@"):
			bad(k.Line, key, "names starting with @ are reserved for the runner (@repeat)")
			continue
		case !settingName.MatchString(key):
			bad(k.Line, key, "setting names use letters, digits, _ . - and start with a letter or _")
			continue
		}
		if _, dup := into.Values[key]; dup {
			bad(k.Line, key, "set twice")
			continue
		}
		if val, msg, line := decodeValue(key, v); msg != "" {
			bad(line, key, "%s", msg)
		} else {
			into.set(key, val)
		}
	}
	return errs
}

// decodeValue decodes one setting's value; msg says what is wrong with it,
// at line.
func decodeValue(key string, v *yaml.Node) (val Value, msg string, line int) {
	val = Value{Line: v.Line}
	switch v.Kind {
	case yaml.ScalarNode:
		var x any
		if err := v.Decode(&x); err != nil {
			return val, err.Error(), v.Line
		}
		val.Values = []any{x}
	case yaml.SequenceNode:
		var xs []any
		if err := v.Decode(&xs); err != nil {
			return val, err.Error(), v.Line
		}
		if ListValued[key] && (len(xs) == 0 || !isList(xs[0])) {
			val.Values = []any{xs} // one argv
			break
		}
		if len(xs) == 0 {
			return val, "an empty list gives no points", v.Line
		}
		val.List = true
		for j, x := range xs {
			if _, isMap := x.(map[string]any); isMap {
				return val, "list values must be scalars", v.Content[j].Line
			}
			if isList(x) && !ListValued[key] {
				return val, "list values must be scalars", v.Content[j].Line
			}
			for _, prev := range xs[:j] {
				if models.EqualValues(prev, x) {
					return val, fmt.Sprintf("value %v listed twice", x), v.Content[j].Line
				}
			}
		}
		val.Values = xs
	default:
		return val, "settings are flat: a value is a scalar or a list of scalars", v.Line
	}
	return val, "", 0
}

func isList(x any) bool {
	_, ok := x.([]any)
	return ok
}

// Select returns the experiments to run: those named (an unknown name is
// an error), or every experiment whose name does not start with "_".
func (b *Benchmark) Select(names []string) ([]*Experiment, error) {
	if len(names) == 0 {
		var out []*Experiment
		for _, e := range b.Experiments {
			if !strings.HasPrefix(e.Name, "_") {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "%s: every experiment is disabled (names starting with _); select one with --expe", b.Path)
		}
		return out, nil
	}
	byName := map[string]*Experiment{}
	var known []string
	for _, e := range b.Experiments {
		byName[e.Name] = e
		known = append(known, e.Name)
	}
	var out []*Experiment
	seen := map[string]bool{}
	for _, n := range names {
		e, ok := byName[n]
		if !ok {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "--expe %s: no such experiment in %s (known: %s)", n, b.Path, strings.Join(known, ", "))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, e)
		}
	}
	return out, nil
}
