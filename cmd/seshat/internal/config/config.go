package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/suggest"
	"github.com/seshat-bench/seshat/parsers"
)

// DefaultFile is read when --config is not given and the file exists.
const DefaultFile = "seshat.yaml"

// File is the content of seshat.yaml. Sections follow matbench's config:
// workload, plots, LTS store and OpenSearch export, regression analyses.
// Unknown keys are errors naming the key and line.
type File struct {
	// Workload overrides the `workload` setting of every entry.
	Workload string `yaml:"workload"`
	// WorkloadFile is a workload.yaml declaring a workload (--workload-file).
	WorkloadFile string      `yaml:"workload_file"`
	ResultsDir   string      `yaml:"results_dir"`
	Parse        ParseConfig `yaml:"parse"`
	Run          RunConfig   `yaml:"run"`
	Executor     Executor    `yaml:"executor"`
	Plots        PlotsConfig `yaml:"plots"`
	LTS          LTSConfig   `yaml:"lts"`
	Regression   Regression  `yaml:"regression_analyses"`
}

// ParseConfig is the `parse` section.
type ParseConfig struct {
	Filters string `yaml:"filters"`
	NoCache *bool  `yaml:"no_cache"`
}

// RunConfig is the `run` section.
type RunConfig struct {
	Benchmark string   `yaml:"benchmark"`
	Timeout   Duration `yaml:"timeout"`
	Python    string   `yaml:"python"`
	// BuildID, Commit and Ref name what is under test (build.json), over
	// what the CI's environment and git tell.
	BuildID string `yaml:"build_id"`
	Commit  string `yaml:"commit"`
	Ref     string `yaml:"ref"`
	// CPUs pins every run's PI to a CPU list (--cpus).
	CPUs string `yaml:"cpus"`
}

// Executor is the `executor` section: where `seshat run` runs the points
// (name: local, slurm or kubernetes; --executor) and the settings of the
// schedulers.
type Executor struct {
	Name       string     `yaml:"name"`
	Slurm      Slurm      `yaml:"slurm"`
	Kubernetes Kubernetes `yaml:"kubernetes"`
}

// Slurm is `executor.slurm` (docs/run.md).
type Slurm struct {
	Partition    string   `yaml:"partition"`
	Account      string   `yaml:"account"`
	QOS          string   `yaml:"qos"`
	TimeLimit    string   `yaml:"time_limit"`
	GPUType      string   `yaml:"gpu_type"`
	Directives   []string `yaml:"directives"`
	MaxParallel  int      `yaml:"max_parallel"`
	MaxArraySize int      `yaml:"max_array_size"`
	JobName      string   `yaml:"job_name"`
	Seshat       string   `yaml:"seshat"`
	PollInterval Duration `yaml:"poll_interval"`
	GracePeriod  Duration `yaml:"grace_period"`
}

// Kubernetes is `executor.kubernetes` (docs/run.md).
type Kubernetes struct {
	Kubeconfig       string            `yaml:"kubeconfig"`
	Context          string            `yaml:"context"`
	Namespace        string            `yaml:"namespace"`
	Image            string            `yaml:"image"`
	ImagePullPolicy  string            `yaml:"image_pull_policy"`
	ImagePullSecrets []string          `yaml:"image_pull_secrets"`
	ServiceAccount   string            `yaml:"service_account"`
	NodeSelector     map[string]string `yaml:"node_selector"`
	Tolerations      []Toleration      `yaml:"tolerations"`
	Requests         map[string]string `yaml:"requests"`
	Limits           map[string]string `yaml:"limits"`
	GPUResource      string            `yaml:"gpu_resource"`
	Labels           map[string]string `yaml:"labels"`
	MaxParallel      int               `yaml:"max_parallel"`
	PollInterval     Duration          `yaml:"poll_interval"`
	Seshat           string            `yaml:"seshat"`
}

