package explorer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/internal/fuzzing"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	_ "github.com/seshat-bench/seshat/lts/opensearch" // the http:// stores
	_ "github.com/seshat-bench/seshat/lts/sqlite"     // the sqlite: stores
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
	_ "github.com/seshat-bench/seshat/workloads/pi" // registers pi
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	fuzzing.SetDefaults()
	code := m.Run()
	browsertest.Shutdown()
	os.Exit(code)
}

// xss is a string a user may have put in a setting or a label value: every
// page must show it as text.
const xss = `<script>alert(1)</script>`

// Series of the fixture: matrix sizes 64, 128 and 256; the 256 series has
// xss in its dtype label.
const fixtureSeries = 3

// fixture is the payloads of the store the tests serve: 3 series × 4
// nightly builds × 2 runs, the last run of every series without a build
// (its own build), and one run whose note setting is xss. Everything is
// seeded: the same payloads, ids and hashes every time.
func fixture() []*models.Payload {
	ps := pitest.Payloads(fixtureSeries*9, ltstest.Options{Series: fixtureSeries, Samples: 10, Seed: 7})
	for i, p := range ps {
		series, n := i%fixtureSeries, i/fixtureSeries
		m := &p.Metadata
		if series == 2 {
			m.Labels["dtype"] = "float32" + xss
		}
		if n == 8 {
			continue // no build.json: the run is its own build
		}
		b := n / 2
		m.Build = &models.Build{ID: fmt.Sprintf("nightly-%02d", b+1), Commit: fmt.Sprintf("%07x%033d", 0xa1b2c3d+b, b),
			Ref: "main", CI: &models.CI{Engine: "github", RunID: fmt.Sprint(9000 + b), URL: fmt.Sprintf("https://ci.example.com/runs/%d", 9000+b)}}
		// A slower build: nightly-03 loses 20% of its rate.
		if b == 2 {
			for name, v := range p.KPIs {
				if name == "rate_gflops" {
					v.Value *= 0.8
					p.KPIs[name] = v
				}
			}
		}
	}
	ps[4].Metadata.Settings["note"] = xss
	return ps
}

// sqliteStore is a new SQLite store holding ps.
func sqliteStore(t testing.TB, ps []*models.Payload) lts.Store {
	t.Helper()
	s := ltstest.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "lts.db"), lts.StoreOptions{})
	if _, err := s.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	return s
}

// serve starts the explorer over s, with the options given, for one test.
func serve(t testing.TB, s lts.Store, o explorer.Options) *httptest.Server {
	t.Helper()
	o.Store = s
	if o.Workloads == nil {
		o.Workloads = explorer.Registered(workloads.Builtin())
	}
	h, err := explorer.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// get fetches a path of the server: status and body.
func get(t testing.TB, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// getJSON fetches an API path answering 200 and decodes it into v.
func getJSON(t testing.TB, srv *httptest.Server, path string, v any) string {
	t.Helper()
	code, body := get(t, srv, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return body
}

// seriesIDs are the ids of the fixture's series by matrix size.
func seriesIDs(t testing.TB, srv *httptest.Server) map[string]string {
	t.Helper()
	var list explorer.SeriesList
	getJSON(t, srv, "/api/series", &list)
	out := map[string]string{}
	for _, s := range list.Series {
		out[s.Labels["matrix_size"]] = s.ID
	}
	if len(out) != fixtureSeries {
		t.Fatalf("series %v, want %d", out, fixtureSeries)
	}
	return out
}

// failingStore is a store whose reads fail while fail is set: a database
// that went away under the server.
type failingStore struct {
	lts.Store
	fail atomic.Bool
}

var errGone = fmt.Errorf("database is locked (injected)")

func (s *failingStore) Records(ctx context.Context, q lts.Query) iter.Seq2[lts.Record, error] {
	if s.fail.Load() {
		return func(yield func(lts.Record, error) bool) { yield(lts.Record{}, errGone) }
	}
	return s.Store.Records(ctx, q)
}

func (s *failingStore) Payloads(ctx context.Context, q lts.Query) iter.Seq2[*models.Payload, error] {
	if s.fail.Load() {
		return func(yield func(*models.Payload, error) bool) { yield(nil, errGone) }
	}
	return s.Store.Payloads(ctx, q)
}

// indented is an API answer indented for its golden file (two spaces a
// level, a newline at the end), after checking that the API wrote it
// compact, on one line.
func indented(t testing.TB, body string) []byte {
	t.Helper()
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, []byte(body)); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	if compact.String()+"\n" != body {
		t.Errorf("the API wrote indented or spaced JSON, want it compact with a newline at the end:\n%s", body)
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// storePath matches the store's name in the JSON: a temporary path.
var storePath = regexp.MustCompile(`"store": "sqlite:[^"]*"`)
