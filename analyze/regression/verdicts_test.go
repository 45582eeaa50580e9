package regression

import (
	"testing"

	"github.com/seshat-bench/seshat/lts"
)

// TestTriageAcks: an alert triaged acknowledged or invalid acknowledges
// the same workload, series, KPI and build, and nothing else; fixed or
// untriaged alerts acknowledge nothing.
func TestTriageAcks(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"matrix_size": "64"}
	alert := func(state, reason string) lts.Verdict {
		v := lts.Verdict{ID: "a-" + state, Workload: "pi", Labels: labels, KPI: "rate_gflops", Status: "regression", Build: "ci-2"}
		if state != "" {
			v.Triage = &lts.Triage{VerdictID: v.ID, State: state, Reason: reason}
		}
		return v
	}
	acks := TriageAcks([]lts.Verdict{alert(lts.TriageAcknowledged, "known"), alert(lts.TriageInvalid, ""), alert(lts.TriageFixed, "done"), alert("", "")})
	if len(acks) != 2 || acks[0].Reason != "acknowledged in triage: known" || acks[1].Reason != "invalid (noise) in triage" || !acks[0].Triage {
		t.Fatalf("acks %+v: want the acknowledged and the invalid alert's", acks)
	}
	same := &Entry{Workload: "pi", Labels: map[string]string{"matrix_size": "64"}, Builds: []string{"ci-2"}}
	for _, tt := range []struct {
		name  string
		entry *Entry
		kpi   string
		want  bool
	}{
		{"same series, KPI and build", same, "rate_gflops", true},
		{"another KPI", same, "elapsed_ms", false},
		{"another build", &Entry{Workload: "pi", Labels: labels, Builds: []string{"ci-3"}}, "rate_gflops", false},
		{"another series", &Entry{Workload: "pi", Labels: map[string]string{"matrix_size": "128"}, Builds: []string{"ci-2"}}, "rate_gflops", false},
		{"more labels", &Entry{Workload: "pi", Labels: map[string]string{"matrix_size": "64", "dtype": "f32"}, Builds: []string{"ci-2"}}, "rate_gflops", false},
		{"another workload", &Entry{Workload: "other", Labels: labels, Builds: []string{"ci-2"}}, "rate_gflops", false},
	} {
		if got := acks[0].Matches(tt.entry, tt.kpi); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}
