package pipeline

import (
	"testing"

	"github.com/seshat-bench/seshat/lts"
)

// The line upload prints per store says what was written where, and, for
// OpenSearch, how many KPI documents of earlier uploads went because the
// runs no longer have those KPIs; credentials in the URL are never shown.
func TestDescribePut(t *testing.T) {
	t.Parallel()
	names := lts.IndexNames{Index: "seshat"}
	for _, tt := range []struct {
		url   string
		stats lts.PutStats
		want  string
	}{
		{"sqlite:lts.db", lts.PutStats{Payloads: 3, Created: 2, Replaced: 1}, "stored 3 payload(s) in sqlite:lts.db: 2 new, 1 replaced"},
		{"https://u:secret@search:9200", lts.PutStats{Payloads: 3, Created: 3, KPIDocuments: 15, Requests: 2},
			"stored 3 payload(s) in https://u:xxxxx@search:9200 index seshat: 3 new, 0 replaced; 15 KPI document(s) in index seshat-kpis; 2 request(s), 0 document(s) retried"},
		{"http://search:9200", lts.PutStats{Payloads: 3, Replaced: 3, KPIDocuments: 12, StaleKPIDocuments: 3, Requests: 3, Retries: 1},
			"stored 3 payload(s) in http://search:9200 index seshat: 0 new, 3 replaced; 12 KPI document(s) in index seshat-kpis (3 no longer computed removed); 3 request(s), 1 document(s) retried"},
	} {
		if got := describePut(uploadTarget{url: tt.url}, names, tt.stats); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.url, got, tt.want)
		}
	}
}
