package pi

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/workloads"
)

func TestRunnerAbility(t *testing.T) {
	t.Parallel()
	var w workloads.Runner = Workload{}
	if err := w.CheckPoint(map[string]any{"pi": "matmul", "backend": "gonum", "device": "gpu"}); err == nil ||
		!strings.Contains(err.Error(), "setting device") {
		t.Errorf("CheckPoint: %v", err)
	}
	args, err := w.Command(workloads.RunRequest{Dir: "/r/e/000__run", Self: "/bin/seshat", Python: "/opt/py"})
	want := []string{"/bin/seshat", "pi", "--settings", "/r/e/000__run/settings.yaml", "--output", "/r/e/000__run/pi.json", "--report-fd", "3", "--python", "/opt/py"}
	if err != nil || !reflect.DeepEqual(args, want) {
		t.Errorf("Command = %q, %v", args, err)
	}
	// `seshat pi` reports the run's own peak memory on descriptor 3.
	if ur, ok := w.(workloads.UsageReporter); !ok || !ur.ReportsUsage(nil) {
		t.Errorf("the pi workload does not report its runs' usage")
	}
	dir := t.TempDir()
	if v := w.RunVersions(dir); v != nil {
		t.Errorf("versions without pi.json: %v", v)
	}
	os.WriteFile(filepath.Join(dir, PIFile), []byte(`{"component":"numpy","name":"PiMatmul","@result":{"elapsed":1},"versions":{"numpy":"1.24.2"}}`), 0o644)
	if v := w.RunVersions(dir); v["numpy"] != "1.24.2" {
		t.Errorf("versions %v", v)
	}
}
