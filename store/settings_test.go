package store

import "testing"

// TestFormatValue: the text a child sees in SESHAT_<KEY>, in {setting}
// substitutions and in slugs.
func TestFormatValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{"list as JSON", []any{"./pi", 3}, `["./pi",3]`},
		{"float without exponent noise", 1e-3, "0.001"},
		{"integral float", 1024.0, "1024"},
		{"int", 512, "512"},
		{"string as is", "float32", "float32"},
		{"bool", true, "true"},
		{"null as empty", nil, ""},
		{"map as JSON", map[string]any{"k": 1}, `{"k":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FormatValue(tt.v); got != tt.want {
				t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}
