package download

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// The same tree served by real servers, started by the tests: Python's
// http.server and nginx (Debian's nginx-light) with autoindex. Names with
// spaces, a percent sign and non-ASCII letters come back as they are; a
// file named with a backslash is refused (on Linux it is one name; as a
// path it would be two elsewhere).
var serverTree = map[string]string{
	"build.json":                  `{"id": "nightly-7"}` + "\n",
	"expe/settings.expe.yaml":     "workload: fake\n",
	"expe/000__a/settings.yaml":   "size: 1\n",
	"expe/000__a/pi.json":         `{"rate": 1}` + "\n",
	"expe/000__a/.uuid":           "5f0c2a4e-8d7b-4c53-9a55-0d7f1f3b2c11\n",
	"expe/000__a/trace.bin":       strings.Repeat("t", 70000),
	"expe/000__a/exit_code":       "0\n",
	"expe/001__b c/settings.yaml": "size: 2\n",
	"expe/001__b c/pi.json":       `{"rate": 2}` + "\n",
	"expe/001__b c/exit_code":     "0\n",
	"logs/100% done é.log":        "done\n",
}

func TestRealServers(t *testing.T) {
	t.Parallel()
	for _, srv := range []struct {
		name  string
		start func(t *testing.T, dir string) string
	}{
		{"python http.server", startPython},
		{"nginx autoindex", startNginx},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			src := t.TempDir()
			writeTree(t, filepath.Join(src, "run"), serverTree)
			writeTree(t, filepath.Join(src, "run"), map[string]string{`odd\name`: "x\n"})
			// Without its slash: the server redirects to the directory.
			url := srv.start(t, src) + "/run"

			dir := t.TempDir()
			r, err := Run(context.Background(), Options{URL: url, Dir: dir, Mode: All})
			if err != nil {
				t.Fatal(err)
			}
			// All of it, but nginx's autoindex hides the dot file, which no
			// workload declares here.
			wantAll := maps.Clone(serverTree)
			if r.Format == "autoindex" {
				delete(wantAll, "expe/000__a/.uuid")
			}
			if got := readTree(t, dir); !reflect.DeepEqual(got, wantAll) {
				t.Errorf("fetched %q, want %q", keys(got), keys(wantAll))
			}
			if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Err.Error(), "a backslash in the name") || len(r.Missing) != 0 {
				t.Errorf("problems %v, missing %v; want the backslash refused, nothing missing", r.Problems, r.Missing)
			}

			dir = t.TempDir()
			r, err = Run(context.Background(), Options{URL: url, Dir: dir, Mode: Important, Declared: uuidFiles})
			if err != nil {
				t.Fatal(err)
			}
			// The .uuid of the first run is asked for by name where the
			// listing hides it; the second run has none, and that is fine.
			want := []string{"build.json", "expe/000__a/.uuid", "expe/000__a/exit_code", "expe/000__a/pi.json", "expe/000__a/settings.yaml",
				"expe/001__b c/exit_code", "expe/001__b c/pi.json", "expe/001__b c/settings.yaml", "expe/settings.expe.yaml"}
			if got := keys(readTree(t, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("important: fetched %q, want %q", got, want)
			}
			if r.Selected != len(want) || len(r.Missing) != 0 {
				t.Errorf("important: %d selected, missing %v; want %d, none", r.Selected, r.Missing, len(want))
			}
			// A file changed locally is fetched again when the listing
			// gives sizes (nginx), kept when it does not (http.server).
			if err := os.WriteFile(filepath.Join(dir, "expe/000__a/pi.json"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err = Run(context.Background(), Options{URL: url, Dir: dir, Mode: PreferCache, Declared: uuidFiles})
			if err != nil {
				t.Fatal(err)
			}
			wantFetched := 0
			if r.Format == "autoindex" {
				wantFetched = 1
			}
			if r.Fetched != wantFetched || r.Kept != len(want)-wantFetched || len(r.Missing) != 0 {
				t.Errorf("prefer-cache (%s listing): fetched %d, kept %d; want %d, %d", r.Format, r.Fetched, r.Kept, wantFetched, len(want)-wantFetched)
			}
		})
	}
}

// uuidFiles declares what fakeFiles does, and .uuid, a dot file that
// nginx's autoindex does not list.
func uuidFiles(dir string) (FileSet, error) {
	set, err := fakeFiles(dir)
	return func(s models.Settings) ([]Pattern, error) {
		ps, err := set(s)
		return append(ps, Pattern{Name: ".uuid"}), err
	}, err
}

// freePort returns a port of 127.0.0.1 free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer starts cmd, stopped at the end of the test, and waits until
// base answers.
func startServer(t *testing.T, cmd *exec.Cmd, base string, logFile string) string {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for try := 0; ; try++ {
		resp, err := http.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			return base
		}
		if try == 100 {
			log, _ := os.ReadFile(logFile)
			t.Fatalf("%s did not answer in 10 s: %v\n%s", cmd.Path, err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startPython(t *testing.T, dir string) string {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is absent: the test against Python's http.server does not run", python)
	}
	port := freePort(t)
	logFile := filepath.Join(t.TempDir(), "http.server.log")
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd := exec.Command(python, "-m", "http.server", "--bind", "127.0.0.1", fmt.Sprint(port))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	return startServer(t, cmd, fmt.Sprintf("http://127.0.0.1:%d", port), logFile)
}

func startNginx(t *testing.T, dir string) string {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if nginx, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			t.Skip("nginx is absent (Debian's nginx-light provides it): the test against nginx's autoindex does not run")
		}
	}
	prefix := t.TempDir()
	port := freePort(t)
	// One process, as the user running the test (master_process off), with
	// every path it writes inside prefix.
	conf := fmt.Sprintf(`master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  types { text/plain txt log; application/json json; }
  server {
    listen 127.0.0.1:%[2]d;
    root %[3]s;
    autoindex on;
  }
}
`, prefix, port, dir)
	if err := os.WriteFile(filepath.Join(prefix, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", prefix, "-c", filepath.Join(prefix, "nginx.conf"), "-g", "daemon off;")
	return startServer(t, cmd, fmt.Sprintf("http://127.0.0.1:%d", port), filepath.Join(prefix, "error.log"))
}
