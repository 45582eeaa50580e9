package declared

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// FileName is the name a workload file has beside the results it reads.
const FileName = "workload.yaml"

// Spec is a decoded workload file. Field rules are `validate` tags (checked
// by models.Validate, whose messages name the JSON path; the json tags
// mirror the yaml ones for that); cross references are checked by check.
type Spec struct {
	// Name is the `workload` setting of the runs the file reads.
	Name        string `yaml:"name" json:"name" validate:"required,snake_case"`
	Description string `yaml:"description" json:"description"`
	// KPISettingsVersion versions the labels and KPIs (kpi_settings_version).
	KPISettingsVersion string `yaml:"kpi_settings_version" json:"kpi_settings_version" validate:"required,semver"`
	// ArtifactDirs are logical directory names and the glob each resolves to
	// in a run directory (DESIGN §5: exact path, else last sorted match);
	// file paths use them as "{name}/file".
	ArtifactDirs map[string]string    `yaml:"artifact_dirs" json:"artifact_dirs" validate:"dive,keys,snake_case,endkeys,required"`
	Files        map[string]*FileSpec `yaml:"files" json:"files" validate:"required,min=1,dive,keys,snake_case,endkeys,required"`
	Values       map[string]*Value    `yaml:"values" json:"values" validate:"required,min=1,dive,keys,snake_case,endkeys,required"`
	Metadata     MetadataSpec         `yaml:"metadata" json:"metadata"`
	Labels       map[string]*Label    `yaml:"labels" json:"labels" validate:"dive,keys,snake_case,endkeys,required"`
	KPIs         map[string]*KPI      `yaml:"kpis" json:"kpis" validate:"required,min=1,dive,keys,snake_case,endkeys,required"`
	Regression   RegressionSpec       `yaml:"regression" json:"regression"`
	Plots        []*Plot              `yaml:"plots" json:"plots" validate:"dive,required"`
	Run          *RunSpec             `yaml:"run" json:"run"`
}

// The formats a declared file can have.
const (
	FormatJSON = "json"
	FormatYAML = "yaml"
	FormatCSV  = "csv"
	FormatText = "text"
)

// FileSpec is one file of a run directory. A plain string is its path.
type FileSpec struct {
	// Path is relative to the run directory, slash-separated; it may start
	// with "{dirname}/", a name of ArtifactDirs.
	Path string `yaml:"path" json:"path" validate:"required"`
	// Format is json, yaml, csv or text; by default it follows the
	// extension (.json, .yaml/.yml, .csv, anything else text).
	Format string `yaml:"format" json:"format" validate:"omitempty,oneof=json yaml csv text"`
	// TailBytes reads only the end of a text file (a long log).
	TailBytes int64 `yaml:"tail_bytes" json:"tail_bytes" validate:"gte=0"`
	// Optional files are missing without a warning.
	Optional bool `yaml:"optional" json:"optional"`
}

// UnmarshalYAML accepts a plain path as well as a mapping.
func (f *FileSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		f.Path = n.Value
		return nil
	}
	type plain FileSpec
	return n.Decode((*plain)(f))
}

// format returns the declared format, else the one the extension implies.
func (f *FileSpec) format() string {
	if f.Format != "" {
		return f.Format
	}
	lower := strings.ToLower(f.Path)
	switch {
	case strings.HasSuffix(lower, ".json"):
		return FormatJSON
	case strings.HasSuffix(lower, ".yaml"), strings.HasSuffix(lower, ".yml"):
		return FormatYAML
	case strings.HasSuffix(lower, ".csv"):
		return FormatCSV
	}
	return FormatText
}

// The types a value can have.
const (
	TypeNumber  = "number"
	TypeNumbers = "numbers"
	TypeString  = "string"
	TypeTime    = "time"
)

// Value says how one result value is read from a file: exactly one of
// Path (JSON and YAML files), Column (CSV) and Regex (text).
type Value struct {
	File string `yaml:"file" json:"file" validate:"required"`
	// Path is an RFC 9535 JSONPath query ($.latency_ms.p99).
	Path string `yaml:"path" json:"path"`
	// Column is a CSV column, by its header name.
	Column string `yaml:"column" json:"column"`
	// Regex is a regular expression (Go syntax); the value is its group
	// named "value", else its first group, else the whole match.
	Regex string `yaml:"regex" json:"regex"`
	// Type is number (default), numbers (a list), string or time (RFC 3339
	// text, or a number of seconds since the Unix epoch).
	Type string `yaml:"type" json:"type" validate:"omitempty,oneof=number numbers string time"`
	// Aggregate reduces several matches (rows, nodes, lines) to one number:
	// first, last, min, max, mean, median, sum or count. Without it, a
	// regular expression keeps its last match (a log's final summary) and
	// paths and columns their first.
	Aggregate string `yaml:"aggregate" json:"aggregate" validate:"omitempty,oneof=first last min max mean median sum count"`
	// Scale multiplies numbers (0.001 turns milliseconds into seconds).
	Scale float64 `yaml:"scale" json:"scale" validate:"finite"`
	// Required values must be found: strict validation refuses a run
	// without them, and parsing warns.
	Required bool   `yaml:"required" json:"required"`
	Help     string `yaml:"help" json:"help"`
}

