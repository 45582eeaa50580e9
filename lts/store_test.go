package lts_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/workloads/pi"
)

func TestSecretNeverShows(t *testing.T) {
	t.Parallel()
	s := lts.Secret("hunter2")
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "password", s)
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "password", s)
	var js strings.Builder
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct{ P lts.Secret }{s})
	opts := lts.StoreOptions{Username: "ci", Password: s}
	for _, out := range []string{
		fmt.Sprint(s), fmt.Sprintf("%s %v %q %x %X %d %+v %#v %10s", s, s, s, s, s, s, s, s, s),
		fmt.Sprintf("%+v %#v", opts, opts), js.String(), logged.String(),
	} {
		if strings.Contains(out, "hunter2") || strings.Contains(out, fmt.Sprintf("%x", "hunter2")) {
			t.Errorf("the secret shows: %s", out)
		}
		if !strings.Contains(out, "<secret>") {
			t.Errorf("no <secret> in %s", out)
		}
	}
	if s.Reveal() != "hunter2" {
		t.Errorf("Reveal = %q", s.Reveal())
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://ci:hunter2@search:9200":  "https://ci:xxxxx@search:9200",
		"https://search:9200/":            "https://search:9200/",
		"sqlite:.seshat/lts.db":           "sqlite:.seshat/lts.db",
		"https://ci:hun%zzter2@search:92": "https://<secret>@search:92",
	} {
		if got := lts.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLabelFilters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{"", "map[]", ""},
		{"backend=numpy", "map[backend:[numpy]]", ""},
		{"matrix_size=256:512, device=cpu", "map[device:[cpu] matrix_size:[256 512]]", ""},
		{"cpu_model=AMD EPYC 7763 64-Core Processor", "map[cpu_model:[AMD EPYC 7763 64-Core Processor]]", ""},
		{"backend", "", `filter "backend": want label=value`},
		{"Backend=x", "", `"Backend" is not a label name`},
	}
	for _, tt := range tests {
		got, err := lts.ParseLabelFilters(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseLabelFilters(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("ParseLabelFilters(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func piWorkload() lts.Workload { return pi.Workload{} }

func piLookup(name string) (lts.Workload, bool) {
	if name == "pi" {
		return pi.Workload{}, true
	}
	return nil, false
}

// TestReadPayloadsGolden reads the shipped LTS golden back: every payload
// decodes into the pi types and validates strictly, and encodes to the
// same document.
func TestReadPayloadsGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../testdata/golden/lts.json")
	if err != nil {
		t.Fatal(err)
	}
	records, err := lts.ReadPayloads("lts.json", data, piLookup)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := lts.SplitValid(records)
	if err != nil || len(valid) != 8 {
		t.Fatalf("%d valid of %d: %v", len(valid), len(records), err)
	}
	var want []json.RawMessage
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for i, r := range valid {
		if _, ok := r.Payload.Results.(*pi.PayloadResults); !ok {
			t.Errorf("payload %d: results are %T", i, r.Payload.Results)
		}
		if got := canonical(t, r.Payload); got != canonical(t, want[i]) {
			t.Errorf("payload %d re-encodes differently:\n got %s\nwant %s", i, got, want[i])
		}
	}
}

// FuzzReadPayloads: an LTS file is any input; reading it never panics, and
// a payload it accepts validates or is named.
func FuzzReadPayloads(f *testing.F) {
	data, err := os.ReadFile("../testdata/golden/lts.json")
	if err != nil {
		f.Fatal(err)
	}
	// One payload per seed: the golden's 64 KB as one input made every
	// execution (and the minimizer's passes) eight payloads long.
	var golden []json.RawMessage
	if err := json.Unmarshal(data, &golden); err != nil {
		f.Fatal(err)
	}
	for _, p := range golden {
		f.Add(append(append([]byte("["), p...), ']'))
	}
	f.Add([]byte(`[{"metadata":{"workload":"pi"},"results":{"pi":{"@result":{"rate":"x"}}}}]`))
	f.Add([]byte(`[{"metadata":{"workload":"nope"}}, 3, null, []]`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		records, err := lts.ReadPayloads("f.json", data, piLookup)
		if err != nil {
			return
		}
		valid, err := lts.SplitValid(records)
		if err == nil && len(valid) != len(records) {
			t.Fatalf("%d valid of %d records without an error", len(valid), len(records))
		}
		for _, r := range valid {
			if _, err := json.Marshal(r.Payload); err != nil {
				t.Fatalf("a valid payload does not encode: %v", err)
			}
		}
	})
}

// FuzzParseLabelFilters: any --filters text parses or is refused, never
// panics, and what parses names snake_case labels with values.
func FuzzParseLabelFilters(f *testing.F) {
	for _, s := range []string{"", "backend=numpy", "matrix_size=256:512,device=cpu", "a=", "=x", ",,", "k=v=w", "K=v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		labels, err := lts.ParseLabelFilters(s)
		if err != nil {
			return
		}
		for name, values := range labels {
			if len(values) == 0 {
				t.Fatalf("%q: label %s without values", s, name)
			}
		}
		if err := (lts.Query{Labels: labels}).Check(); err != nil {
			t.Fatalf("%q parses to a query that Check refuses: %v", s, err)
		}
	})
}
