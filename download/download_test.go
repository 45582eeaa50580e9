package download

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/seshat-bench/seshat/internal/golden"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

var update = flag.Bool("update", false, "rewrite the golden summaries in testdata/golden")

// writeTree writes files (slash-separated path -> content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
}

// readTree reads every file under dir back (slash-separated path ->
// content).
func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return got
}

// runTree is two runs of a workload "fake" that declares pi.json and
// {logs}/*.log files below a dirname glob, with files it does not
// declare, a parent settings file and a build.json.
var runTree = map[string]string{
	"build.json":                          `{"id": "nightly-7"}` + "\n",
	"expe/settings.expe.yaml":             "workload: fake\n",
	"expe/000__a/settings.yaml":           "size: 1\n",
	"expe/000__a/pi.json":                 `{"rate": 1}` + "\n",
	"expe/000__a/logs-1/run.log":          "log of a\n",
	"expe/000__a/trace.bin":               strings.Repeat("t", 5000),
	"expe/000__a/exit_code":               "0\n",
	"expe/001__b/settings.yaml":           "size: 2\n",
	"expe/001__b/pi.json":                 `{"rate": 2}` + "\n",
	"expe/001__b/logs-1/run.log":          "log of b\n",
	"expe/001__b/trace.bin":               strings.Repeat("u", 5000),
	"expe/001__b/exit_code":               "0\n",
	"notes/README.txt":                    "not a run\n",
	"expe/002__other/settings.yaml":       "workload: unknown\n",
	"expe/002__other/exit_code":           "1\n",
	"expe/002__other/result.json":         "{}\n",
	"expe/002__other/deeper/settings.yml": "ignored: a root inside a root\n",
}

// fakeFiles answers Options.Declared: workload "fake" declares pi.json and
// the logs below {logs} (logs-*); any other workload is unknown and gets
// result.json.
func fakeFiles(string) (FileSet, error) {
	return func(s models.Settings) ([]Pattern, error) {
		if s["workload"] == "fake" {
			return []Pattern{{Name: "pi.json"}, {Dir: "logs-*", Name: "run.log"}}, nil
		}
		return []Pattern{{Name: "result.json"}}, fmt.Errorf("unknown workload %v: fetching the files every workload declares", s["workload"])
	}, nil
}

// fileServer serves dir as net/http.FileServer does and counts the
// requests for files (not listings).
type fileServer struct {
	*httptest.Server
	mu    sync.Mutex
	files []string
}

func serveDir(t testing.TB, dir string) *fileServer {
	t.Helper()
	s := &fileServer{}
	fsrv := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			s.mu.Lock()
			s.files = append(s.files, r.URL.Path)
			s.mu.Unlock()
		}
		fsrv.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requested returns the files requested since the last call, in the order
// the requests came.
func (s *fileServer) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.files)
	s.files = nil
	return out
}

