package opensearch_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
)

// TestOpenSearchIntegration runs the store (payloads, and verdicts paged 4
// a search) against a real OpenSearch named by SESHAT_TEST_OPENSEARCH_URL
// (credentials in the URL, or in SESHAT_OPENSEARCH_USERNAME and
// SESHAT_OPENSEARCH_PASSWORD; SESHAT_TEST_OPENSEARCH_CA_CERT names a CA
// file). It uses indices and
// templates of its own, deleted at the end. Skipped when the URL is unset.
func TestOpenSearchIntegration(t *testing.T) {
	base := os.Getenv("SESHAT_TEST_OPENSEARCH_URL")
	if base == "" {
		t.Skip("SESHAT_TEST_OPENSEARCH_URL is not set")
	}
	prefix := fmt.Sprintf("seshat-it-%d-", time.Now().UnixNano())
	opts := lts.StoreOptions{
		Index:      lts.IndexNames{Prefix: prefix},
		Workloads:  []lts.Workload{toyWorkload()},
		Username:   os.Getenv("SESHAT_OPENSEARCH_USERNAME"),
		Password:   lts.Secret(os.Getenv("SESHAT_OPENSEARCH_PASSWORD")),
		CACertFile: os.Getenv("SESHAT_TEST_OPENSEARCH_CA_CERT"),
		PageSize:   50,
	}
	ctx := context.Background()
	s, err := lts.Open(ctx, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Cleanup(func() { deleteTestIndices(t, base, opts, prefix) })

	ps := ltstest.Payloads(300, ltstest.Options{Series: 3, TieEvery: 5, Seed: 21})
	stats, err := s.Put(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Created != 300 || stats.KPIDocuments != 1500 {
		t.Errorf("first upload: %+v", stats)
	}
	if stats, err = s.Put(ctx, ps); err != nil || stats.Replaced != 300 {
		t.Errorf("re-upload: %+v, %v", stats, err)
	}
	if n, err := s.Count(ctx, lts.Query{}); err != nil || n != 300 {
		t.Errorf("Count = %d, %v; want 300 after two uploads", n, err)
	}
	q := lts.Query{Labels: models.Filter{"size": {ltstest.SizeLabel(1)}}, Since: ps[30].Metadata.Start}
	got := ltstest.Collect(t, s, q)
	ltstest.CheckOrdered(t, got)
	want := 0
	for i, p := range ps {
		if i%3 == 1 && !p.Metadata.Start.Before(ps[30].Metadata.Start) {
			want++
		}
	}
	if len(got) != want {
		t.Errorf("series since payload 30: %d payloads, want %d", len(got), want)
	}
	if all := ltstest.Collect(t, s, lts.Query{}); len(all) != 300 {
		t.Errorf("%d payloads, want 300", len(all))
	}
	// Verdicts past a search's window, as the test server pages them.
	checkVerdictPaging(t, ctx, s, nil)
}

// deleteTestIndices removes what the integration test created.
func deleteTestIndices(t *testing.T, base string, opts lts.StoreOptions, prefix string) {
	client := &http.Client{Timeout: 30 * time.Second}
	if opts.CACertFile != "" {
		pem, err := os.ReadFile(opts.CACertFile)
		if err != nil {
			t.Log(err)
			return
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	}
	for _, path := range []string{"/" + prefix + "*", "/_index_template/" + prefix + "*"} {
		req, err := http.NewRequest(http.MethodDelete, strings.TrimRight(base, "/")+path, nil)
		if err != nil {
			t.Log(err)
			return
		}
		if opts.Username != "" {
			req.SetBasicAuth(opts.Username, opts.Password.Reveal())
		}
		if res, err := client.Do(req); err != nil {
			t.Logf("cleanup %s: %v", path, err)
		} else {
			_ = res.Body.Close()
		}
	}
}
