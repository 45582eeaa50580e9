package runner

import (
	"fmt"
	"slices"
	"sort"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/suggest"
	"github.com/seshat-bench/seshat/models"
)

// SettingsReader names the settings a point reads (the workload's
// runnable.SettingsReader).
type SettingsReader interface {
	// Reads returns the settings the point reads; all is true when the
	// point's workload takes any setting.
	Reads(settings map[string]any) (keys []string, all bool)
	// Names returns every setting name the workloads can read, for
	// suggestions.
	Names() []string
}

// runnerKeys are read by the runner itself, whatever the workload: the
// workload, repeat and the thread counts it exports
// (models.ThreadVariables).
var runnerKeys = func() []string {
	keys := []string{"workload", RepeatKey}
	for _, tv := range models.ThreadVariables {
		keys = append(keys, tv.Setting)
	}
	return keys
}()

// CheckSettings refuses the settings no run reads, so that a misspelt
// setting (repetitons: 5) does not run silently with the default:
//
//   - a setting of an experiment must be read by some point of that
//     experiment (an experiment mixing PIs, conv1d and conv2d say, may set
//     what one of them reads);
//   - a setting of common_settings must be read by some point of some
//     experiment of the file, selected or not;
//   - settings declared in extra_settings are kept whoever reads them.
//
// Errors name the file, line, experiment (or common_settings) and key,
// with the closest known name; they are InvalidInput.
func CheckSettings(b *Benchmark, exps []*Experiment, defaultWorkload string, r SettingsReader) error {
	type reads struct {
		keys map[string]bool
		all  bool
	}
	byExpe := map[string]*reads{}
	file := &reads{keys: map[string]bool{}}
	for _, e := range b.Experiments {
		merged := merge(b.Common, e.Settings)
		if _, ok := merged.Values["workload"]; !ok && defaultWorkload != "" {
			merged.set("workload", Value{Values: []any{defaultWorkload}})
		}
		er := &reads{keys: map[string]bool{}}
		product(merged, func(s map[string]any) {
			if er.all {
				return
			}
			keys, all := r.Reads(s)
			er.all = er.all || all
			for _, k := range keys {
				er.keys[k] = true
				file.keys[k] = true
			}
		})
		file.all = file.all || er.all
		byExpe[e.Name] = er
	}
	known := func(rd *reads, key string) bool {
		return rd.all || rd.keys[key] || slices.Contains(runnerKeys, key) || b.isExtra(key)
	}

	var errs []*BenchmarkError
	for _, k := range b.Common.Keys {
		if !known(file, k) {
			msg := "unknown setting in common_settings: no run of any experiment reads it"
			errs = append(errs, &BenchmarkError{File: b.Path, Line: b.Common.Values[k].Line, Key: k, Msg: msg})
		}
	}
	for _, e := range exps {
		for _, k := range e.Settings.Keys {
			if !known(byExpe[e.Name], k) {
				msg := "unknown setting: no run of this experiment reads it"
				errs = append(errs, &BenchmarkError{File: b.Path, Line: e.Settings.Values[k].Line, Experiment: e.Name, Key: k, Msg: msg})
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	vocabulary := append(slices.Clone(runnerKeys), r.Names()...)
	for k := range file.keys {
		vocabulary = append(vocabulary, k)
	}
	sort.Strings(vocabulary)
	vocabulary = slices.Compact(vocabulary)
	var joined []error
	for _, be := range errs {
		if s := suggest.Closest(be.Key, vocabulary); s != "" {
			be.Msg += fmt.Sprintf("; did you mean %q?", s)
		}
		be.Msg += " (declare settings kept only as labels in extra_settings)"
		joined = append(joined, be)
	}
	return exitcode.With(exitcode.InvalidInput, joinByLine(joined))
}