func run(t testing.TB, o Options) *Report {
	t.Helper()
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// Each mode fetches what it promises: all every file; important the files
// every run has and those its workload declares (settings merged from the
// parent directory, dirname globs, unknown workloads warned about);
// prefer-cache the same minus what is already there, so that a second
// call transfers nothing; cache-only nothing, naming what is missing.
func TestModes(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, filepath.Join(src, "run"), runTree)
	srv := serveDir(t, src)
	url := srv.URL + "/run/"

	t.Run("all", func(t *testing.T) {
		dir := t.TempDir()
		r := run(t, Options{URL: url, Dir: dir, Mode: All, Declared: fakeFiles})
		if got := readTree(t, dir); !reflect.DeepEqual(got, runTree) {
			t.Errorf("fetched %q, want %q", keys(got), keys(runTree))
		}
		if !r.Complete() || r.Fetched != len(runTree) || r.Selected != len(runTree) || r.Roots != 3 || r.Format != "go" {
			t.Errorf("report %+v", r)
		}
	})

	important := []string{
		"build.json",
		"expe/000__a/exit_code", "expe/000__a/logs-1/run.log", "expe/000__a/pi.json", "expe/000__a/settings.yaml",
		"expe/001__b/exit_code", "expe/001__b/logs-1/run.log", "expe/001__b/pi.json", "expe/001__b/settings.yaml",
		"expe/002__other/deeper/settings.yml", "expe/002__other/exit_code", "expe/002__other/result.json", "expe/002__other/settings.yaml",
		"expe/settings.expe.yaml",
	}
	dir := t.TempDir()
	t.Run("important", func(t *testing.T) {
		srv.requested()
		r := run(t, Options{URL: url, Dir: dir, Mode: Important, Declared: fakeFiles})
		if got := keys(readTree(t, dir)); !reflect.DeepEqual(got, important) {
			t.Errorf("fetched\n%q\nwant\n%q", got, important)
		}
		// exit_code files come last: a run is complete once its is there.
		var exitAt []int
		for i, p := range srv.requested() {
			if strings.HasSuffix(p, "/exit_code") {
				exitAt = append(exitAt, i)
			}
		}
		if !reflect.DeepEqual(exitAt, []int{11, 12, 13}) {
			t.Errorf("exit_code files requested at %v of 14, want the last three", exitAt)
		}
		want := []Warning{{Text: "unknown workload unknown: fetching the files every workload declares", Roots: []string{"expe/002__other"}}}
		if !r.Complete() || r.Fetched != len(important) || r.Listed != len(runTree) || !reflect.DeepEqual(r.Warnings, want) {
			t.Errorf("report %+v", r)
		}
	})
	t.Run("prefer-cache transfers nothing the second time", func(t *testing.T) {
		srv.requested()
		r := run(t, Options{URL: url, Dir: dir, Mode: PreferCache, Declared: fakeFiles})
		if got := srv.requested(); len(got) != 0 {
			t.Errorf("second call requested %q, want no file", got)
		}
		if !r.Complete() || r.Fetched != 0 || r.Kept != len(important) {
			t.Errorf("report %+v", r)
		}
		// A file lost since is fetched again, and only it.
		if err := os.Remove(filepath.Join(dir, "expe/001__b/pi.json")); err != nil {
			t.Fatal(err)
		}
		r = run(t, Options{URL: url, Dir: dir, Mode: PreferCache, Declared: fakeFiles})
		if got := srv.requested(); !reflect.DeepEqual(got, []string{"/run/expe/001__b/pi.json"}) || r.Fetched != 1 {
			t.Errorf("after a loss: requested %q, fetched %d; want only the lost file", got, r.Fetched)
		}
	})
	t.Run("cache-only", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, "expe/000__a/pi.json")); err != nil {
			t.Fatal(err)
		}
		srv.requested()
		r := run(t, Options{URL: url, Dir: dir, Mode: CacheOnly, Declared: fakeFiles})
		if got := srv.requested(); len(got) != 0 {
			t.Errorf("cache-only requested %q", got)
		}
		if r.Complete() || len(r.Missing) != 1 || r.Missing[0].String() != "expe/000__a/pi.json: absent" || r.Kept != len(important)-1 {
			t.Errorf("report %+v", r)
		}
		var b bytes.Buffer
		if err := r.WriteSummary(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "golden", "cache-only.txt"), []byte(strings.ReplaceAll(strings.ReplaceAll(b.String(), srv.URL, "http://SERVER"), dir, "DIR")), *update)
	})
}

