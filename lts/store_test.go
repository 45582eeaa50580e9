package lts_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/parsers"
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

// A backend registers its scheme once; Open finds it by the URL's scheme
// (any case) and refuses what no backend answers, without showing a
// password.
func TestRegistry(t *testing.T) {
	t.Parallel()
	var opened []string
	lts.Register("Fake-Test", "fake-test:NAME", func(_ context.Context, u string, opts lts.StoreOptions) (lts.Store, error) {
		opened = append(opened, fmt.Sprintf("%s %d", u, opts.PageSize))
		return lts.NewMemory(u), nil
	})
	s, err := lts.Open(context.Background(), "FAKE-TEST:x", lts.StoreOptions{})
	if err != nil || s.String() != "FAKE-TEST:x" || len(opened) != 1 || opened[0] != "FAKE-TEST:x 1000" {
		t.Errorf("Open = %v, %v; opened %v (the defaults applied)", s, err, opened)
	}
	if !lts.IsStoreURL("fake-test:y") || lts.IsStoreURL("fake-test") || lts.IsStoreURL("nope:x") || lts.IsStoreURL("") {
		t.Error("IsStoreURL tells store URLs wrong")
	}
	if !slices.Contains(lts.Forms(), "fake-test:NAME") {
		t.Errorf("Forms = %v", lts.Forms())
	}
	for _, u := range []string{"postgres://db/x", "file.db", "https://user:hunter2@search:9200"} {
		_, err := lts.Open(context.Background(), u, lts.StoreOptions{})
		if exitcode.Of(err) != exitcode.InvalidInput || !strings.Contains(err.Error(), "unknown kind (want ") {
			t.Errorf("Open(%q) = %v, want an invalid input error", u, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) error shows the password: %v", u, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a scheme twice does not panic")
		}
	}()
	lts.Register("fake-test", "again", func(context.Context, string, lts.StoreOptions) (lts.Store, error) { return nil, nil })
}

// A Put into a store without its own description counts payloads.
func TestDescribePut(t *testing.T) {
	t.Parallel()
	got := lts.DescribePut(lts.NewMemory("mem"), "sqlite:lts.db", lts.PutStats{Payloads: 3, Created: 2, Replaced: 1})
	if want := "stored 3 payload(s) in sqlite:lts.db: 2 new, 1 replaced"; got != want {
		t.Errorf("got %s, want %s", got, want)
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
		if got := ltstest.Canonical(t, r.Payload); got != ltstest.Canonical(t, want[i]) {
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

// TestReadFile: the one reader of an LTS file names the file in every
// error, with the exit status a user sees: a missing file is invalid input
// (4), one over FileLimit is refused before it is read, broken JSON names
// its line.
func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is checked before a byte is read.
	if err := os.Truncate(huge, lts.FileLimit+1); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("[{\"metadata\": \n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.json")
	tests := []struct {
		name, path string
		is         error
		code       exitcode.Code
		want       string
	}{
		{"missing", missing, fs.ErrNotExist, exitcode.InvalidInput, "open " + missing},
		{"over the limit", huge, parsers.ErrTooLarge, exitcode.Failure, fmt.Sprintf("read %s: %d bytes, limit %d", huge, lts.FileLimit+1, lts.FileLimit)},
		{"a directory", dir, parsers.ErrNotRegular, exitcode.Failure, dir},
		{"broken JSON", broken, nil, exitcode.InvalidInput, broken + ":2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := lts.ReadFile(tt.path, piLookup)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitcode.Of(err) != tt.code || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("ReadFile(%s) = %v (exit %d), want %q, exit %d, is %v", tt.path, err, exitcode.Of(err), tt.want, tt.code, tt.is)
			}
		})
	}
	records, err := lts.ReadFile("../testdata/golden/lts.json", piLookup)
	if err != nil || len(records) != 8 || records[0].Path != "../testdata/golden/lts.json[0]" {
		t.Errorf("the golden: %d records, %v", len(records), err)
	}
}
