package store

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/models"
)

// State tells how an entry came out of the parse.
type State int

const (
	// StateCached: parse-once results came from the cache.
	StateCached State = iota
	// StateParsed: parse-once ran.
	StateParsed
	// StateIncomplete: no exit_code file; the run never finished, not parsed.
	StateIncomplete
	// StateFailed: the entry could not be parsed (unreadable settings or
	// exit_code, parser error); its warnings say why.
	StateFailed
)

func (s State) String() string {
	return [...]string{"cached", "parsed", "incomplete", "failed"}[s]
}

// Entry is one test root of the matrix.
type Entry struct {
	Path string `json:"path"`
	// PathEscaped is Path with every byte that is not valid UTF-8, and
	// every "%", written %XX, set by WriteJSON only when Path is not valid
	// UTF-8: JSON text cannot hold such bytes (encoding/json writes U+FFFD),
	// and url.PathUnescape (or Python's unquote_to_bytes) gives them back.
	PathEscaped string          `json:"path_escaped,omitempty"`
	Dir         string          `json:"-"`
	Workload    string          `json:"-"`
	Settings    models.Settings `json:"settings"`
	// ExitCode is nil when exit_code is missing or unreadable.
	ExitCode *int `json:"exit_code"`
	// Complete means exit_code was present and readable (the run finished,
	// successfully or not).
	Complete bool `json:"complete"`
	// Build is what was under test (build.json), read for the entries
	// parsed; nil when the run does not say (older runs) or says it badly
	// (a warning): the run is then its own build.
	Build *models.Build `json:"build,omitempty"`
	// Results is the workload's typed result; nil when not parsed.
	Results  any      `json:"results"`
	Warnings []string `json:"warnings"`
	State    State    `json:"-"`

	identity string // Settings.Identity(), computed once
	// settingsBroken: a settings file could not be read, so Settings are
	// partial and say nothing about being a duplicate.
	settingsBroken bool
}

// Matrix is the parsed results directory.
type Matrix struct {
	ResultsDir string
	// Entries sorted by path, duplicates dropped.
	Entries []*Entry
	// Variables maps each non-`@` setting with more than one value to its
	// sorted values.
	Variables map[string][]any
	// Warnings concern no single entry: unreadable directories, symlink
	// loops, dropped duplicates. They are also logged.
	Warnings []string
}

// Stats counts entries by state.
type Stats struct {
	Entries, Cached, Parsed, Incomplete, Failed int
}

// String is the line parse prints last on stderr.
func (s Stats) String() string {
	return fmt.Sprintf("parsed %d entries: %d cached, %d parsed, %d incomplete, %d failed",
		s.Entries, s.Cached, s.Parsed, s.Incomplete, s.Failed)
}

// newMatrix builds the matrix from entries sorted by path: duplicates (same
// identity, of the same build) are dropped with a warning, variables
// computed. Runs of two builds with the same settings are not duplicates:
// a nightly job's results tree holds one run of each point every night.
func newMatrix(resultsDir string, entries []*Entry) (*Matrix, []string) {
	m := &Matrix{ResultsDir: resultsDir}
	var warnings []string
	seen := make(map[string]string, len(entries))
	for _, e := range entries {
		if !e.settingsBroken {
			id := e.identity
			if id == "" {
				id = e.Settings.Identity()
			}
			if e.Build != nil {
				id += "\x00" + e.Build.ID
			}
			if first, dup := seen[id]; dup {
				warnings = append(warnings, fmt.Sprintf("%s: same settings and build as %s, dropped as a duplicate", e.Path, first))
				continue
			}
			seen[id] = e.Path
		}
		m.Entries = append(m.Entries, e)
	}
	m.Variables = Variables(m.Entries)
	return m, warnings
}

// SettingValues returns, for every setting but the `@` ones, the distinct
// values entries give it (equal as EqualValues says), sorted by SortValues.
func SettingValues(entries []*Entry) map[string][]any {
	// A setting's values by their canonical text, and the last few scalar
	// values added, each the last of its text: entries mostly repeat a
	// handful of values, which are then not rendered again (the matrix is
	// built after the parallel parse, on one core). BenchmarkVariables,
	// 10,000 entries on the 2-core VM: 6-11 ms and 190 allocations against
	// 18-34 ms and 220,000 rendering every value (3 alternate rounds).
	type values struct {
		byText map[string]any
		recent []any
	}
	const recentValues = 16
	distinct := map[string]*values{}
	for _, e := range entries {
	settings:
		for k, v := range e.Settings {
			if models.IsMeta(k) {
				continue
			}
			d := distinct[k]
			if d == nil {
				d = &values{byText: map[string]any{}}
				distinct[k] = d
			}
			for _, r := range d.recent {
				if sameScalar(v, r) {
					continue settings
				}
			}
			text := models.CanonicalValue(v)
			if old, ok := d.byText[text]; ok {
				// Replaced: it no longer stands for its text.
				d.recent = slices.DeleteFunc(d.recent, func(r any) bool { return sameScalar(r, old) })
			}
			d.byText[text] = v
			if len(d.recent) < recentValues && sameScalar(v, v) {
				d.recent = append(d.recent, v)
			}
		}
	}
	out := make(map[string][]any, len(distinct))
	for k, d := range distinct {
		vs := d.byText
		list := make([]any, 0, len(vs))
		for _, v := range vs {
			list = append(list, v)
		}
		models.SortValues(list)
		out[k] = list
	}
	return out
}

// sameScalar tells whether a and b are one string, int, bool or float64,
// which render alike (floats compared by their bits: 0 and -0 render
// apart, as NaNs may).
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return false
}

// Variables is SettingValues less the settings with a single value: the
// matrix variables.
func Variables(entries []*Entry) map[string][]any {
	vars := SettingValues(entries)
	for k, vs := range vars {
		if len(vs) < 2 {
			delete(vars, k)
		}
	}
	return vars
}

// Stats counts the matrix entries by state.
func (m *Matrix) Stats() Stats {
	s := Stats{Entries: len(m.Entries)}
	for _, e := range m.Entries {
		switch e.State {
		case StateCached:
			s.Cached++
		case StateParsed:
			s.Parsed++
		case StateIncomplete:
			s.Incomplete++
		case StateFailed:
			s.Failed++
		}
	}
	return s
}

// VariableKeys returns the names of the variables, sorted.
func (m *Matrix) VariableKeys() []string {
	keys := make([]string, 0, len(m.Variables))
	for k := range m.Variables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matrixDoc is the --output-matrix document.
type matrixDoc struct {
	Entries   []*Entry         `json:"entries"`
	Variables map[string][]any `json:"variables"`
}

// WriteJSON writes the matrix document: entries sorted by path, variables
// with sorted values (encoding/json sorts map keys).
func (m *Matrix) WriteJSON(w io.Writer, pretty bool) error {
	entries := m.Entries
	if entries == nil {
		entries = []*Entry{}
	}
	for _, e := range entries {
		if e.Warnings == nil {
			e.Warnings = []string{}
		}
		if !utf8.ValidString(e.Path) {
			e.PathEscaped = escapeInvalidUTF8(e.Path)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(matrixDoc{Entries: entries, Variables: m.Variables})
}

// escapeInvalidUTF8 writes each byte of s that is not part of valid UTF-8,
// and each "%", as %XX: the byte-exact form of a name JSON cannot hold.
func escapeInvalidUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || s[i] == '%' {
			fmt.Fprintf(&b, "%%%02X", s[i])
			i++
			continue
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}
