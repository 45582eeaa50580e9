// Package fuzzing sets the defaults the module's fuzz targets run with, for
// the TestMain of every package that has some:
//
//	func TestMain(m *testing.M) { fuzzing.Main(m) }
//
// go test -fuzz minimizes every new interesting input a worker finds, for
// up to 60 s by default (-fuzzminimizetime), and the minimizer's passes
// grow with the square of the input's length. The seeds here are whole
// artifacts (payloads, pi.json, config.yaml: kilobytes), so the first
// inputs that reached new code kept both workers minimizing for the whole
// of a short run: `-fuzztime=5s` showed 2 to 20 executions in all
// (FuzzPayloadValidate 14, FuzzPIJSON 17, FuzzHWInfoJSON 8), while the
// same targets execute thousands of inputs a second when not minimizing.
// A budget counted in executions bounds each minimization to a fraction of
// a second; a time budget would not do (a worker overrunning it is
// restarted, which costs more than it saves). -fuzzminimizetime on the
// command line still wins.
package fuzzing

import (
	"flag"
	"os"
	"testing"
)

// MinimizeBudget is the default -test.fuzzminimizetime.
const MinimizeBudget = "1000x"

// Main sets the defaults, runs the tests and exits with their status.
func Main(m *testing.M) {
	SetDefaults()
	os.Exit(m.Run())
}

// SetDefaults sets the defaults for flags the command line does not give;
// call it in TestMain before m.Run, which parses the command line.
func SetDefaults() {
	if f := flag.Lookup("test.fuzzminimizetime"); f != nil {
		_ = f.Value.Set(MinimizeBudget)
	}
}

// memoryFS is where TempDir puts its directories when it can: a tmpfs on
// most Linux machines.
const memoryFS = "/dev/shm"

// TempDir returns a directory removed when f ends, in memory where the
// machine has a tmpfs at /dev/shm, else f.TempDir(). Targets that go
// through files (the whole parse of a run directory, the parse cache) write
// and read them for every input: about 1 ms per file on a VM's disk, a few
// microseconds on tmpfs.
func TempDir(f *testing.F) string {
	f.Helper()
	if st, err := os.Stat(memoryFS); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp(memoryFS, "seshat-fuzz-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return f.TempDir()
}