// Toleration is one entry of `executor.kubernetes.tolerations`, as in a
// pod spec.
type Toleration struct {
	Key               string `yaml:"key"`
	Operator          string `yaml:"operator"`
	Value             string `yaml:"value"`
	Effect            string `yaml:"effect"`
	TolerationSeconds *int64 `yaml:"toleration_seconds"`
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
	// HistoryAxis is the x axis of the KPI history figures: time or build.
	HistoryAxis string `yaml:"history_axis"`
	// RegressionReport is the regression report reports_index.html links to.
	RegressionReport string `yaml:"regression_report"`
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
	BulkBytes      *int         `yaml:"bulk_bytes"`
}

// ExportConfig is `lts.opensearch.export`.
type ExportConfig struct {
	Enabled *bool `yaml:"enabled"`
}

// Regression is the `regression_analyses` section. Its keys are the
// analysis' own type, regression.Keys, inlined.
type Regression struct {
	Enabled           *bool  `yaml:"enabled"`
	Method            string `yaml:"method"`
	History           string `yaml:"history"`
	regression.Keys   `yaml:",inline"`
	FailOnRegression  *bool    `yaml:"fail_on_regression"`
	FailOnImprovement *bool    `yaml:"fail_on_improvement"`
	AllowNoHistory    *bool    `yaml:"allow_no_history"`
	StoreResults      *bool    `yaml:"store_results"`
	Ack               string   `yaml:"ack"`
	ReportDir         string   `yaml:"report_dir"`
	ReportsIndex      string   `yaml:"reports_index"`
	WindowLen         *int     `yaml:"window_len"`
	MaxPValue         *float64 `yaml:"max_pvalue"`
	MinMagnitude      *float64 `yaml:"min_magnitude"`
	FDR               *float64 `yaml:"fdr"`
	MinEffect         *float64 `yaml:"min_effect"`
	NoiseFactor       *float64 `yaml:"noise_factor"`
	MaxNoise          *float64 `yaml:"max_noise"`
	// Confirm is a number of rounds or auto; Budget (a duration) and
	// MaxRounds bound auto.
	Confirm   string   `yaml:"confirm"`
	Budget    Duration `yaml:"budget"`
	MaxRounds *int     `yaml:"max_rounds"`
	// Baseline is KEY=VALUE: an A/B analysis in one job.
	Baseline string `yaml:"baseline"`
}

// Loaded is a decoded config file with its YAML tree, used to look up the
// value (and line) behind a flag's key.
type Loaded struct {
	Path string
	File File
	root *yaml.Node // the document's mapping; nil for an empty file
}

// Load reads a config file. When explicit is false and the file does not
// exist, Load returns an empty config. Every error is InvalidInput except an
// unreadable file (Failure).
func Load(path string, explicit bool) (*Loaded, error) {
	// A config file is small; a limit keeps a wrong --config (a log, a
	// device) from being read whole.
	data, err := parsers.ReadLimited(path, 4<<20)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &Loaded{}, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, below
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "config file %s: %w", path, err)
		}
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes config file content; path is used in messages, which name
// the line and the dotted key ("seshat.yaml:3: unknown key parse.filterz").
func Parse(path string, data []byte) (*Loaded, error) {
	l := &Loaded{Path: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, fileError(path, data, nil, err))
	}
	if len(doc.Content) == 0 {
		return l, nil // empty, or comments only
	}
	l.root = doc.Content[0]
	if l.root.Kind == yaml.ScalarNode && l.root.ShortTag() == "!!null" {
		l.root = nil
		return l, nil
	}
	if l.root.Kind != yaml.MappingNode {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "config file %s:%d: want a mapping of sections, found %s",
			path, l.root.Line, kindName(l.root))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l.File); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, fileError(path, data, l.root, err))
	}
	return l, nil
}

var (
	yamlLineMsg = regexp.MustCompile(`^line (\d+): (.*)$`)
	notFound    = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	intoSection = regexp.MustCompile(`^cannot unmarshal (.*) into config\.\w+$`)
)

