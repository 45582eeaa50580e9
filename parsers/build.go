package parsers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/models"
)

// BuildLimit is the largest build.json read: a few hundred bytes is usual,
// anything near this is not a build description.
const BuildLimit = 64 << 10

// buildDoc is build.json as written, before the checks that give a
// models.Build.
type buildDoc struct {
	ID     string `json:"id"`
	Commit string `json:"commit"`
	Ref    string `json:"ref"`
	CI     *struct {
		Engine string `json:"engine"`
		// RunID is a string, or a number as a hand-written build.json
		// puts it (run_id: ${{ github.run_id }}, unquoted).
		RunID json.RawMessage `json:"run_id"`
		URL   string          `json:"url"`
	} `json:"ci"`
	Time string `json:"time"`
}

// Build decodes a build.json (DESIGN §4): what was under test. A document
// without an id gets the one its CI run or commit derives
// (models.Build.DerivedID); one with neither is an error, as are a
// document that is not a JSON object, a field of the wrong type, a time
// that is not RFC 3339, a ci.url that is not an absolute URL, and binary or
// oversized content. Unknown fields are allowed. The time is returned in
// UTC, and an empty ci object as none.
func Build(name string, data []byte) (*models.Build, error) {
	if len(data) > BuildLimit {
		return nil, &SyntaxError{File: name, Msg: fmt.Sprintf("%d bytes, more than the %d a build description may hold", len(data), BuildLimit)}
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, &SyntaxError{File: name, Line: 1, Msg: "not text (binary content)"}
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] != '{' {
		return nil, &SyntaxError{File: name, Line: lineOf(data, int64(len(data)-len(trimmed))), Msg: "not a JSON object"}
	}
	var doc buildDoc
	if err := JSON(name, data, &doc); err != nil {
		return nil, err
	}
	b := &models.Build{ID: doc.ID, Commit: doc.Commit, Ref: doc.Ref}
	if c := doc.CI; c != nil {
		runID, err := buildRunID(c.RunID)
		if err != nil {
			return nil, &SyntaxError{File: name, Field: "ci.run_id", Msg: err.Error()}
		}
		if c.Engine != "" || runID != "" || c.URL != "" {
			b.CI = &models.CI{Engine: c.Engine, RunID: runID, URL: c.URL}
		}
	}
	if doc.Time != "" {
		t, err := time.Parse(time.RFC3339, doc.Time)
		if err != nil {
			return nil, &SyntaxError{File: name, Field: "time", Msg: fmt.Sprintf("%s is not an RFC 3339 time", strconv.Quote(Truncate(doc.Time, 40)))}
		}
		b.Time = t.UTC()
	}
	if b.ID == "" {
		if b.ID = b.DerivedID(); b.ID == "" {
			return nil, &SyntaxError{File: name, Field: "id", Msg: "missing, and no ci.run_id or commit to name the build by"}
		}
	}
	if err := models.Validate(b); err != nil {
		if ve, ok := err.(*models.ValidationError); ok && len(ve.Fields) > 0 {
			return nil, &SyntaxError{File: name, Field: ve.Fields[0].Path, Msg: ve.Fields[0].Msg}
		}
		return nil, &SyntaxError{File: name, Msg: err.Error()}
	}
	return b, nil
}

// buildRunID takes a run id written as a string or as an integer.
func buildRunID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	s := string(raw)
	if strings.Trim(s, "0123456789") == "" {
		return s, nil
	}
	return "", fmt.Errorf("cannot use JSON %s as a run id (a string or an integer)", Truncate(s, 40))
}