// The bad input of a download, in one tree: each failure is named with
// its URL and reason, and the rest is fetched.
func TestBadInput(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "from another host")
	}))
	defer other.Close()
	page := func(entries ...string) string {
		var b strings.Builder
		b.WriteString("<html>\n<head><title>Index of /run/</title></head>\n<body>\n<h1>Index of /run/</h1><hr><pre><a href=\"../\">../</a>\n")
		for _, e := range entries {
			b.WriteString(e + "\n")
		}
		b.WriteString("</pre><hr></body>\n</html>\n")
		return b.String()
	}
	stallDone := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/run/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/run/":
			fmt.Fprint(w, page(
				`<a href="good.txt">good.txt</a>          26-Nov-2026 17:52     5`,
				`<a href="gone.txt">gone.txt</a>          26-Nov-2026 17:52     5`,
				`<a href="moved.txt">moved.txt</a>        26-Nov-2026 17:52     5`,
				`<a href="big.bin">big.bin</a>            26-Nov-2026 17:52     5000`,
				`<a href="unsized.bin">unsized.bin</a>    26-Nov-2026 17:52     5K`,
				`<a href="stall.txt">stall.txt</a>        26-Nov-2026 17:52     10`,
				`<a href="../../etc/passwd">passwd</a>    26-Nov-2026 17:52     1`,
				`<a href="/etc/shadow">shadow</a>         26-Nov-2026 17:52     1`,
				`<a href="a%5Cb">a\b</a>                  26-Nov-2026 17:52     1`,
				`<a href="prow/">prow/</a>                26-Nov-2026 17:52     -`,
				`<a href="lost/">lost/</a>                26-Nov-2026 17:52     -`,
				`<a href="json/">json/</a>                26-Nov-2026 17:52     -`,
				`<a href="away/">away/</a>                26-Nov-2026 17:52     -`,
			))
		case "/run/good.txt":
			fmt.Fprint(w, "good\n")
		case "/run/moved.txt":
			http.Redirect(w, r, other.URL+"/moved.txt", http.StatusFound)
		case "/run/big.bin":
			t.Error("big.bin requested although the listing says it is too large")
		case "/run/unsized.bin":
			fmt.Fprint(w, strings.Repeat("x", 5000))
		case "/run/stall.txt":
			w.Header().Set("Content-Length", "10")
			fmt.Fprint(w, "abc")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-stallDone:
			}
		case "/run/prow/":
			fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Prow Status</title></head><body><a href="x">x</a></body></html>`)
		case "/run/json/":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"files": []}`)
		case "/run/away/":
			http.Redirect(w, r, other.URL+"/away/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(stallDone)

	parent := t.TempDir()
	dir := filepath.Join(parent, "results")
	r, err := Run(context.Background(), Options{URL: srv.URL + "/run/", Dir: dir, Mode: All, MaxFileSize: 1000, StallTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readTree(t, parent), map[string]string{"results/good.txt": "good\n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files written %q, want only results/good.txt", keys(got))
	}
	if r.Complete() || r.Fetched != 1 {
		t.Errorf("complete %v, fetched %d; want incomplete, 1", r.Complete(), r.Fetched)
	}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(b.String(), srv.URL, "http://SERVER"), other.URL, "http://OTHER"), dir, "DIR")
	golden.Check(t, filepath.Join("testdata", "golden", "bad-input.txt"), []byte(out), *update)
}

// The top of the tree decides everything: when it cannot be listed the
// download stops with an error naming it.
func TestTopErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file.txt":
			fmt.Fprint(w, "a file\n")
		case "/page/":
			fmt.Fprint(w, "<html><head><title>Jobs</title></head></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct{ url, want string }{
		{srv.URL + "/missing/", srv.URL + "/missing/: 404 Not Found"},
		{srv.URL + "/file.txt", srv.URL + "/file.txt: not a directory listing (Content-Type text/plain)"},
		{srv.URL + "/page/", srv.URL + `/page/: not a directory listing (its title is "Jobs")`},
		{"ftp://host/run/", "ftp://host/run/: not an http:// or https:// URL"},
		{"http://user:secret@127.0.0.1:1/run/", ""},
	} {
		_, err := Run(context.Background(), Options{URL: tc.url, Dir: t.TempDir(), Mode: All})
		if tc.want == "" {
			// Credentials are fine, and never printed: this one fails to
			// connect, naming the URL without its password.
			if err == nil || strings.Contains(err.Error(), "secret") || !strings.HasPrefix(err.Error(), "http://user:xxxxx@127.0.0.1:1/run/: ") {
				t.Errorf("%s: %v", tc.url, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.url, err, tc.want)
		}
	}
}