func (v *Value) typ() string {
	if v.Type == "" {
		return TypeNumber
	}
	return v.Type
}

// MetadataSpec names the values that identify a run and say when it ran.
// Without them the run's .uuid file and the start and end of usage.json
// (both written by seshat run) are used; without .uuid, an id derived from
// the run's settings and files, so parsing again gives the same one.
type MetadataSpec struct {
	TestUUID string `yaml:"test_uuid" json:"test_uuid"`
	Start    string `yaml:"start" json:"start"`
	End      string `yaml:"end" json:"end"`
	// Duration is a value in seconds: end = start + duration.
	Duration string `yaml:"duration" json:"duration"`
}

// Label is one KPI label: from a value, else from a setting.
type Label struct {
	Value    string `yaml:"value" json:"value"`
	Setting  string `yaml:"setting" json:"setting"`
	Help     string `yaml:"help" json:"help"`
	Required bool   `yaml:"required" json:"required"`
}

// KPI is one KPI: a value and what kpi.Definition needs to present it.
type KPI struct {
	Value string `yaml:"value" json:"value" validate:"required"`
	Help  string `yaml:"help" json:"help" validate:"required"`
	Unit  string `yaml:"unit" json:"unit" validate:"required"`
	// Direction is higher or lower (is better).
	Direction            string  `yaml:"direction" json:"direction" validate:"required,oneof=higher lower"`
	IgnoredForRegression bool    `yaml:"ignored_for_regression" json:"ignored_for_regression"`
	Format               string  `yaml:"format" json:"format"`
	Divisor              float64 `yaml:"divisor" json:"divisor" validate:"gte=0,finite"`
	DisplayUnit          string  `yaml:"display_unit" json:"display_unit"`
	// Aggregate reduces a value of type numbers: median (default), mean,
	// min, max, first, last, sum or count.
	Aggregate string `yaml:"aggregate" json:"aggregate" validate:"omitempty,oneof=first last min max mean median sum count"`
}

// RegressionSpec are the workload's default regression keys, all labels.
type RegressionSpec struct {
	ComparisonKeys []string `yaml:"comparison_keys" json:"comparison_keys"`
	IgnoredKeys    []string `yaml:"ignored_keys" json:"ignored_keys"`
	SortingKeys    []string `yaml:"sorting_keys" json:"sorting_keys"`
	IgnoredEntries []string `yaml:"ignored_entries" json:"ignored_entries"`
}

// The kinds of declared reports.
const (
	PlotDistribution = "distribution"
	PlotScaling      = "scaling"
	PlotHistory      = "history"
	PlotErrors       = "errors"
)

// Plot is one report of `seshat visualize`.
type Plot struct {
	Name        string `yaml:"name" json:"name" validate:"required"`
	Description string `yaml:"description" json:"description"`
	// Kind is distribution (a box or violin per batch), scaling (median and
	// p25–p75 band against X), history (each KPI over time from the store)
	// or errors (failed runs).
	Kind string `yaml:"kind" json:"kind" validate:"required,oneof=distribution scaling history errors"`
	// KPIs drawn, all when empty.
	KPIs []string `yaml:"kpis" json:"kpis"`
	// Batch is the setting whose values are compared (--batch-key wins);
	// X the setting of the scaling axis (--x-key wins).
	Batch string `yaml:"batch" json:"batch"`
	X     string `yaml:"x" json:"x"`
	// Split draws a distribution once per value of this setting, so that
	// runs of different loads are never mixed in one box.
	Split  string `yaml:"split" json:"split"`
	Violin bool   `yaml:"violin" json:"violin"`
	LogX   bool   `yaml:"log_x" json:"log_x"`
}

// RunSpec makes the workload runnable by `seshat run`: the command of each
// point, run in its run directory. "{setting}" in an argument is replaced
// by the setting's value, "{workload_dir}" by the workload file's directory.
type RunSpec struct {
	Command []string `yaml:"command" json:"command" validate:"required,min=1,dive,required"`
}

// SpecError lists every problem of a workload file, each naming the file,
// line and key.
type SpecError struct {
	Problems []*parsers.SyntaxError
}

func (e *SpecError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(parts), strings.Join(parts, "\n  "))
}

// specLimit bounds a workload file: it is configuration, not data.
const specLimit = 1 << 20

// ParseSpec decodes and checks a workload file's content; name is used in
// messages. The error is a *SpecError.
func ParseSpec(name string, data []byte) (*Spec, error) {
	s, _, err := parseSpec(name, data)
	return s, err
}

