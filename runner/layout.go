package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// The files of a run directory (DESIGN §4).
const (
	SettingsFile = "settings.yaml"
	UUIDFile     = ".uuid"
	ConfigFile   = "config.yaml"
	BuildFile    = "build.json"
	HWInfoFile   = "hwinfo.json"
	UsageFile    = "usage.json"
	StdoutFile   = "stdout.log"
	StderrFile   = "stderr.log"
	ExitCodeFile = "exit_code"
)

var runDirName = regexp.MustCompile(`^(\d+)__`)

// highestNumber returns the highest NNN of the run directories in dir, -1
// when there is none (or dir does not exist).
func highestNumber(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	high := -1
	for _, e := range entries {
		if m := runDirName.FindStringSubmatch(e.Name()); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > high {
				high = n
			}
		}
	}
	return high, nil
}

// RunDirName is the directory name of run number n: NNN__slug, at least
// three digits so that names sort in run order.
func RunDirName(n int, slug string) string { return fmt.Sprintf("%03d__%s", n, slug) }

// createRunDir makes dir/NNN__slug with the first free number >= n and
// returns its path and number. Mkdir fails on an existing name, so two
// runners sharing a results directory never share a run directory.
func createRunDir(dir string, n int, slug string) (string, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	for tries := 0; tries < 1000; tries++ {
		path := filepath.Join(dir, RunDirName(n, slug))
		err := os.Mkdir(path, 0o755)
		if err == nil {
			return path, n, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", 0, err
		}
		n++
	}
	return "", 0, fmt.Errorf("%s: no free run number", dir)
}

// pastRun is a run directory found in an experiment directory.
type pastRun struct {
	path     string
	identity string
	complete bool
	exitCode int
}

// scanPastRuns reads the settings and exit codes of the run directories of
// one experiment, for --resume. Directories it cannot read are ignored:
// their points simply run again.
func scanPastRuns(dir string) []pastRun {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []pastRun
	for _, e := range entries {
		if !e.IsDir() || !runDirName.MatchString(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := parsers.ReadLimited(filepath.Join(path, SettingsFile), 1<<20)
		if err != nil {
			continue
		}
		s, err := parsers.Settings(SettingsFile, data)
		if err != nil {
			continue
		}
		r := pastRun{path: path, identity: models.Settings(s).Identity()}
		if data, err := parsers.ReadLimited(filepath.Join(path, ExitCodeFile), 64); err == nil {
			if code, err := parsers.ExitCode(ExitCodeFile, data); err == nil {
				r.complete, r.exitCode = true, code
			}
		}
		out = append(out, r)
	}
	return out
}

// clearDir empties an incomplete run directory before it is reused.
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
