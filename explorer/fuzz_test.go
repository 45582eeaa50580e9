package explorer_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/explorer"
)

// FuzzQuery sends any path and query to the explorer: it answers 200, 400
// or 404 (405 for a method it does not serve), never fails or echoes
// markup unescaped. Seeds in testdata/fuzz/FuzzQuery.
func FuzzQuery(f *testing.F) {
	srv := serve(f, sqliteStore(f, fixture()), explorer.Options{})
	h := srv.Config.Handler
	for _, seed := range []string{"/?matrix_size=64", "/api/series?dtype=float32&dtype=x", "/api/history?series=e80b41eeddd8e9de&kpi=rate_gflops",
		"/builds/nightly-01?series=x", "/series/%3Cb%3E", "/?%3Cscript%3E=1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t\r\n#") {
			return // not a request target a client sends
		}
		req, err := http.NewRequest(http.MethodGet, "http://explorer"+target, nil)
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect:
		default:
			t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "<script>") {
			t.Fatalf("GET %s: markup in the answer:\n%s", target, w.Body)
		}
	})
}
