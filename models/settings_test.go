package models

import (
	"math"
	"math/rand"
	"testing"
)

// TestFormatValue: the text a child sees in SESHAT_<KEY>, in {setting}
// substitutions, in slugs and in KPI labels.
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
		{"large integral float, as JSON decodes it", 1048576.0, "1048576"},
		{"million", 1e6, "1000000"},
		{"small float", 1e-7, "0.0000001"},
		{"tiny float", 1e-8, "1e-08"},
		{"huge float", 1e21, "1e+21"},
		{"negative", -2.5, "-2.5"},
		{"float32 at its own precision", float32(0.1), "0.1"},
		{"int", 512, "512"},
		{"string as is", "float32", "float32"},
		{"bool", true, "true"},
		{"null as empty", nil, ""},
		{"map as JSON", map[string]any{"k": 1}, `{"k":1}`},
		{"JSON as written, no HTML escapes", []any{"sh", "-c", "a <in >&2 && b"}, `["sh","-c","a <in >&2 && b"]`},
		{"NaN", math.NaN(), "NaN"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FormatValue(tt.v); got != tt.want {
				t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}

func TestSortValuesIsATotalOrder(t *testing.T) {
	t.Parallel()
	values := []any{"b", 2, true, 1.5, "true", "a", math.NaN(), -1, nil, uint64(7), false, []any{1}, "2"}
	want := make([]any, len(values))
	copy(want, values)
	SortValues(want)
	rng := rand.New(rand.NewSource(1))
	for range 50 {
		got := make([]any, len(values))
		copy(got, values)
		rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		SortValues(got)
		if CanonicalValue(got) != CanonicalValue(want) {
			t.Fatalf("order depends on the input: %v vs %v", got, want)
		}
	}
	if _, ok := want[0].(int); !ok || want[0] != -1 {
		t.Errorf("numbers first, by value: %v", want)
	}
}

func TestCanonicalValue(t *testing.T) {
	t.Parallel()
	same := [][2]any{{512, 512.0}, {uint64(3), 3}, {map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2.0, "a": 1}}, {[]any{1, "x"}, []any{1.0, "x"}}}
	for _, p := range same {
		if !EqualValues(p[0], p[1]) {
			t.Errorf("%v and %v differ", p[0], p[1])
		}
	}
	differ := [][2]any{{512, "512"}, {true, "true"}, {nil, "null"}, {[]any{1}, 1}, {"a,b", []any{"a", "b"}}}
	for _, p := range differ {
		if EqualValues(p[0], p[1]) {
			t.Errorf("%#v and %#v are equal", p[0], p[1])
		}
	}
	// Identity separates "@repeat" values: repeats are not duplicates.
	if (Settings{"a": 1, "@repeat": 0}).Identity() == (Settings{"a": 1, "@repeat": 1}).Identity() {
		t.Error("identity ignores @repeat")
	}
}
