package indicator

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestReadsCoversDecode keeps Reads in step with Decode: a key Decode reads
// that Reads does not list would be refused by `seshat run` as unknown. Each
// key Decode could read (every quoted name its source passes to the
// settings reader) is set to a value no decoder accepts, PI by PI: Decode
// must fail on exactly the keys Reads lists for that PI.
func TestReadsCoversDecode(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("params.go")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`r\.\w+\("(\w+)"`).FindAllStringSubmatch(string(src), -1) {
		keys = append(keys, m[1])
	}
	for _, f := range []string{"batch", "input_width", "input_channels", "filter_width", "output_channels", "strides", "input_height", "filter_height"} {
		keys = append(keys, f) // decodeConv's table
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	valid := map[string]map[string]any{
		"matmul": {"pi": "matmul", "backend": "gonum", "repetitions": "auto"},
		"conv1d": {"pi": "conv1d", "backend": "gonum", "repetitions": "auto"},
		"conv2d": {"pi": "conv2d", "backend": "gonum", "repetitions": "auto"},
		"import": {"pi": "import", "backend": "numpy", "repetitions": "auto"},
		"exec":   {"pi": "exec", "command": []any{"echo", "{n}"}, "n": 1},
	}
	for pi, base := range valid {
		if _, err := Decode(base); err != nil {
			t.Fatalf("%s: %v", pi, err)
		}
		reads := Reads(base)
		for _, k := range keys {
			if k == "pi" || k == "command" && pi == "exec" {
				continue
			}
			s := map[string]any{}
			for bk, bv := range base {
				s[bk] = bv
			}
			s[k] = map[string]any{"not": "a value"}
			_, err := Decode(s)
			if read := err != nil; read != slices.Contains(reads, k) {
				t.Errorf("%s: Decode reads %s: %v; Reads lists it: %v (%v)", pi, k, read, !read, err)
			}
		}
		for _, k := range reads {
			if !slices.Contains(SettingNames(), k) && !(pi == "exec" && k == "n") {
				t.Errorf("%s reads %s, missing from SettingNames", pi, k)
			}
		}
	}
}

func TestReadsExec(t *testing.T) {
	t.Parallel()
	s := map[string]any{"pi": "exec", "size": 1, "n": 2, "model_name": "x", "other": 3,
		"command": []any{"sh", "-c", "run --n {n} --size ${SESHAT_SIZE} $SESHAT_MODEL_NAME $SESHAT_OTHER_THING"}}
	got := Reads(s)
	slices.Sort(got)
	want := []string{"command", "device", "framework_version", "model_name", "n", "pi", "python", "size"}
	if !slices.Equal(got, want) {
		t.Errorf("Reads = %v, want %v", got, want)
	}
}
