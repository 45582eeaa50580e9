package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/store"
)

// Job is one output directory: what to generate from which entries. A
// plots.yaml file has one job per `visualize` item; `--generate` lines make
// one job without an id, written at the top of the output directory.
type Job struct {
	// ID names the job's subdirectory; "" writes into the output directory.
	ID       string
	Generate []Directive
	// Filters select the job's entries; an entry must match every one.
	Filters []store.Filters
}

// Match reports whether an entry's settings pass every filter of the job.
func (j Job) Match(s models.Settings) bool {
	for _, f := range j.Filters {
		if !f.Match(s) {
			return false
		}
	}
	return true
}

// FilterText renders the job's filters for a page, "" when there are none.
func (j Job) FilterText() string {
	var parts []string
	for _, f := range j.Filters {
		if s := f.String(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " and ")
}

// specFile is plots.yaml as TOPSAIL writes it. Nodes keep line numbers for
// the messages; unknown keys are errors.
type specFile struct {
	Visualize []specItem `yaml:"visualize"`
}

type specItem struct {
	ID       yaml.Node   `yaml:"id"`
	Generate []yaml.Node `yaml:"generate"`
	Filters  []yaml.Node `yaml:"filters"`
}

// ReadSpec decodes a plots.yaml file: `visualize: [{id, generate: [...],
// filters: [...]}]`. A filter is a string in --filters syntax
// ("backend=numpy:torch,dtype=float32") or a mapping of a setting to a value
// or a list of values. Errors are *parsers.SyntaxError naming the file,
// line and field.
func ReadSpec(name string, data []byte) ([]Job, error) {
	var f specFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &parsers.SyntaxError{File: name, Msg: "empty file: want a `visualize` list"}
		}
		return nil, yamlError(name, err)
	}
	if len(f.Visualize) == 0 {
		return nil, &parsers.SyntaxError{File: name, Field: "visualize", Msg: "no items: want a list of {id, generate, filters}"}
	}
	var jobs []Job
	ids := map[string]int{}
	for i, it := range f.Visualize {
		field := fmt.Sprintf("visualize[%d]", i)
		bad := func(n *yaml.Node, sub, format string, args ...any) error {
			line := n.Line
			if line == 0 && len(it.Generate) > 0 {
				line = it.Generate[0].Line // the item has no id: point at its first line known
			}
			return &parsers.SyntaxError{File: name, Line: line, Field: field + sub, Msg: fmt.Sprintf(format, args...)}
		}
		if it.ID.Kind != yaml.ScalarNode || strings.TrimSpace(it.ID.Value) == "" {
			return nil, bad(&it.ID, ".id", "an id is required (it names the output subdirectory)")
		}
		id := strings.TrimSpace(it.ID.Value)
		if err := checkID(id); err != nil {
			return nil, bad(&it.ID, ".id", "%v", err)
		}
		if first, dup := ids[id]; dup {
			return nil, bad(&it.ID, ".id", "id %q is already used by visualize[%d]", id, first)
		}
		ids[id] = i
		job := Job{ID: id}
		if len(it.Generate) == 0 {
			return nil, bad(&it.ID, ".generate", "nothing to generate: want a list such as [\"report: Rate per batch\"]")
		}
		for j, g := range it.Generate {
			sub := fmt.Sprintf(".generate[%d]", j)
			if g.Kind != yaml.ScalarNode {
				return nil, bad(&g, sub, "want a string such as \"report: Rate per batch\"")
			}
			d, err := ParseDirective(g.Value)
			if err != nil {
				return nil, bad(&g, sub, "%v", err)
			}
			job.Generate = append(job.Generate, d)
		}
		for j, fn := range it.Filters {
			sub := fmt.Sprintf(".filters[%d]", j)
			filt, err := specFilter(&fn)
			if err != nil {
				return nil, bad(&fn, sub, "%v", err)
			}
			job.Filters = append(job.Filters, filt)
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
}

var typeName = regexp.MustCompile(` in type plotting\.\w+`)

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns a decoder error into a SyntaxError naming its first line.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := typeName.ReplaceAllString(m[2], "")
		msg = strings.NewReplacer("into []yaml.Node", "into a list", "into yaml.Node", "into a value").Replace(msg)
		return &parsers.SyntaxError{File: name, Line: line, Msg: msg}
	}
	return &parsers.SyntaxError{File: name, Msg: msg}
}

// checkID refuses ids that would not name one subdirectory of the output.
func checkID(id string) error {
	if id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.ContainsRune(id, 0) {
		return fmt.Errorf("id %q must be usable as a directory name (no slashes, not . or ..)", id)
	}
	return nil
}

func specFilter(n *yaml.Node) (store.Filters, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return store.ParseFilters(n.Value)
	case yaml.MappingNode:
		f := store.Filters{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var val any
			if err := v.Decode(&val); err != nil {
				return nil, fmt.Errorf("filter %s: %w", k.Value, err)
			}
			switch x := val.(type) {
			case []any:
				f[k.Value] = append(f[k.Value], x...)
			case map[string]any:
				return nil, fmt.Errorf("filter %s: want a value or a list of values, not a mapping", k.Value)
			default:
				f[k.Value] = append(f[k.Value], x)
			}
		}
		return f, nil
	}
	return nil, errors.New("want a string (key=value,...) or a mapping of settings to values")
}
