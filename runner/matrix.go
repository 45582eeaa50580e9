package runner

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// Point is one run to make: an experiment's settings with one value each.
type Point struct {
	Experiment string
	// Settings is the flat map written to settings.yaml: the workload,
	// every setting, and @repeat for repeated experiments.
	Settings map[string]any
	// Varying names the settings that take more than one value in this
	// experiment, in file order (@repeat last): they make the slug.
	Varying []string
	// Config is the expanded benchmark entry written to config.yaml.
	Config map[string]any
}

// Checker validates the settings of one point (the workload's CheckPoint).
type Checker func(settings map[string]any) error

// maxReported bounds the problems listed for one benchmark file.
const maxReported = 20

// Expand returns the points of the experiments, in order: for each
// experiment, each repeat (outermost, so repeats of a point are spread over
// time rather than run back to back), then the cartesian product of the
// list-valued settings in file order (the first list varies slowest) in
// even rounds (@repeat 0, 2, ...) and in reverse order in odd ones: any
// two points of an experiment, such as the two sides of an A/B setting,
// alternate their order from round to round (A B, B A, A B, ...), so that
// a drift of the host, or a first run's warm-up, favours neither.
// Every point is checked; errors name the experiment, the setting and its
// line, and make the whole file invalid (InvalidInput).
func Expand(b *Benchmark, exps []*Experiment, defaultWorkload string, check Checker) ([]Point, error) {
	var points []Point
	var errs []error
	seen := map[string]bool{}
	for _, e := range exps {
		merged := merge(b.Common, e.Settings)
		if _, ok := merged.Values["workload"]; !ok && defaultWorkload != "" {
			merged.set("workload", Value{Values: []any{defaultWorkload}})
		}
		var varying []string
		for _, k := range merged.Keys {
			if len(merged.Values[k].Values) > 1 {
				varying = append(varying, k)
			}
		}
		repeats := max(e.Repeat, 1)
		if e.Repeat > 1 {
			varying = append(varying, RepeatSetting)
		}
		config := map[string]any{"benchmark": b.Path, "experiment": e.Name, "settings": merged.plain()}
		if e.Repeat > 0 {
			config["repeat"] = e.Repeat
		}
		for r := 0; r < repeats; r++ {
			var round []Point
			product(merged, func(s map[string]any) {
				if e.Repeat > 0 {
					s[RepeatSetting] = r
				}
				if r == 0 {
					err := checkThreadSettings(s)
					if err == nil && check != nil {
						err = check(s)
					}
					for _, one := range flatten(err) {
						msg := one.Error()
						if !seen[e.Name+"\x00"+msg] && !b.leftOut(e, one) {
							seen[e.Name+"\x00"+msg] = true
							errs = append(errs, pointError(b, e, s, varying, one))
						}
					}
				}
				round = append(round, Point{Experiment: e.Name, Settings: s, Varying: varying, Config: config})
			})
			if r%2 == 1 {
				slices.Reverse(round)
			}
			points = append(points, round...)
		}
	}
	if err := joinByLine(errs); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, err)
	}
	return points, nil
}

// leftOut tells whether err is about a setting of e that ParseBenchmark
// left out for a bad value (already reported): a PI that finds it missing
// says nothing new.
func (b *Benchmark) leftOut(e *Experiment, err error) bool {
	var sk runnable.SettingKeyer
	if !errors.As(err, &sk) {
		return false
	}
	key := sk.SettingKey()
	return b.invalid[e.Name+"\x00"+key] || b.invalid["\x00"+key]
}

// pointError places a point's validation error in the file: the line of
// the setting it names, in the experiment or else in common_settings.
func pointError(b *Benchmark, e *Experiment, s map[string]any, varying []string, err error) error {
	be := &BenchmarkError{File: b.Path, Line: e.Line, Experiment: e.Name, Msg: err.Error()}
	var sk runnable.SettingKeyer
	if errors.As(err, &sk) {
		key := sk.SettingKey()
		be.Key = key
		if v, ok := e.Settings.Values[key]; ok {
			be.Line = v.Line
		} else if v, ok := b.Common.Values[key]; ok {
			be.Line = v.Line
		}
	}
	if len(varying) > 0 {
		var parts []string
		for _, k := range varying {
			if k != RepeatSetting {
				parts = append(parts, k+"="+models.FormatValue(s[k]))
			}
		}
		be.Msg += " (point " + strings.Join(parts, ", ") + ")"
	}
	return be
}

// merge overlays an experiment's settings on the common ones, without the
// repeat directive.
func merge(common, expe Settings) Settings {
	var out Settings
	for _, s := range []Settings{common, expe} {
		for _, k := range s.Keys {
			if k != RepeatKey {
				out.set(k, s.Values[k])
			}
		}
	}
	return out
}

// plain renders settings for config.yaml: a scalar, or the list as given.
func (s Settings) plain() map[string]any {
	out := make(map[string]any, len(s.Keys))
	for _, k := range s.Keys {
		v := s.Values[k]
		if v.List {
			out[k] = v.Values
		} else {
			out[k] = v.Values[0]
		}
	}
	return out
}

// product calls f with every combination of values, first key slowest.
func product(s Settings, f func(map[string]any)) {
	idx := make([]int, len(s.Keys))
	for {
		m := make(map[string]any, len(s.Keys)+1)
		for i, k := range s.Keys {
			m[k] = s.Values[k].Values[idx[i]]
		}
		f(m)
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(s.Values[s.Keys[i]].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// maxSlug bounds the slug so that directory names stay well under
// NAME_MAX; the number prefix keeps truncated names unique.
const maxSlug = 120

// Slug names the point's directory after its varying settings,
// key=value joined by "_", restricted to characters safe in file names.
// A point of an experiment where nothing varies is "run".
func (p Point) Slug() string {
	var parts []string
	for _, k := range p.Varying {
		parts = append(parts, safeName(strings.TrimPrefix(k, "@"))+"="+safeName(slugText(p.Settings[k])))
	}
	s := strings.Join(parts, "_")
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-_=.")
	}
	if s == "" {
		return "run"
	}
	return s
}

// slugText is a value as the slug shows it: a list's elements (an argv)
// and a mapping's sorted keys and values joined by ",", never JSON, whose
// escapes (\u0026 for "&") would leave letters behind in the name.
func slugText(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = slugText(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + slugText(x[k])
		}
		return strings.Join(parts, ",")
	default:
		return models.FormatValue(v)
	}
}

// safeName keeps letters, digits and . _ - and turns runs of anything else
// into one "-"; a leading dot is replaced so names are never hidden.
func safeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := b.String()
	if strings.HasPrefix(out, ".") {
		out = "-" + out[1:]
	}
	return out
}

// EnvName is the environment variable a setting is exported as:
// SESHAT_ + the upper-cased name, other characters as "_"
// (matrix_size -> SESHAT_MATRIX_SIZE, @repeat -> SESHAT__REPEAT).
func EnvName(key string) string { return runnable.EnvName(key) }

// SettingsText is a point's settings as key=value words sorted by key, in
// their canonical text form: how --dry-run and batch scripts show a point.
func SettingsText(settings map[string]any) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + models.FormatValue(settings[k])
	}
	return strings.Join(parts, " ")
}