// fileError rewrites a yaml.v3 error as "path:line: message" lines, naming
// unknown keys by their dotted path instead of the Go type they miss in.
func fileError(path string, data []byte, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("config file %w", parsers.YAMLError(path, data, err))
	}
	lines := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		m := yamlLineMsg.FindStringSubmatch(e)
		if m == nil {
			lines = append(lines, fmt.Sprintf("config file %s: %s", path, e))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		msg := m[2]
		if nf := notFound.FindStringSubmatch(msg); nf != nil {
			key := keyPath(root, line, nf[1])
			if key == "" {
				key = nf[1]
			}
			msg = unknownKey(key)
		} else {
			if sm := intoSection.FindStringSubmatch(msg); sm != nil {
				msg = "want a section (a mapping), found " + sm[1]
			}
			if key := keyPath(root, line, ""); key != "" {
				msg = "key " + key + ": " + msg
			}
		}
		lines = append(lines, fmt.Sprintf("config file %s:%d: %s", path, line, msg))
	}
	return errors.New(strings.Join(lines, "\n"))
}

// unknownKey says that the dotted key is not one of the config file's,
// with the nearest valid name and every valid one beside it: the sections
// at the top, the keys of a section below.
func unknownKey(key string) string {
	parent, name := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		parent, name = key[:i], key[i+1:]
	}
	var valid []string
	for _, k := range Keys() {
		rest, ok := strings.CutPrefix(k.Name, parent+".")
		if parent == "" {
			rest, ok = k.Name, true
		}
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(rest, ".")
		if !slices.Contains(valid, first) {
			valid = append(valid, first)
		}
	}
	msg := "unknown key " + key
	if len(valid) == 0 {
		return msg
	}
	if s := suggest.Closest(name, valid); s != "" {
		msg += "; did you mean " + s + "?"
	}
	where := "at the top"
	if parent != "" {
		where = "in " + parent
	}
	return msg + " (valid " + where + ": " + strings.Join(valid, ", ") + ")"
}

// keyPath returns the dotted path of the key on line (named name, when not
// empty) in the mappings under n, or "".
func keyPath(n *yaml.Node, line int, name string) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Line == line && (name == "" || k.Value == name) {
			return k.Value
		}
		if sub := keyPath(v, line, name); sub != "" {
			return k.Value + "." + sub
		}
	}
	return ""
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	default:
		return "something else"
	}
}

// lookup returns the node at a dotted key such as "lts.opensearch.url";
// nil when absent or null.
func (l *Loaded) lookup(key string) *yaml.Node {
	cur := l.root
	for _, part := range strings.Split(key, ".") {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == part {
				next = cur.Content[i+1]
			}
		}
		cur = next
	}
	for cur != nil && cur.Kind == yaml.AliasNode {
		cur = cur.Alias
	}
	if cur == nil || (cur.Kind == yaml.ScalarNode && cur.ShortTag() == "!!null") {
		return nil
	}
	return cur
}

// Flag annotations: the config key a flag mirrors, further environment
// variables that set it, and the settings it falls back on.
const (
	keyAnnotation      = "seshat_config_key"
	envAnnotation      = "seshat_env_alias"
	fallbackAnnotation = "seshat_fallback"
)

// BindKey records that flag name of fs mirrors the config key (dotted path).
func BindKey(fs *pflag.FlagSet, name, key string) {
	annotate(fs, name, keyAnnotation, key)
}

// BindEnv makes the environment variable env set flag name too, when the
// flag's own SESHAT_<FLAG> does not: an older or shared name
// (SESHAT_IGNORE_CACHE for --no-cache).
func BindEnv(fs *pflag.FlagSet, name, env string) {
	annotate(fs, name, envAnnotation, env)
}

// BindFallback makes flag name, when its own variable and key leave it
// unset, take the value of another setting: its environment variable env,
// else its config key. `regression --history` falls back on the store
// uploads go to (SESHAT_STORE, lts.store).
func BindFallback(fs *pflag.FlagSet, name, env, key string) {
	annotate(fs, name, fallbackAnnotation, env, key)
}

func annotate(fs *pflag.FlagSet, name, annotation string, values ...string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("config: no flag --" + name) // programming error
	}
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[annotation] = append(f.Annotations[annotation], values...)
}

