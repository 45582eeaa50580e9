package openmetricstest

import (
	"strings"
	"testing"
)

// The checks the KPI tests rely on: the parser refuses what is not OpenMetrics.
func TestParseRefusesInvalidOpenMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, text, want string }{
		{"no EOF", "# TYPE a gauge\na 1\n", "EOF"},
		{"unit not a suffix", "# TYPE a gauge\n# UNIT a seconds\na 1\n# EOF\n", "unit"},
		{"bad value", "# TYPE a gauge\na x\n# EOF\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) error = %v, want one mentioning %q", tt.text, err, tt.want)
			}
		})
	}
	fams, err := Parse([]byte("# HELP a_seconds Time.\n# TYPE a_seconds gauge\n# UNIT a_seconds seconds\na_seconds{x=\"1\"} 2.5 1700000000.123\n# EOF\n"))
	if err != nil || len(fams) != 1 || fams[0].Unit != "seconds" || *fams[0].Samples[0].TimestampMs != 1700000000123 {
		t.Errorf("valid exposition: %v %+v", err, fams)
	}
}
