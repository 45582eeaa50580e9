package parsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/seshat-bench/seshat/models"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// addSeeds seeds f with the files of testdata/seeds/<kind> and with every
// file named like one of names in the shared results tree (../testdata), so
// the fuzzers start from what real run directories hold.
func addSeeds(f *testing.F, kind string, names ...string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "seeds", kind, "*"))
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	_ = filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && want[d.Name()] {
			files = append(files, p)
		}
		return nil
	})
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func checkSyntaxError(t *testing.T, err error, data []byte) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
	}
	if se.File == "" || se.Msg == "" {
		t.Fatalf("error %q lacks a file or a message", err)
	}
	// An upper bound of the lines as YAML counts them (CR, NEL, LS, PS break
	// lines too).
	lines := 1
	for _, sep := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		lines += bytes.Count(data, []byte(sep))
	}
	if se.Line > lines {
		t.Fatalf("error %q: line %d past the end", err, se.Line)
	}
}

func FuzzSettings(f *testing.F) {
	addSeeds(f, "settings", "settings.yaml", "settings.yml", "config.yaml")
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Add([]byte("? !!binary aGk=\n: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Settings("settings.yaml", data)
		if err != nil {
			checkSyntaxError(t, err, data)
			return
		}
		// Settings end up in the JSON matrix and the parse cache.
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("settings %#v do not encode as JSON: %v", s, err)
		}
	})
}

func FuzzExitCode(f *testing.F) {
	addSeeds(f, "exit_code", "exit_code")
	f.Fuzz(func(t *testing.T, data []byte) {
		code, err := ExitCode("exit_code", data)
		if err != nil {
			checkSyntaxError(t, err, data)
			return
		}
		again, err := ExitCode("exit_code", []byte(strconv.Itoa(code)))
		if err != nil || again != code {
			t.Fatalf("%d does not round-trip: %d, %v", code, again, err)
		}
	})
}

func FuzzUUID(f *testing.F) {
	addSeeds(f, "uuid", ".uuid")
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := UUID(".uuid", data)
		if err != nil {
			checkSyntaxError(t, err, data)
			return
		}
		again, err := UUID(".uuid", []byte(u))
		if err != nil || again != u {
			t.Fatalf("%q is not canonical: %q, %v", u, again, err)
		}
	})
}

func FuzzJSON(f *testing.F) {
	addSeeds(f, "json", "pi.json", "hwinfo.json", "usage.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		var typed piDoc
		if err := JSON("pi.json", data, &typed); err != nil {
			checkSyntaxError(t, err, data)
		}
		var generic any
		if err := JSON("pi.json", data, &generic); err != nil {
			checkSyntaxError(t, err, data)
		} else if !json.Valid(bytes.TrimSpace(data)) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}

// parsers.JSON decodes valid documents with the v2 decoder and everything
// else with encoding/json: whatever the input, it must give what
// encoding/json gives, value for value, and fail where it fails.
func FuzzJSONMatchesEncodingJSON(f *testing.F) {
	addSeeds(f, "json", "pi.json", "hwinfo.json", "usage.json")
	f.Add([]byte(`{"Component": "a", "component": "b", "NAME": "n"}`))
	f.Add([]byte(`{"@result": {"rate": 1, "rate": 2, "samples_ms": [1, 2e400]}}`))
	f.Add([]byte("{\"component\": \"\xff\xfe\"}"))
	f.Add([]byte(`{"@result": {"samples_ms": null, "flops": 1e3}, "@parameters": {"n": -0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want piDoc
		err := JSON("pi.json", data, &got)
		wantErr := json.Unmarshal(data, &want)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json: %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, encoding/json: %+v", got, want)
		}
		for _, pair := range [][2]any{
			{&models.PIResult{}, &models.PIResult{}},
			{&models.HWInfo{}, &models.HWInfo{}},
			{&models.Usage{}, &models.Usage{}},
		} {
			err, wantErr := JSON("x.json", data, pair[0]), json.Unmarshal(data, pair[1])
			if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(pair[0], pair[1]) {
				t.Fatalf("%T: %+v (%v), encoding/json: %+v (%v)", pair[0], pair[0], err, pair[1], wantErr)
			}
		}
		var g, w any
		err, wantErr = JSON("pi.json", data, &g), json.Unmarshal(data, &w)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(g, w)) {
			t.Fatalf("generic: %v (%v), encoding/json: %v (%v)", g, err, w, wantErr)
		}
	})
}

func FuzzBuild(f *testing.F) {
	addSeeds(f, "build", "build.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Build("build.json", data)
		if err != nil {
			checkSyntaxError(t, err, data)
			return
		}
		// What is accepted goes into a payload as is: it must pass strict
		// validation, and read back the same once written.
		if b.ID == "" || b.Time.Location() != time.UTC {
			t.Fatalf("accepted %q as %+v", data, b)
		}
		if err := models.Validate(b); err != nil {
			t.Fatalf("accepted %q as an invalid build: %v", data, err)
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("%+v does not encode: %v", b, err)
		}
		again, err := Build("build.json", out)
		if err != nil || !reflect.DeepEqual(again, b) {
			t.Fatalf("%s does not round-trip: %+v, %v", out, again, err)
		}
	})
}
