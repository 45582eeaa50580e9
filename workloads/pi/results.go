package pi

import (
	"encoding/json"

	"github.com/seshat-bench/seshat/models"
)

// The files of a run directory the parser reads (DESIGN §4). settings.yaml and
// exit_code are read by the store, not here.
const (
	UUIDFile   = ".uuid"
	ConfigFile = "config.yaml"
	PIFile     = "pi.json"
	HWInfoFile = "hwinfo.json"
	UsageFile  = "usage.json"
	StdoutFile = "stdout.log"
	StderrFile = "stderr.log"
)

// LogTailBytes is how much of the end of each log a Results keeps: enough for
// a Python traceback, small enough to keep in every cache and matrix entry.
const LogTailBytes = 4 << 10

// Results is what the pi workload parser makes of one run directory. Every
// field is optional: a missing or broken file leaves its field empty and a
// warning on the entry.
type Results struct {
	// UUID is the run's UUID from .uuid, in canonical form.
	UUID string `json:"uuid,omitempty"`
	// Config is config.yaml, the expanded benchmark entry that produced the
	// run, as a JSON object (keys sorted, numbers as JSON numbers). It is
	// kept as text: Seshat carries it into the payload and never reads
	// inside it, and a cached parse of a large tree then does not rebuild
	// thousands of identical maps. json.Unmarshal it to look inside.
	Config json.RawMessage `json:"config,omitempty"`
	// PI is pi.json, the PI's measurement. Values are kept as written, even
	// when a warning says they are wrong.
	PI *models.PIResult `json:"pi,omitempty"`
	// HWInfo is hwinfo.json: the machine the run executed on.
	HWInfo *models.HWInfo `json:"hwinfo,omitempty"`
	// Usage is usage.json: wall time and rusage of the PI process; times UTC.
	Usage *models.Usage `json:"usage,omitempty"`
	// StdoutTail and StderrTail are, for failed runs (exit code not 0), the
	// last LogTailBytes of the logs, cut at
	// a character boundary, invalid UTF-8 replaced.
	StdoutTail string `json:"stdout_tail,omitempty"`
	StderrTail string `json:"stderr_tail,omitempty"`

	// Parse-always fields, recomputed on every parse (never trusted from the
	// cache): they depend on where the results directory is read from.

	// LocalPath is the run directory as reached from the results directory
	// given to the parse.
	LocalPath string `json:"local_path,omitempty"`
	// URLs locate the run directory ("artifacts") and its decoded files
	// under the published results base URL; nil when none is configured.
	URLs map[string]string `json:"urls,omitempty"`
}

// NewResult implements store.Parser: the cache decodes into it.
func (Workload) NewResult() any { return &Results{} }
