package suggest_test

import (
	"testing"

	"github.com/seshat-bench/seshat/internal/suggest"
)

func TestClosest(t *testing.T) {
	t.Parallel()
	names := []string{"build-id", "benchmark", "results-dir", "repetitions", "results_dir", "regression_analyses"}
	for _, tt := range []struct{ typed, want string }{
		{"buidl-id", "build-id"},      // a swap is one edit
		{"repetitons", "repetitions"}, // a letter left out
		{"result_dir", "results_dir"}, // the nearest, not the first near one
		{"regresion", ""},             // too far from regression_analyses
		{"x", ""},                     // nothing near
		{"benchmark", ""},             // itself is no suggestion
	} {
		if got := suggest.Closest(tt.typed, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