// BoundKey is the config key flag f mirrors, "" when none.
func BoundKey(f *pflag.Flag) string {
	if keys := f.Annotations[keyAnnotation]; len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// ReadKeys are every config key flag f reads: its own, then its fallbacks'.
func ReadKeys(f *pflag.Flag) []string {
	var out []string
	if k := BoundKey(f); k != "" {
		out = append(out, k)
	}
	fb := f.Annotations[fallbackAnnotation]
	for i := 1; i < len(fb); i += 2 {
		out = append(out, fb[i])
	}
	return out
}

// EnvName is the environment variable mirroring a flag: SESHAT_ + upper-cased
// name with dashes as underscores (--results-dir -> SESHAT_RESULTS_DIR).
func EnvName(flag string) string {
	return "SESHAT_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// Apply fills every flag of cmd the user did not set on the command line,
// from the first source that has a value, in this order: the flag's
// environment variables (SESHAT_<FLAG>, then those of BindEnv), its config
// key, then its fallbacks (BindFallback: their variable, then their key).
// This is where the precedence file < env < flags is decided (Resolve calls
// it for every verb). An empty environment variable counts as unset. Bad
// values are InvalidInput errors naming the variable, or the config file,
// line and key.
func Apply(cmd *cobra.Command, getenv func(string) (string, bool), cfg *Loaded) error {
	var errs []error
	fromEnv := func(f *pflag.Flag, env string) bool {
		v, ok := getenv(env)
		if !ok || v == "" {
			return false
		}
		if err := setFlag(f, v, splitList(v)); err != nil {
			errs = append(errs, exitcode.Errorf(exitcode.InvalidInput, "%s: invalid value %q for --%s: %v", env, v, f.Name, err))
		}
		return true
	}
	fromFile := func(f *pflag.Flag, key string) bool {
		if cfg == nil || key == "" {
			return false
		}
		n := cfg.lookup(key)
		if n == nil {
			return false
		}
		if err := setFromNode(f, n, fmt.Sprintf("config file %s:%d: key %s", cfg.Path, n.Line, key)); err != nil {
			errs = append(errs, err)
		}
		return true
	}
	visit := func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" {
			return
		}
		envs := append([]string{EnvName(f.Name)}, f.Annotations[envAnnotation]...)
		for _, env := range envs {
			if fromEnv(f, env) {
				return
			}
		}
		if fromFile(f, BoundKey(f)) {
			return
		}
		fb := f.Annotations[fallbackAnnotation]
		for i := 0; i+1 < len(fb); i += 2 {
			if fromEnv(f, fb[i]) || fromFile(f, fb[i+1]) {
				return
			}
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return errors.Join(errs...)
}

// setFromNode sets a flag from the YAML node of its key; source names the
// key in errors.
func setFromNode(f *pflag.Flag, n *yaml.Node, source string) error {
	var value string
	var list []string
	switch n.Kind {
	case yaml.ScalarNode:
		value, list = n.Value, splitList(n.Value)
	case yaml.SequenceNode:
		if _, isSlice := f.Value.(pflag.SliceValue); !isSlice {
			return exitcode.Errorf(exitcode.InvalidInput, "%s: a list is not valid here", source)
		}
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return exitcode.Errorf(exitcode.InvalidInput, "%s: list items must be single values", source)
			}
			list = append(list, item.Value)
		}
	default:
		return exitcode.Errorf(exitcode.InvalidInput, "%s: a mapping is not valid here", source)
	}
	if err := setFlag(f, value, list); err != nil {
		return exitcode.Errorf(exitcode.InvalidInput, "%s: invalid value %q for --%s: %v", source, n.Value, f.Name, err)
	}
	return nil
}

// setFlag sets a flag as if given on the command line: slices take list,
// the others value. It marks the flag changed, so later sources skip it.
func setFlag(f *pflag.Flag, value string, list []string) error {
	var err error
	if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
		err = sv.Replace(list)
	} else {
		err = f.Value.Set(value)
	}
	if err == nil {
		f.Changed = true
	}
	return err
}

func splitList(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
