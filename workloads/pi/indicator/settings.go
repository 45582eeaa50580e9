package indicator

import (
	"regexp"
	"slices"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
)

// The settings each PI reads (Decode's keys). TestReadsCoversDecode keeps
// the lists in step with Decode.
var (
	readByAll     = []string{"pi", "python"}
	readByMeasure = []string{"backend", "device", "threads", "seed", "warmup", "repetitions",
		"target_ci", "max_seconds", "min_repetitions", "max_repetitions"}
	readByConv1D = []string{"batch", "input_width", "input_channels", "filter_width", "output_channels",
		"strides", "padding", "data_format"}
	readBy = map[string][]string{
		"matmul": {"dtype", "matrix_size"},
		"conv1d": append([]string{"dtype"}, readByConv1D...),
		"conv2d": append([]string{"dtype", "input_height", "filter_height"}, readByConv1D...),
		"import": {"module"},
	}
)

// envReference matches the names of SESHAT_ environment variables in an
// exec command: $SESHAT_N, ${SESHAT_N}, os.environ["SESHAT_N"].
var envReference = regexp.MustCompile(`SESHAT_[A-Za-z0-9_]*`)

// Reads returns the settings the PI of a point reads. The exec PI reads
// `command`, its labels `device` and `framework_version`, and every
// setting its command names, as a {setting}
// placeholder or as its SESHAT_<KEY> environment variable; an unknown or
// missing `pi` reads every name (Decode reports it).
func Reads(settings map[string]any) []string {
	pi, _ := settings["pi"].(string)
	if pi == "exec" {
		return append(slices.Clone(readByAll), execReads(settings)...)
	}
	keys, ok := readBy[pi]
	if !ok {
		return SettingNames()
	}
	return slices.Concat(readByAll, readByMeasure, keys)
}

// execLabels are the settings the exec PI reads as labels of its runs.
var execLabels = []string{"device", "framework_version"}

func execReads(settings map[string]any) []string {
	out := append([]string{"command"}, execLabels...)
	list, _ := settings["command"].([]any)
	var text strings.Builder
	for _, a := range list {
		text.WriteString(models.FormatValue(a))
		text.WriteByte(' ')
	}
	named := map[string]bool{}
	for _, m := range placeholder.FindAllString(text.String(), -1) {
		if m[0] != '$' {
			named["{"+m[1:len(m)-1]+"}"] = true
		}
	}
	for _, m := range envReference.FindAllString(text.String(), -1) {
		named[m] = true
	}
	for k := range settings {
		if named["{"+k+"}"] || named[workloads.EnvName(k)] {
			out = append(out, k)
		}
	}
	return out
}

// SettingNames returns every setting some PI reads, sorted.
func SettingNames() []string {
	all := slices.Concat(readByAll, readByMeasure, []string{"command"}, execLabels)
	for _, keys := range readBy {
		all = append(all, keys...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}
