package explorer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/workloads"
)

// TestStaleIndex: once the series index was read, a store that fails
// while it is read again keeps the previous index: the landing page and
// /api/series are served from it, saying why, until a read succeeds.
func TestStaleIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := &failingStore{Store: sqliteStore(t, fixture())}
	h, err := explorer.New(explorer.Options{Store: s, Workloads: explorer.Registered(workloads.Builtin()), MaxAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.fail.Store(true)
	if err := h.Preload(ctx); err == nil || !strings.Contains(err.Error(), "database is locked (injected)") {
		t.Fatalf("Preload with the store failing: %v, want its error", err)
	}
	for _, path := range []string{"/", "/api/series"} {
		code, body := get(t, srv, path)
		if code != http.StatusOK || !strings.Contains(body, "database is locked (injected)") || !strings.Contains(body, "64") {
			t.Errorf("GET %s with the store failing after a read: %d, want 200 with the series and the error:\n%s", path, code, body)
		}
	}
	var list explorer.SeriesList
	getJSON(t, srv, "/api/series", &list)
	if len(list.Series) != fixtureSeries || !strings.Contains(list.Stale, "showing the series as read at") {
		t.Errorf("/api/series with the store failing: %d series, stale %q", len(list.Series), list.Stale)
	}
	s.fail.Store(false)
	_ = h.Preload(ctx) // may join a read started while the store failed
	if err := h.Preload(ctx); err != nil {
		t.Fatalf("Preload once the store is back: %v", err)
	}
	if code, body := get(t, srv, "/"); code != http.StatusOK || strings.Contains(body, "injected") {
		t.Errorf("GET / once the store is back: %d, want no banner:\n%s", code, body)
	}
}

// TestNoIndexYet: a store that fails before any index was read is 503
// with its error, even when the index is refreshed in the background.
func TestNoIndexYet(t *testing.T) {
	t.Parallel()
	s := &failingStore{Store: sqliteStore(t, fixture())}
	s.fail.Store(true)
	srv := serve(t, s, explorer.Options{MaxAge: time.Hour})
	for _, path := range []string{"/", "/api/series"} {
		if code, body := get(t, srv, path); code != http.StatusServiceUnavailable || !strings.Contains(body, "database is locked (injected)") {
			t.Errorf("GET %s with no index read: %d, want 503 with the error:\n%s", path, code, body)
		}
	}
	s.fail.Store(false)
	if code, body := get(t, srv, "/"); code != http.StatusOK {
		t.Errorf("GET / once the store is back: %d %s", code, body)
	}
}