func parseSpec(name string, data []byte) (*Spec, *compiled, error) {
	se := &SpecError{}
	if len(data) > specLimit {
		se.Problems = append(se.Problems, &parsers.SyntaxError{File: name, Msg: fmt.Sprintf("larger than %d bytes: not a workload file", specLimit)})
		return nil, nil, se
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		se.Problems = append(se.Problems, parsers.YAMLError(name, data, err))
		return nil, nil, se
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		line := 1
		if len(doc.Content) > 0 {
			line = doc.Content[0].Line
		}
		se.Problems = append(se.Problems, &parsers.SyntaxError{File: name, Line: line, Msg: "want a mapping with name, files, values and kpis"})
		return nil, nil, se
	}
	root := doc.Content[0]
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		se.Problems = append(se.Problems, decodeProblems(name, data, root, err)...)
		return nil, nil, se
	}
	c := &checker{file: name, root: root}
	if err := models.Validate(&s); err != nil {
		var ve *models.ValidationError
		if !errors.As(err, &ve) {
			return nil, nil, err
		}
		for _, f := range ve.Fields {
			msg := f.Msg
			if strings.HasPrefix(msg, "fails min=1") {
				msg = "must not be empty"
			}
			c.add(strings.Split(f.Path, "."), "%s", msg)
		}
	}
	// Cross references are checked even when tags failed: every problem
	// is reported at once.
	comp := c.check(&s)
	if len(c.problems) > 0 {
		sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
		se.Problems = c.problems
		return nil, nil, se
	}
	return &s, comp, nil
}

var (
	yamlLineMsg = regexp.MustCompile(`^line (\d+): (.*)$`)
	notFound    = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	cannotInto  = regexp.MustCompile(`^cannot unmarshal (.*) into (\S+)$`)
)

// decodeProblems turns yaml.v3's type errors into problems naming the
// dotted key; unknown keys are named as such.
func decodeProblems(name string, data []byte, root *yaml.Node, err error) []*parsers.SyntaxError {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []*parsers.SyntaxError{parsers.YAMLError(name, data, err)}
	}
	var out []*parsers.SyntaxError
	for _, e := range te.Errors {
		m := yamlLineMsg.FindStringSubmatch(e)
		if m == nil {
			out = append(out, &parsers.SyntaxError{File: name, Msg: e})
			continue
		}
		line, _ := strconv.Atoi(m[1])
		msg := m[2]
		p := &parsers.SyntaxError{File: name, Line: line}
		if nf := notFound.FindStringSubmatch(msg); nf != nil {
			p.Field = keyAt(root, line, nf[1])
			p.Msg = "unknown key " + strconv.Quote(nf[1])
		} else {
			p.Field = keyAt(root, line, "")
			if cm := cannotInto.FindStringSubmatch(msg); cm != nil {
				p.Msg = "cannot use " + cm[1] + " here: want " + goTypeWords(cm[2])
			} else {
				p.Msg = msg
			}
		}
		out = append(out, p)
	}
	return out
}

// goTypeWords says what a Go type expects, in YAML terms.
func goTypeWords(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "declared."), strings.HasPrefix(t, "*declared."):
		return "a mapping"
	case t == "float64", t == "int64", t == "int":
		return "a number"
	case t == "bool":
		return "true or false"
	}
	return "a " + t
}

// keyAt returns the dotted path of the key on line (named name when not
// empty) in the tree under n, or "".
func keyAt(n *yaml.Node, line int, name string) string {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Line == line && (name == "" || k.Value == name) {
				return k.Value
			}
			if sub := keyAt(v, line, name); sub != "" {
				return k.Value + "." + sub
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if sub := keyAt(item, line, name); sub != "" {
				return strconv.Itoa(i) + "." + sub
			}
		}
	}
	return ""
}

// nodeAt returns the deepest node along path (map keys, list indices) and
// whether the whole path was found; for a map key it returns the key node
// (whose line is the key's).
func nodeAt(root *yaml.Node, path []string) (*yaml.Node, bool) {
	cur, last := root, root
	for _, part := range path {
		switch cur.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(cur.Content); i += 2 {
				if cur.Content[i].Value == part {
					last, next = cur.Content[i], cur.Content[i+1]
				}
			}
			if next == nil {
				return last, false
			}
			cur = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(cur.Content) {
				return last, false
			}
			cur, last = cur.Content[i], cur.Content[i]
		default:
			return last, false
		}
	}
	return last, true
}

// checker collects problems, each located by its key path.
type checker struct {
	file     string
	root     *yaml.Node
	problems []*parsers.SyntaxError
}

// add records a problem at path; the line is the key's, or the closest
// enclosing key's when the key is absent (a missing required key).
func (c *checker) add(path []string, format string, args ...any) {
	n, _ := nodeAt(c.root, path)
	c.problems = append(c.problems, &parsers.SyntaxError{
		File: c.file, Line: n.Line, Field: strings.Join(path, "."), Msg: fmt.Sprintf(format, args...)})
}
