package declared

import (
	"fmt"
	"regexp"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
)

// WorkloadDirPlaceholder in a run command is the workload file's directory,
// where a workload keeps the scripts it runs.
const WorkloadDirPlaceholder = "workload_dir"

// placeholder matches {setting} in a command argument, as the exec PI's
// does; ${NAME} is left to a shell.
var placeholder = regexp.MustCompile(`\$?\{[A-Za-z_@][A-Za-z0-9_.@-]*\}`)

// settingError concerns one setting of a matrix point, so the runner can
// name its line in the benchmark file.
type settingError struct{ key, msg string }

func (e *settingError) Error() string      { return "setting " + e.key + ": " + e.msg }
func (e *settingError) SettingKey() string { return e.key }

// CheckPoint implements workloads.Runner: the workload must declare a run
// command, and every placeholder of it must name a setting of the point.
func (w *Workload) CheckPoint(settings map[string]any) error {
	_, err := w.command(settings)
	return err
}

// Command implements workloads.Runner: the declared command, substituted.
// The runner starts it in the run directory, with the settings exported as
// SESHAT_<KEY> variables, and writes exit_code when it ends.
func (w *Workload) Command(req workloads.RunRequest) ([]string, error) {
	return w.command(req.Settings)
}

func (w *Workload) command(settings map[string]any) ([]string, error) {
	if w.spec.Run == nil {
		return nil, &settingError{"workload", fmt.Sprintf("workload %s (%s) declares no run command: it can be parsed but not run", w.spec.Name, w.Source)}
	}
	args := make([]string, 0, len(w.spec.Run.Command))
	for i, a := range w.spec.Run.Command {
		var bad error
		arg := placeholder.ReplaceAllStringFunc(a, func(m string) string {
			if m[0] == '$' {
				return m
			}
			key := m[1 : len(m)-1]
			if key == WorkloadDirPlaceholder {
				return w.dir
			}
			v, ok := settings[key]
			if !ok && bad == nil {
				bad = &settingError{"workload", fmt.Sprintf("%s: run.command argument %d: {%s} names no setting of this run", w.Source, i, key)}
			}
			return models.FormatValue(v)
		})
		if bad != nil {
			return nil, bad
		}
		args = append(args, arg)
	}
	return args, nil
}

// RunVersions implements workloads.Runner: a declared workload reports no
// versions beyond its labels.
func (w *Workload) RunVersions(string) map[string]string { return nil }

var _ workloads.Runner = (*Workload)(nil)
