package parsers

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wantErr checks err is a *SyntaxError naming file and line (0: unknown) and
// carrying every fragment.
func wantErr(t *testing.T, err error, file string, line int, field string, fragments ...string) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want *SyntaxError", err, err)
	}
	if se.File != file || se.Line != line || se.Field != field {
		t.Errorf("error %q: file %q line %d field %q, want %q %d %q", err, se.File, se.Line, se.Field, file, line, field)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
	if !strings.HasPrefix(err.Error(), file) {
		t.Errorf("error %q does not start with the file name", err)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want map[string]any
	}{
		{"flat", "workload: pi\nmatrix_size: 512\nratio: 0.5\nquoted: \"512\"\n\"@repeat\": 2\n",
			map[string]any{"workload": "pi", "matrix_size": 512, "ratio": 0.5, "quoted": "512", "@repeat": 2}},
		{"empty", "", map[string]any{}},
		{"only a comment", "# nothing yet\n", map[string]any{}},
		{"null document", "null\n", map[string]any{}},
		{"tilde document", "---\n~\n", map[string]any{}},
		{"trailing empty document", "a: 1\n---\n", map[string]any{"a": 1}},
		{"document end marker", "a: 1\n...\n", map[string]any{"a": 1}},
		{"dashes in a value", "a: x---y\nb: \"...\"\n", map[string]any{"a": "x---y", "b": "..."}},
		{"numeric names", "1: one\ntrue: yes\n", map[string]any{"1": "one", "true": "yes"}},
		{"nested values", "batch: [1, 2]\nopts: {x: {1: a}}\n",
			map[string]any{"batch": []any{1, 2}, "opts": map[string]any{"x": map[string]any{"1": "a"}}}},
		{"merge key", "<<: {x: 1}\ny: 2\n", map[string]any{"x": 1, "y": 2}},
		{"byte order mark", "\ufeffa: 1\n", map[string]any{"a": 1}},
		{"dates stay text", "date: 2024-05-01\nat: [2024-05-01T10:00:00Z]\n",
			map[string]any{"date": "2024-05-01", "at": []any{"2024-05-01T10:00:00Z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Settings("settings.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestSettingsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		line      int
		field     string
		fragments []string
	}{
		{"list", "# a list\n- 1\n- 2\n", 2, "", []string{"mapping", "a list"}},
		{"scalar", "hello\n", 1, "", []string{"mapping", "single value"}},
		{"duplicate name", "a: 1\nb: 2\na: 3\n", 3, "", []string{`"a" already defined at line 1`}},
		{"duplicate nested name", "a: {b: 1, b: 2}\n", 1, "", []string{`"b" already defined`}},
		{"duplicate number and text name", "1: a\n\"1\": b\n", 2, "", []string{"already defined"}},
		{"empty name", "\"\": 1\n", 1, "", []string{"non-empty"}},
		{"bad indentation", "x: 1\n  y: 2\n", 2, "", []string{"mapping values"}},
		{"unclosed flow", "a: 1\nb: [1,\n", 2, "", nil},
		{"tab indentation", "a: 1\n\tb: 2\n", 2, "", []string{"tab"}},
		{"binary", "a: 1\nb: \x00\x01\x02\n", 2, "", []string{"control character"}},
		{"not UTF-8", "a: 1\n\nb: caf\xe9\n", 3, "", []string{"UTF-8"}},
		{"deeply nested", strings.Repeat("[", 20000), 0, "", []string{"max depth"}},
		{"deeply nested blocks", strings.Repeat("- ", 20000) + "x\n", 0, "", []string{"max depth"}},
		{"two documents", "a: 1\n---\nb: 2\n", 2, "", []string{"more than one YAML document"}},
		{"third document", "a: 1\n---\n---\nb: 2\n", 3, "", []string{"more than one YAML document"}},
		{"broken second document", "a: 1\n---\nb: [\n", 3, "", []string{"did not find expected"}},
		{"not a number", "a: 1\nlimit: .inf\n", 2, "limit", []string{"finite"}},
		{"nested NaN", "a: [1, .nan]\n", 1, "a", []string{"finite"}},
		{"unknown anchor", "a: *nope\n", 0, "", []string{"unknown anchor"}},
		{"alias bomb", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
			"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
			"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n", 0, "", []string{"excessive aliasing"}},
		{"huge", "a: " + strings.Repeat("x", SettingsLimit) + "\n", 0, "", []string{"bytes, more than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Settings("exp/settings.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("no error, got %#v", got)
			}
			wantErr(t, err, "exp/settings.yaml", tt.line, tt.field, tt.fragments...)
		})
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr string
	}{
		{"zero", "0\n", 0, ""},
		{"no newline", "1", 1, ""},
		{"killed", " 137 \r\n", 137, ""},
		{"negative", "-9\n", -9, ""},
		{"empty", "", 0, "empty exit code"},
		{"blank", " \n\t\n", 0, "empty exit code"},
		{"text", "done\n", 0, `"done" is not an integer`},
		{"float", "0.0\n", 0, "is not an integer"},
		{"two lines", "0\n1\n", 0, "is not an integer"},
		{"out of range", "99999999999\n", 0, "out of range"},
		{"binary", "\x00\x01\xff\xfe", 0, "binary"},
		{"long garbage is cut", strings.Repeat("é", 100), 0, `..." is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ExitCode("exit_code", []byte(tt.in))
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("got %d, %v; want %d", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %d, want an error", got)
			}
			wantErr(t, err, "exit_code", 1, "", tt.wantErr)
			if len(err.Error()) > 120 {
				t.Errorf("message too long: %q", err)
			}
		})
	}
}

func TestUUID(t *testing.T) {
	t.Parallel()
	const u = "6b0a1c1e-2a39-4d5f-9f43-0d4b1a7e2c51"
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{"canonical", u + "\n", u, ""},
		{"upper case", strings.ToUpper(u), u, ""},
		{"urn", "urn:uuid:" + u, u, ""},
		{"empty", "\n", "", "empty UUID"},
		{"garbage", "not-a-uuid", "", `invalid UUID "not-a-uuid"`},
		{"binary", "\x00\xff", "", "invalid UUID"},
		{"two uuids", u + "\n" + u, "", "invalid UUID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := UUID(".uuid", []byte(tt.in))
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %q, want an error", got)
			}
			wantErr(t, err, ".uuid", 1, "", tt.wantErr)
		})
	}
}

type piDoc struct {
	Component string         `json:"component"`
	Params    map[string]any `json:"@parameters"`
	Result    struct {
		Rate    float64   `json:"rate"`
		Samples []float64 `json:"samples_ms"`
	} `json:"@result"`
	Start time.Time `json:"start"`
}

func TestJSON(t *testing.T) {
	t.Parallel()
	var d piDoc
	in := `{"component": "numpy", "unknown": true,
 "@result": {"rate": 412.7, "samples_ms": [0.65, 0.64]}}` + "\n\n"
	if err := JSON("pi.json", []byte(in), &d); err != nil {
		t.Fatal(err)
	}
	if d.Component != "numpy" || d.Result.Rate != 412.7 || len(d.Result.Samples) != 2 {
		t.Errorf("decoded %+v", d)
	}
}

func TestJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		line      int
		field     string
		fragments []string
	}{
		{"empty", "", 1, "", []string{"empty document"}},
		{"blank", "\n  \n", 1, "", []string{"empty document"}},
		{"syntax", "{\n \"a\": 1,\n \"b\": [1, 2,]\n}\n", 3, "", []string{"invalid character"}},
		{"truncated", "{\"component\": \"numpy\",\n \"@result\": {\"rate\": 41", 2, "", []string{"truncated"}},
		{"truncated string", "{\"component\": \"num", 1, "", []string{"truncated"}},
		{"wrong type", "{\"component\": \"numpy\",\n \"@result\": {\"rate\": \"fast\"}}", 2, "@result.rate", []string{"cannot use JSON string as float64"}},
		{"wrong document type", "[1, 2]", 1, "(document)", []string{"array"}},
		{"trailing garbage", "{\"component\": \"numpy\"}\n\n garbage", 3, "", []string{"after the JSON document"}},
		{"two documents", "{\"component\": \"a\"}\n{\"component\": \"b\"}\n", 2, "", []string{"after the JSON document"}},
		{"binary", "\x00\x01\x02", 1, "", []string{"invalid character"}},
		{"deeply nested", strings.Repeat("[", 20000), 1, "", []string{"exceeded max depth"}},
		{"bad time", `{"start": "yesterday"}`, 0, "", []string{"yesterday"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d piDoc
			err := JSON("run/pi.json", []byte(tt.in), &d)
			if err == nil {
				t.Fatalf("no error, decoded %+v", d)
			}
			wantErr(t, err, "run/pi.json", tt.line, tt.field, tt.fragments...)
		})
	}
}

func TestYAMLLines(t *testing.T) {
	t.Parallel()
	var v struct{ A int }
	err := YAML("config.yaml", []byte("a: 1\n\na: x\n"), &v)
	wantErr(t, err, "config.yaml", 3, "", "already defined")
	err = YAML("config.yaml", []byte("a: [1\n"), &v)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line == 0 {
		t.Errorf("error %v: want a line", err)
	}
}

func TestReadLimited(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("small", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		limit int64
		want  string
		is    error
	}{
		{"under the limit", small, 10, "12345", nil},
		{"at the limit", small, 5, "12345", nil},
		{"through a symlink", link, 5, "12345", nil},
		{"over the limit", small, 4, "", ErrTooLarge},
		{"missing", filepath.Join(dir, "none"), 10, "", fs.ErrNotExist},
		{"directory", dir, 10, "", ErrNotRegular},
		// Opening a FIFO would block until a writer comes: refused first.
		{"fifo", fifo, 10, "", ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadLimited(tt.path, tt.limit)
			if tt.is == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) {
				t.Fatalf("error %v, want %v", err, tt.is)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tt.path {
				t.Errorf("error %v does not carry the path %s", err, tt.path)
			}
		})
	}
}

func TestReadTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "stderr.log")
	if err := os.WriteFile(p, []byte("line 1\nline 2\nfin é\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"whole", 100, "line 1\nline 2\nfin é\n"},
		{"tail", 7, "fin é\n"},
		{"cut inside a rune", 2, "\n"},
		{"nothing", 0, ""},
		{"negative", -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadTail(p, tt.n)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := ReadTail(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: error %v, want ErrNotRegular", err)
	}
}

func TestScalarValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want any
	}{
		{"512", 512},
		{"512.0", 512.0},
		{"0.5", 0.5},
		{"abc", "abc"},
		{"true", true},
		{"null", nil},
		{"~", nil},
		{"", ""},
		{"2024-05-01", "2024-05-01"},
		{"[1, 2]", "[1, 2]"},
		{"a: b", "a: b"},
		{"#x", "#x"},
		{"*x", "*x"},
		{"!!str 5", "!!str 5"},
		{".nan", ".nan"},
		{"\"quoted\"", "quoted"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := ScalarValue(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ScalarValue(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}