// A symlink inside the results directory leading out of it is not
// followed: the file it would have received is missing, nothing lands
// outside.
func TestNeverWritesOutside(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, filepath.Join(src, "run"), map[string]string{"expe/a/pi.json": "{}\n", "ok.txt": "ok\n"})
	srv := serveDir(t, src)
	outside, dir := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "expe")); err != nil {
		t.Fatal(err)
	}
	r := run(t, Options{URL: srv.URL + "/run/", Dir: dir, Mode: All})
	if got := readTree(t, outside); len(got) != 0 {
		t.Errorf("written outside the results directory: %q", keys(got))
	}
	if len(r.Missing) != 1 || r.Missing[0].Path != "expe/a/pi.json" || r.Missing[0].Err.Error() != "path escapes from parent" || r.Fetched != 1 {
		t.Errorf("missing %v, fetched %d; want expe/a/pi.json missing, ok.txt fetched", r.Missing, r.Fetched)
	}
}

// An interrupted download leaves whole files only (each is renamed into
// place once complete) and no run complete without its files (exit_code
// last); prefer-cache then fetches the rest and nothing twice.
func TestResume(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, filepath.Join(src, "run"), runTree)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	fsrv := http.FileServer(http.Dir(src))
	var mu sync.Mutex
	var requested []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			mu.Lock()
			requested = append(requested, r.URL.Path)
			mu.Unlock()
		}
		if r.URL.Path == "/run/expe/001__b/trace.bin" {
			// Half a file, then the user presses ^C.
			w.Header().Set("Content-Length", "5000")
			fmt.Fprint(w, strings.Repeat("u", 2500))
			w.(http.Flusher).Flush()
			once.Do(cancel)
			<-r.Context().Done()
			return
		}
		fsrv.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	_, err := Run(ctx, Options{URL: srv.URL + "/run/", Dir: dir, Mode: All, Jobs: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	got := readTree(t, dir)
	for name, content := range got {
		if runTree[name] != content {
			t.Errorf("%s: %d bytes left, not the whole file (%d)", name, len(content), len(runTree[name]))
		}
		if strings.HasSuffix(name, "exit_code") {
			t.Errorf("%s fetched before the other files", name)
		}
	}
	mu.Lock()
	first := len(requested)
	requested = nil
	mu.Unlock()
	r := run(t, Options{URL: srv.URL + "/run/", Dir: dir, Mode: PreferCache, Declared: fakeFiles})
	mu.Lock()
	defer mu.Unlock()
	for _, p := range requested {
		if _, had := got[strings.TrimPrefix(p, "/run/")]; had {
			t.Errorf("%s fetched again", p)
		}
	}
	if !r.Complete() || first == 0 || len(requested) == 0 {
		t.Errorf("resumed: %+v after %d requests, %d requests", r, first, len(requested))
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	got := Patterns(fakeParser{})
	want := []Pattern{{Name: "pi.json"}, {Dir: "sub", Name: "b.json"}, {Dir: "artifacts-*/logs", Name: "run.log"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Patterns = %q, want %q", got, want)
	}
	for rel, ok := range map[string]bool{
		"pi.json": true, "sub/b.json": true, "artifacts-3/logs/run.log": true,
		"x/pi.json": false, "artifacts-3/run.log": false, "artifacts-3/logs/other.log": false,
	} {
		if match(got, rel) != ok {
			t.Errorf("match(%q) = %v", rel, !ok)
		}
	}
}

// TestProgressLine: the line shown while fetching, on a terminal and off.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := &progress{terminal: true}
	p.listed(3, 40)
	if got := p.line(79); got != "listing: 3 directories, 40 files" {
		t.Errorf("listing line %q", got)
	}
	p.plan(20014)
	for range 9120 {
		p.fetched(512)
	}
	p.failed()
	p.failed()
	want := "[========>          ] 9,122/20,014 files  4.5 MiB  (2 missing)"
	if got := p.line(79); got != want {
		t.Errorf("terminal line\n got %q\nwant %q", got, want)
	}
	p.terminal = false
	if got := p.line(79); got != want[len("[========>          ] "):] {
		t.Errorf("plain line %q", got)
	}
}

// fakeParser declares files as a workload does, one below a dirname.
type fakeParser struct{}

func (fakeParser) Name() string          { return "fake" }
func (fakeParser) ParserVersion() string { return "1" }
func (fakeParser) ArtifactDirnames() map[string]string {
	return map[string]string{"logs": "artifacts-*/logs"}
}
func (fakeParser) ImportantFiles() []string {
	return []string{"pi.json", "sub/b.json", "{logs}/run.log", "{undeclared}/x"}
}
func (fakeParser) ParseOnce(*store.ParseContext) (any, error)  { return nil, nil }
func (fakeParser) NewResult() any                              { return nil }
func (fakeParser) ParseAlways(*store.AlwaysContext, any) error { return nil }

// An S3 bucket listed page after page (continuation token), objects
// fetched by key, path-style; keys that would leave the results directory
// are refused, folder markers skipped.
func TestS3(t *testing.T) {
	t.Parallel()
	const token = "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="
	var mu sync.Mutex
	var listings []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/seshat-ci" || r.URL.Path == "/seshat-ci/" {
			q := r.URL.Query()
			mu.Lock()
			listings = append(listings, r.URL.RawQuery)
			mu.Unlock()
			page := ""
			switch {
			case q.Get("prefix") != "nightly/1861/":
				http.Error(w, "unexpected listing request "+r.URL.RawQuery, http.StatusBadRequest)
				return
			case q.Get("continuation-token") == "":
				page = "list-1.xml"
			case q.Get("continuation-token") == token:
				page = "list-2.xml"
			default:
				http.Error(w, "bad token", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/xml")
			http.ServeFile(w, r, filepath.Join("testdata", "s3", page))
			return
		}
		key := strings.TrimPrefix(r.URL.Path, "/seshat-ci/")
		http.ServeFile(w, r, filepath.Join("testdata", "s3", "objects", filepath.FromSlash(key)))
	}))
	defer srv.Close()
	want := readTree(t, filepath.Join("testdata", "s3", "objects", "nightly", "1861"))

	dir := t.TempDir()
	r := run(t, Options{URL: srv.URL + "/seshat-ci?list-type=2&prefix=nightly/1861/", Dir: dir, Mode: All})
	if got := readTree(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("fetched %q, want %q", keys(got), keys(want))
	}
	if r.Format != "s3" || r.Dirs != 2 || r.Fetched != len(want) || len(r.Missing) != 0 || len(r.Problems) != 2 {
		t.Errorf("report %+v", r)
	}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "s3.txt"), []byte(strings.ReplaceAll(strings.ReplaceAll(b.String(), srv.URL, "http://SERVER"), dir, "DIR")), *update)

	// Without list-type=2 a bucket answers in the first version's form,
	// which reads the same (here the second's, paged by token all the same).
	mu.Lock()
	listings = nil
	mu.Unlock()
	dir = t.TempDir()
	r = run(t, Options{URL: srv.URL + "/seshat-ci/?prefix=nightly/1861/", Dir: dir, Mode: Important, Declared: func(string) (FileSet, error) {
		return func(models.Settings) ([]Pattern, error) { return []Pattern{{Name: "pi.json"}}, nil }, nil
	}})
	wantImportant := []string{"expe/000__a/exit_code", "expe/000__a/pi.json", "expe/000__a/settings.yaml", "expe/001__b/exit_code", "expe/001__b/settings.yaml"}
	if got := keys(readTree(t, dir)); !reflect.DeepEqual(got, wantImportant) || r.Roots != 2 {
		t.Errorf("important: fetched %q in %d roots, want %q in 2", got, r.Roots, wantImportant)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(listings) != 2 {
		t.Errorf("listing requests %q: want two pages", listings)
	}
}
