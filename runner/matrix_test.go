package runner

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

func expand(t *testing.T, src string, sel []string, check Checker) ([]Point, error) {
	t.Helper()
	b, err := ParseBenchmark("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exps, err := b.Select(sel)
	if err != nil {
		t.Fatal(err)
	}
	return Expand(b, exps, "pi", check)
}

// describe renders points as "expe slug" lines for comparison.
func describe(points []Point) []string {
	var out []string
	for _, p := range points {
		out = append(out, p.Experiment+" "+p.Slug())
	}
	return out
}

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "scalars give one point",
			src:  "expe:\n  a: {pi: matmul, matrix_size: 512}\n",
			want: []string{"a run"},
		},
		{
			name: "cartesian product, first list slowest",
			src:  "expe:\n  a:\n    dtype: [float32, float64]\n    matrix_size: [64, 128, 256]\n",
			want: []string{
				"a dtype=float32_matrix_size=64", "a dtype=float32_matrix_size=128", "a dtype=float32_matrix_size=256",
				"a dtype=float64_matrix_size=64", "a dtype=float64_matrix_size=128", "a dtype=float64_matrix_size=256",
			},
		},
		{
			name: "common lists vary too; experiment values override",
			src:  "common_settings:\n  backend: [gonum, numpy]\n  matrix_size: 64\nexpe:\n  a: {matrix_size: [1, 2]}\n  b: {backend: torch}\n",
			want: []string{"a backend=gonum_matrix_size=1", "a backend=gonum_matrix_size=2", "a backend=numpy_matrix_size=1", "a backend=numpy_matrix_size=2", "b run"},
		},
		{
			name: "repeat is the outer loop and joins the slug",
			src:  "expe:\n  a:\n    matrix_size: [1, 2]\n    repeat: 2\n",
			want: []string{"a matrix_size=1_repeat=0", "a matrix_size=2_repeat=0", "a matrix_size=2_repeat=1", "a matrix_size=1_repeat=1"},
		},
		{
			name: "rounds alternate their order: A B, B A, A B (every pair of points)",
			src:  "expe:\n  a:\n    size: [1, 2]\n    side: [base, head]\n    repeat: 3\n",
			want: []string{"a size=1_side=base_repeat=0", "a size=1_side=head_repeat=0", "a size=2_side=base_repeat=0", "a size=2_side=head_repeat=0",
				"a size=2_side=head_repeat=1", "a size=2_side=base_repeat=1", "a size=1_side=head_repeat=1", "a size=1_side=base_repeat=1",
				"a size=1_side=base_repeat=2", "a size=1_side=head_repeat=2", "a size=2_side=base_repeat=2", "a size=2_side=head_repeat=2"},
		},
		{
			name: "repeat 1 adds @repeat but no slug part",
			src:  "common_settings: {repeat: 1}\nexpe:\n  a: {pi: matmul}\n",
			want: []string{"a run"},
		},
		{
			name: "disabled experiments are skipped",
			src:  "expe:\n  _a: {pi: x}\n  b: {pi: [x, y]}\n",
			want: []string{"b pi=x", "b pi=y"},
		},
		{
			name: "command: a list is one argv, a list of lists varies",
			src:  "expe:\n  a: {pi: exec, command: [./pi, --n, 3]}\n  b: {pi: exec, command: [[./pi, a], [./pi, b]]}\n",
			want: []string{"a run", `b command=--pi-a`, `b command=--pi-b`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			points, err := expand(t, tc.src, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(points); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestExpandSettings(t *testing.T) {
	t.Parallel()
	points, err := expand(t, "common_settings:\n  backend: gonum\nexpe:\n  a:\n    pi: matmul\n    matrix_size: [64, 128]\n    repeat: 3\n", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 6 {
		t.Fatalf("%d points", len(points))
	}
	want := map[string]any{"workload": "pi", "backend": "gonum", "pi": "matmul", "matrix_size": 128, "@repeat": 2}
	if got := points[5].Settings; !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
	cfg := points[0].Config
	if cfg["experiment"] != "a" || cfg["repeat"] != 3 || !reflect.DeepEqual(cfg["settings"].(map[string]any)["matrix_size"], []any{64, 128}) {
		t.Errorf("config %v", cfg)
	}
	if _, ok := cfg["settings"].(map[string]any)["repeat"]; ok {
		t.Error("repeat is a directive, not a setting")
	}
}

type keyErr struct{ key string }

func (e *keyErr) Error() string      { return "setting " + e.key + ": bad" }
func (e *keyErr) SettingKey() string { return e.key }

func TestExpandValidation(t *testing.T) {
	t.Parallel()
	src := "common_settings:\n  device: gpu\nexpe:\n  a:\n    matrix_size: [64, 0, -1]\n  b:\n    pi: matmul\n"
	check := func(s map[string]any) error {
		if n, _ := s["matrix_size"].(int); n < 1 && s["matrix_size"] != nil {
			return &keyErr{"matrix_size"}
		}
		if s["device"] == "gpu" && s["pi"] == "matmul" {
			return &keyErr{"device"}
		}
		return nil
	}
	_, err := expand(t, src, nil, check)
	if exitcode.Of(err) != exitcode.InvalidInput {
		t.Fatalf("error %v, code %d", err, exitcode.Of(err))
	}
	for _, want := range []string{
		`b.yaml:5: experiment "a": key "matrix_size": setting matrix_size: bad (point matrix_size=0)`,
		`b.yaml:2: experiment "b": key "device": setting device: bad`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "matrix_size=-1") {
		t.Errorf("the same problem is reported once per experiment: %v", err)
	}
	// Repeats are not checked again: one message per distinct problem.
	_, err = expand(t, "expe:\n  a: {repeat: 5}\n", nil, func(map[string]any) error { return errors.New("no") })
	if n := strings.Count(err.Error(), "no"); n != 1 {
		t.Errorf("%d messages for one problem: %v", n, err)
	}
}

func TestSlugIsFilesystemSafe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		settings map[string]any
		varying  []string
		want     string
	}{
		{map[string]any{"model": "bert/base uncased"}, []string{"model"}, "model=bert-base-uncased"},
		{map[string]any{"v": ".hidden"}, []string{"v"}, "v=-hidden"},
		{map[string]any{"ratio": 0.5, "@repeat": 3}, []string{"ratio", "@repeat"}, "ratio=0.5_repeat=3"},
		{map[string]any{"s": "é ü"}, []string{"s"}, "s=-"},
		{map[string]any{"s": strings.Repeat("x", 300)}, []string{"s"}, "s=" + strings.Repeat("x", maxSlug-2)},
		{map[string]any{}, nil, "run"},
		{map[string]any{"model": "a&b <c>"}, []string{"model"}, "model=a-b-c-"},
		{map[string]any{"command": []any{"sh", "-c", "echo a && echo b > /tmp/x"}}, []string{"command"}, "command=sh--c-echo-a-echo-b-tmp-x"},
		{map[string]any{"opts": map[string]any{"b": "x&y", "a": 1}}, []string{"opts"}, "opts=a-1-b-x-y"},
	}
	for _, tc := range tests {
		got := Point{Settings: tc.settings, Varying: tc.varying}.Slug()
		if got != tc.want {
			t.Errorf("slug of %v = %q, want %q", tc.settings, got, tc.want)
		}
		if strings.ContainsAny(got, "/\x00 ") || strings.HasPrefix(got, ".") || strings.Contains(got, "u0026") {
			t.Errorf("unsafe slug %q", got)
		}
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"matrix_size": "SESHAT_MATRIX_SIZE",
		"@repeat":     "SESHAT__REPEAT",
		"a.b-c":       "SESHAT_A_B_C",
	} {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
}
