package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// shExec runs a shell script as a run's child, with a report pipe.
func shExec(t *testing.T, script string) Exec {
	t.Helper()
	x := helperExec(t, "")
	x.Args, x.Report = []string{"/bin/sh", "-c", script}, true
	return x
}

// The child's report comes back as written, whatever became of the child
// and of what it started; a child that wrote nothing, or too much, gives
// none.
func TestExecuteReport(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxReport+1)
	tests := []struct {
		name, script, want string
		code               int
	}{
		{"written", `echo '{"maxrss_bytes": 1234}' >&3`, "{\"maxrss_bytes\": 1234}\n", 0},
		{"written by a failed run", `echo '{"maxrss_bytes": 5}' >&3; exit 3`, "{\"maxrss_bytes\": 5}\n", 3},
		{"nothing", `exit 0`, "", 0},
		{"more than the limit", `printf ` + big + ` >&3`, "", 0},
		// What the run left running, holding the pipe, is killed at its
		// end: the read does not wait for it.
		{"a process left holding the pipe", `echo '{"maxrss_bytes": 7}' >&3; sleep 60 >&3 &`, "{\"maxrss_bytes\": 7}\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := Execute(context.Background(), shExec(t, tc.script))
			if o.ExitCode != tc.code || o.Err != nil {
				t.Fatalf("outcome %+v", o)
			}
			if string(o.Report) != tc.want {
				t.Errorf("report %q, want %q", o.Report, tc.want)
			}
		})
	}
}

// Without Exec.Report the child has no file descriptor 3.
func TestExecuteNoReportPipe(t *testing.T) {
	t.Parallel()
	x := shExec(t, `echo x >&3`)
	x.Report = false
	o := Execute(context.Background(), x)
	if o.ExitCode == 0 || o.Report != nil {
		t.Errorf("outcome %+v: want the write to a closed descriptor to fail", o)
	}
}

// A valid report replaces the kernel's figure, which is kept beside it;
// any other leaves the kernel's figure and says what was wrong.
func TestApplyReport(t *testing.T) {
	t.Parallel()
	const kernel = 300 << 20
	tests := []struct {
		name, report string
		want         int64
		err          string
	}{
		{"valid", `{"maxrss_bytes": 41943040}`, 40 << 20, ""},
		{"not JSON", `Killed`, kernel, "the child's usage report: invalid character 'K'"},
		{"unknown field", `{"maxrss_bytes": 1, "rss": 2}`, kernel, `unknown field "rss"`},
		{"two documents", `{"maxrss_bytes": 1} {"maxrss_bytes": 2}`, kernel, "more than one document"},
		{"zero", `{"maxrss_bytes": 0}`, kernel, "maxrss_bytes 0 is not a size"},
		{"negative", `{"maxrss_bytes": -4}`, kernel, "maxrss_bytes -4 is not a size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := models.Usage{Rusage: models.Rusage{MaxRSSBytes: kernel}}
			err := applyReport(&u, []byte(tc.report))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if u.Rusage.MaxRSSBytes != tc.want {
				t.Errorf("maxrss_bytes %d, want %d", u.Rusage.MaxRSSBytes, tc.want)
			}
			if wantKernel := int64(0); tc.err == "" && u.KernelMaxRSSBytes != kernel || tc.err != "" && u.KernelMaxRSSBytes != wantKernel {
				t.Errorf("kernel_maxrss_bytes %d", u.KernelMaxRSSBytes)
			}
		})
	}
	u := models.Usage{Rusage: models.Rusage{MaxRSSBytes: kernel}}
	if err := applyReport(&u, nil); err != nil || u.Rusage.MaxRSSBytes != kernel || u.KernelMaxRSSBytes != 0 {
		t.Errorf("no report: %v, %+v", err, u)
	}
}
