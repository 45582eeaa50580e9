package runner

import (
	"fmt"
	"strings"

	"github.com/seshat-bench/seshat/models"
)

// runnerSettingError is a setting the runner itself reads with a value it
// cannot use.
type runnerSettingError struct{ key, msg string }

func (e *runnerSettingError) Error() string      { return "setting " + e.key + ": " + e.msg }
func (e *runnerSettingError) SettingKey() string { return e.key }

// checkThreadSettings refuses a thread-count setting that is not a whole
// number of threads, 1 or more.
func checkThreadSettings(s map[string]any) error {
	for _, tv := range models.ThreadVariables {
		v, ok := s[tv.Setting]
		if !ok {
			continue
		}
		if n, ok := v.(int); !ok || n < 1 {
			text := models.FormatValue(v)
			if _, isString := v.(string); isString {
				text = fmt.Sprintf("%q", v)
			}
			return &runnerSettingError{tv.Setting, fmt.Sprintf("%s is not a number of threads (a whole number, 1 or more, exported as %s)", text, tv.Env)}
		}
	}
	return nil
}

// threadEnv is what the thread-count settings export: OMP_NUM_THREADS=4
// for omp_num_threads: 4.
func threadEnv(s map[string]any) []string {
	var env []string
	for _, tv := range models.ThreadVariables {
		if v, ok := s[tv.Setting]; ok {
			env = append(env, tv.Env+"="+models.FormatValue(v))
		}
	}
	return env
}

// threadCounts reads the thread-count variables of a child's environment
// (the last of duplicates wins, as for the child), those set only.
func threadCounts(env []string) map[string]string {
	var out map[string]string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		for _, tv := range models.ThreadVariables {
			if name == tv.Env {
				if out == nil {
					out = map[string]string{}
				}
				out[name] = value
			}
		}
	}
	return out
}
