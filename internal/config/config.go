package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// DefaultFile is read when --config is not given and the file exists.
const DefaultFile = "seshat.yaml"

// File is the content of seshat.yaml. Sections follow matbench's config:
// workload, plots, LTS store and OpenSearch export, regression analyses.
// Unknown keys are errors naming the key and line.
type File struct {
	// Workload overrides the `workload` setting of every entry.
	Workload   string      `yaml:"workload"`
	ResultsDir string      `yaml:"results_dir"`
	Parse      ParseConfig `yaml:"parse"`
	Run        RunConfig   `yaml:"run"`
	Plots      PlotsConfig `yaml:"plots"`
	LTS        LTSConfig   `yaml:"lts"`
	Regression Regression  `yaml:"regression_analyses"`
}

// ParseConfig is the `parse` section.
type ParseConfig struct {
	Filters string `yaml:"filters"`
	NoCache *bool  `yaml:"no_cache"`
}

// RunConfig is the `run` section.
type RunConfig struct {
	Benchmark string `yaml:"benchmark"`
	Timeout   string `yaml:"timeout"`
	Python    string `yaml:"python"`
}

// PlotsConfig is the `plots` section (`seshat visualize`).
type PlotsConfig struct {
	// File is the plots.yaml to follow (TOPSAIL's shape).
	File string `yaml:"file"`
	// Generate names reports or plots directly ("report: Scaling").
	Generate  []string `yaml:"generate"`
	OutputDir string   `yaml:"output_dir"`
	Filters   string   `yaml:"filters"`
	// History is where the KPI history report reads stored KPIs.
	History  string `yaml:"history"`
	BatchKey string `yaml:"batch_key"`
	XKey     string `yaml:"x_key"`
}

// LTSConfig is the `lts` section.
type LTSConfig struct {
	Store      string           `yaml:"store"`
	OpenSearch OpenSearchExport `yaml:"opensearch"`
}

// OpenSearchExport is the `lts.opensearch` section.
type OpenSearchExport struct {
	Export         ExportConfig `yaml:"export"`
	URL            string       `yaml:"url"`
	Index          string       `yaml:"index"`
	IndexPrefix    string       `yaml:"index_prefix"`
	KPIIndexSuffix string       `yaml:"kpi_index_suffix"`
	FailOnError    *bool        `yaml:"fail_on_error"`
	CACert         string       `yaml:"ca_cert"`
	PasswordFile   string       `yaml:"password_file"`
}

// ExportConfig is `lts.opensearch.export`.
type ExportConfig struct {
	Enabled *bool `yaml:"enabled"`
}

// Regression is the `regression_analyses` section.
type Regression struct {
	Enabled           *bool    `yaml:"enabled"`
	Method            string   `yaml:"method"`
	History           string   `yaml:"history"`
	ComparisonKeys    []string `yaml:"comparison_keys"`
	IgnoredKeys       []string `yaml:"ignored_keys"`
	SortingKeys       []string `yaml:"sorting_keys"`
	IgnoredEntries    []string `yaml:"ignored_entries"`
	FailOnRegression  *bool    `yaml:"fail_on_regression"`
	FailOnImprovement *bool    `yaml:"fail_on_improvement"`
	Ack               string   `yaml:"ack"`
	ReportDir         string   `yaml:"report_dir"`
	WindowLen         *int     `yaml:"window_len"`
	MaxPValue         *float64 `yaml:"max_pvalue"`
	MinMagnitude      *float64 `yaml:"min_magnitude"`
}

// Loaded is a decoded config file with its generic form, used to look up the
// value behind a flag's key.
type Loaded struct {
	Path string
	File File
	tree map[string]any
}

// Load reads a config file. When explicit is false and the file does not
// exist, Load returns an empty config. Every error is InvalidInput except an
// unreadable file (Failure).
func Load(path string, explicit bool) (*Loaded, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &Loaded{}, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "config file %s: %w", path, err)
		}
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes config file content; path is used in messages.
func Parse(path string, data []byte) (*Loaded, error) {
	l := &Loaded{Path: path}
	if len(bytes.TrimSpace(data)) == 0 {
		return l, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l.File); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "config file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := yaml.Unmarshal(data, &l.tree); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "config file %s: %w", path, err)
	}
	return l, nil
}

// lookup returns the value at a dotted key such as "lts.opensearch.url".
func (l *Loaded) lookup(key string) (any, bool) {
	var cur any = l.tree
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[part]
		if !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

const keyAnnotation = "seshat_config_key"

// BindKey records that flag name of fs mirrors the config key (dotted path).
func BindKey(fs *pflag.FlagSet, name, key string) {
	if err := fs.SetAnnotation(name, keyAnnotation, []string{key}); err != nil {
		panic(err) // programming error: the flag does not exist
	}
}

// EnvName is the environment variable mirroring a flag: SESHAT_ + upper-cased
// name with dashes as underscores (--results-dir -> SESHAT_RESULTS_DIR).
func EnvName(flag string) string {
	return "SESHAT_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// Apply fills every flag of cmd the user did not set on the command line,
// first from the environment, else from the config file. This is the one
// place the precedence file < env < flags is decided.
func Apply(cmd *cobra.Command, getenv func(string) (string, bool), cfg *Loaded) error {
	var errs []error
	set := func(f *pflag.Flag, value, source string) {
		if err := f.Value.Set(value); err != nil {
			errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: invalid value %q for --%s: %v", source, value, f.Name, err))
			return
		}
		f.Changed = true
	}
	visit := func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" {
			return
		}
		env := EnvName(f.Name)
		if v, ok := getenv(env); ok {
			if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
				if err := sv.Replace(splitList(v)); err != nil {
					errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: invalid value %q for --%s: %v", env, v, f.Name, err))
				}
				f.Changed = true
				return
			}
			set(f, v, env)
			return
		}
		if cfg == nil {
			return
		}
		keys := f.Annotations[keyAnnotation]
		if len(keys) == 0 {
			return
		}
		v, ok := cfg.lookup(keys[0])
		if !ok {
			return
		}
		source := fmt.Sprintf("config file %s: key %s", cfg.Path, keys[0])
		if list, isList := v.([]any); isList {
			sv, isSlice := f.Value.(pflag.SliceValue)
			if !isSlice {
				errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: a list is not valid here", source))
				return
			}
			strs := make([]string, len(list))
			for i, x := range list {
				strs[i] = fmt.Sprint(x)
			}
			if err := sv.Replace(strs); err != nil {
				errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: %v", source, err))
			}
			f.Changed = true
			return
		}
		if _, isMap := v.(map[string]any); isMap {
			errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: a mapping is not valid here", source))
			return
		}
		set(f, fmt.Sprint(v), source)
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return errors.Join(errs...)
}

func splitList(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
