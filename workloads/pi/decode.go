package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// warner receives the warnings of a decoder: *store.ParseContext in a parse,
// a recorder in tests and fuzz targets.
type warner interface {
	Warnf(format string, args ...any)
}

func decodeUUID(data []byte, w warner) string {
	id, err := parsers.UUID(UUIDFile, data)
	if err != nil {
		w.Warnf("%v", err)
		return ""
	}
	return id
}

// decodeConfig reads config.yaml (a mapping) and returns it as compact JSON,
// keys sorted: what JSON cannot hold is made text first (jsonSafe).
func decodeConfig(data []byte, w warner) json.RawMessage {
	var m map[string]any
	if err := parsers.YAML(ConfigFile, data, &m); err != nil {
		w.Warnf("%v", err)
		return nil
	}
	if m == nil {
		return nil
	}
	raw, err := json.Marshal(jsonSafe(m))
	if err != nil {
		w.Warnf("%s: %v", ConfigFile, err)
		return nil
	}
	return raw
}

// decodeJSON decodes an artifact into v (a pointer to a struct). A syntax
// error (corrupt, truncated file) loses the file. A type error in one field
// keeps the rest of the document, which encoding/json fills anyway, so that
// one odd field does not hide a whole measurement; the field itself is
// cleared, as the decoder may have left it half-set (a pointer to zero). ok
// reports whether v holds something.
func decodeJSON(name string, data []byte, v any, w warner) (ok bool) {
	ok, warned := decodeFields(name, data, v, w)
	return ok && !isEmpty(name, reflect.ValueOf(v).Elem(), warned, w)
}

// decodeFields is decodeJSON without the check for an empty document: ok
// is false only when the document is lost (a syntax error); warned tells
// that a field was.
func decodeFields(name string, data []byte, v any, w warner) (ok, warned bool) {
	err := parsers.JSON(name, data, v)
	if err == nil {
		return true, false
	}
	w.Warnf("%v", err)
	var se *parsers.SyntaxError
	if !errors.As(err, &se) || se.Field == "" {
		return false, true
	}
	clearField(reflect.ValueOf(v), strings.Split(se.Field, "."))
	return true, true
}

// isEmpty reports a decoded document that holds nothing, with a warning
// unless one was given already.
func isEmpty(name string, v reflect.Value, warned bool, w warner) bool {
	if !v.IsZero() {
		return false
	}
	if !warned {
		w.Warnf("%s: empty document", name)
	}
	return true
}

// clearField resets the field at path (JSON names, as encoding/json reports
// them in type errors) to its zero value. A path through a slice or a map
// clears the whole slice or map: the decoder does not say which element.
func clearField(v reflect.Value, path []string) {
	for len(path) > 0 {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			v = v.Elem()
		case reflect.Struct:
			f, ok := fieldByJSONName(v, path[0])
			if !ok {
				return
			}
			v, path = f, path[1:]
		default:
			path = nil
		}
	}
	if v.CanSet() {
		v.SetZero()
	}
}

// fieldByJSONName finds the field of struct v that encoding/json names name.
func fieldByJSONName(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && (tag == name || tag == "" && f.Name == name) {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// decodePI reads pi.json. NaN and Infinity, which Python's json module
// writes, are read as null (absent) with a warning rather than losing the
// file. Obviously wrong values are kept but warned about, naming the field.
func decodePI(data []byte, settings models.Settings, w warner) *models.PIResult {
	data, literals := nonFiniteToNull(data)
	for _, l := range literals {
		if l.field != "" {
			w.Warnf("%s:%d: field %s: %s is not valid JSON, read as null", PIFile, l.line, l.field, l.literal)
		} else {
			w.Warnf("%s:%d: %s is not valid JSON, read as null", PIFile, l.line, l.literal)
		}
	}
	var pi models.PIResult
	if !decodeJSON(PIFile, data, &pi, w) {
		return nil
	}
	checkPI(&pi, settings, w)
	return &pi
}

// checkPI warns about values no real measurement has, and about parameters
// that contradict the run's settings (a PI that ignored them).
func checkPI(pi *models.PIResult, settings models.Settings, w warner) {
	res := pi.Result
	if res.Rate != nil && *res.Rate <= 0 {
		w.Warnf("%s: field @result.rate: %v is not a positive rate", PIFile, *res.Rate)
	}
	if res.Elapsed < 0 {
		w.Warnf("%s: field @result.elapsed: negative time %v", PIFile, res.Elapsed)
	} else if res.Elapsed == 0 {
		w.Warnf("%s: field @result.elapsed: missing or zero", PIFile)
	}
	if res.FLOPs != nil && *res.FLOPs < 0 {
		w.Warnf("%s: field @result.flops: negative count %v", PIFile, *res.FLOPs)
	}
	for i, s := range res.SamplesMs {
		if s < 0 {
			w.Warnf("%s: field @result.samples_ms[%d]: negative time %v", PIFile, i, s)
			break // one is enough to distrust the samples
		}
	}
	if res.CI95Low > res.CI95High {
		w.Warnf("%s: field @result.ci95_low: %v above ci95_high %v", PIFile, res.CI95Low, res.CI95High)
	}
	if res.CV < 0 {
		w.Warnf("%s: field @result.cv: negative coefficient of variation %v", PIFile, res.CV)
	}
	for _, k := range sortedKeys(pi.Parameters) {
		want, ok := settings[k]
		if !ok || want == "auto" || !isScalar(want) || !isScalar(pi.Parameters[k]) {
			continue // repetitions: auto becomes a number; lists are not compared
		}
		if !models.EqualValues(pi.Parameters[k], want) {
			w.Warnf("%s: field @parameters.%s: %v, but the settings say %v", PIFile, k, pi.Parameters[k], want)
		}
	}
}

func isScalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

func sortedKeys(m map[string]any) []string { return models.Settings(m).Keys() }

func decodeHWInfo(data []byte, w warner) *models.HWInfo {
	var hw models.HWInfo
	ok, warned := decodeFields(HWInfoFile, data, &hw, w)
	if !ok {
		return nil
	}
	// Amun's fields, leniently: one of the wrong type stays empty.
	var amun amunHWInfo
	_ = parsers.JSON(HWInfoFile, data, &amun)
	amun.fill(&hw, w)
	if isEmpty(HWInfoFile, reflect.ValueOf(hw), warned, w) {
		return nil
	}
	// Thousands of runs come from a handful of machines: share the lists.
	hw.CPU.Flags = hw.CPU.Flags.Shared()
	return &hw
}

// amunHWInfo is hwinfo.json as Thoth's Amun writes it: amun-hwinfo's
// document (py-cpuinfo's cpu_info and cpu_features, Python's platform
// module) with the OS under os_release, the lower-cased fields of
// /etc/os-release, where seshat writes os (models.HWInfo). Seshat's fields
// win where a document has both.
type amunHWInfo struct {
	OSRelease   json.RawMessage `json:"os_release"`
	CPUInfo     amunCPUInfo     `json:"cpu_info"`
	CPUFeatures struct {
		Flags []string `json:"flags"`
	} `json:"cpu_features"`
	Platform struct {
		Node    string `json:"node"`
		Release string `json:"release"`
		Machine string `json:"machine"`
	} `json:"platform"`
}

type amunCPUInfo struct {
	Brand  string `json:"brand_raw"`
	Vendor string `json:"vendor_id_raw"`
	Count  int    `json:"count"`
	Arch   string `json:"arch_string_raw"`
}

func (d *amunHWInfo) fill(hw *models.HWInfo, w warner) {
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = strings.TrimSpace(src)
		}
	}
	if hw.OS == (models.OSRelease{}) && len(d.OSRelease) > 0 {
		hw.OS = amunOSRelease(d.OSRelease, w)
	}
	fill(&hw.Hostname, d.Platform.Node)
	fill(&hw.Kernel, d.Platform.Release)
	fill(&hw.Arch, d.Platform.Machine)
	fill(&hw.Arch, d.CPUInfo.Arch)
	fill(&hw.CPU.Model, d.CPUInfo.Brand)
	fill(&hw.CPU.Vendor, d.CPUInfo.Vendor)
	if hw.CPU.Threads == 0 && d.CPUInfo.Count > 0 {
		hw.CPU.Threads = d.CPUInfo.Count
	}
	if len(hw.CPU.Flags) == 0 && len(d.CPUFeatures.Flags) > 0 {
		hw.CPU.Flags = d.CPUFeatures.Flags
	}
}

// amunOSRelease reads os_release: an object of os-release fields (any
// case), or a string, either the text of /etc/os-release or a name.
func amunOSRelease(raw json.RawMessage, w warner) models.OSRelease {
	var fields struct {
		ID         string `json:"id"`
		VersionID  string `json:"version_id"`
		PrettyName string `json:"pretty_name"`
		Name       string `json:"name"`
		Version    string `json:"version"`
	}
	if err := json.Unmarshal(raw, &fields); err == nil {
		os := models.OSRelease{ID: fields.ID, VersionID: fields.VersionID, PrettyName: fields.PrettyName}
		if os.PrettyName == "" {
			os.PrettyName = strings.TrimSpace(fields.Name + " " + fields.Version)
		}
		return os
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		if string(raw) != "null" {
			w.Warnf("%s: field os_release: neither an object of os-release fields nor a string", HWInfoFile)
		}
		return models.OSRelease{}
	}
	if strings.Contains(text, "=") {
		if kv, err := parsers.OSRelease(HWInfoFile+": os_release", []byte(text)); err == nil || len(kv) > 0 {
			return models.OSRelease{ID: kv["ID"], VersionID: kv["VERSION_ID"], PrettyName: kv["PRETTY_NAME"]}
		}
	}
	return models.OSRelease{PrettyName: strings.TrimSpace(text)}
}

// usageDoc is models.Usage with start and end read as text, so that a
// malformed time names its field and the rest of the file is kept
// (time.Time's own decoder names neither field nor line, and stops the
// decoding). TestUsageDocMirrorsModel keeps the two in step.
type usageDoc struct {
	Start       *string           `json:"start"`
	End         *string           `json:"end"`
	WallSeconds float64           `json:"wall_seconds"`
	Rusage      models.Rusage     `json:"rusage"`
	CPUs        string            `json:"cpus,omitempty"`
	Threads     map[string]string `json:"threads,omitempty"`
	// Read on their own: a record of the host that does not decode is
	// dropped with a warning, the usage kept.
	HostStart         json.RawMessage `json:"host_start,omitempty"`
	HostEnd           json.RawMessage `json:"host_end,omitempty"`
	SeshatMaxRSSBytes int64           `json:"seshat_maxrss_bytes,omitempty"`
	KernelMaxRSSBytes int64           `json:"kernel_maxrss_bytes,omitempty"`
}

func decodeUsage(data []byte, w warner) *models.Usage {
	var doc usageDoc
	if !decodeJSON(UsageFile, data, &doc, w) {
		return nil
	}
	u := models.Usage{
		Start:       usageTime(doc.Start, "start", w),
		End:         usageTime(doc.End, "end", w),
		WallSeconds: doc.WallSeconds,
		Rusage:      doc.Rusage,
		CPUs:        doc.CPUs,
		Threads:     doc.Threads,
		HostStart:   hostState(doc.HostStart, "host_start", w),
		HostEnd:     hostState(doc.HostEnd, "host_end", w),
	}
	u.SeshatMaxRSSBytes = usageSize(doc.SeshatMaxRSSBytes, "seshat_maxrss_bytes", w)
	u.KernelMaxRSSBytes = usageSize(doc.KernelMaxRSSBytes, "kernel_maxrss_bytes", w)
	if !u.Start.IsZero() && !u.End.IsZero() && u.End.Before(u.Start) {
		w.Warnf("%s: field end: %s is before start %s", UsageFile, u.End.Format(time.RFC3339Nano), u.Start.Format(time.RFC3339Nano))
	}
	if u.WallSeconds < 0 {
		w.Warnf("%s: field wall_seconds: negative time %v", UsageFile, u.WallSeconds)
	}
	if u.Rusage.UtimeSeconds < 0 || u.Rusage.StimeSeconds < 0 {
		w.Warnf("%s: field rusage: negative CPU time (utime %v, stime %v)", UsageFile, u.Rusage.UtimeSeconds, u.Rusage.StimeSeconds)
	}
	return &u
}

// usageSize is a size field of usage.json; a negative one is dropped with
// a warning naming it.
func usageSize(n int64, field string, w warner) int64 {
	if n < 0 {
		w.Warnf("%s: field %s: negative size %d", UsageFile, field, n)
		return 0
	}
	return n
}

// hostState decodes a host_start or host_end. One that is not an object
// of the contract's fields, or whose load averages are not three numbers
// at least 0, is dropped with a warning naming the field.
func hostState(raw json.RawMessage, field string, w warner) *models.HostState {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s models.HostState
	if err := json.Unmarshal(raw, &s); err != nil {
		w.Warnf("%s: field %s: %s", UsageFile, field, parsers.Truncate(err.Error(), 120))
		return nil
	}
	if s.LoadAvg != nil && (len(s.LoadAvg) != 3 || slices.ContainsFunc(s.LoadAvg, func(v float64) bool { return v < 0 })) {
		w.Warnf("%s: field %s.loadavg: %v is not three load averages", UsageFile, field, s.LoadAvg)
		s.LoadAvg = nil
	}
	if s.CPUStallUS != nil && *s.CPUStallUS < 0 {
		w.Warnf("%s: field %s.cpu_stall_us: %d is not a count of microseconds", UsageFile, field, *s.CPUStallUS)
		s.CPUStallUS = nil
	}
	for _, g := range s.GPUs {
		if g.Index < 0 || slices.ContainsFunc([]*float64{g.UtilizationPercent, g.SMClockMHz, g.PowerW}, func(v *float64) bool { return v != nil && *v < 0 }) {
			w.Warnf("%s: field %s.gpus: GPU %d has a negative index, utilization, clock or power", UsageFile, field, g.Index)
			s.GPUs = nil
			break
		}
	}
	if s.Empty() {
		return nil
	}
	return &s
}

// usageTime parses an RFC 3339 time and returns it in UTC (the contract's
// zone), so that every entry reports times alike.
func usageTime(s *string, field string, w warner) time.Time {
	if s == nil {
		w.Warnf("%s: field %s: missing", UsageFile, field)
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		w.Warnf("%s: field %s: %q is not an RFC 3339 time", UsageFile, field, parsers.Truncate(*s, 40))
		return time.Time{}
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		// JSON (and so the cache) cannot hold years outside 0..9999.
		w.Warnf("%s: field %s: %q is out of range", UsageFile, field, parsers.Truncate(*s, 40))
		return time.Time{}
	}
	return t
}

// logText turns the tail of a log into text: a tail cut inside a multi-byte
// character loses the partial character, invalid UTF-8 is replaced, so the
// text is the same before and after a JSON round trip through the cache.
func logText(data []byte) string {
	for i := 0; i < utf8.UTFMax && len(data) > 0 && !utf8.RuneStart(data[0]); i++ {
		data = data[1:]
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// nonFinite is a NaN or Infinity literal found outside JSON strings.
type nonFinite struct {
	line    int
	field   string // the key whose value it was, "" inside arrays
	literal string
}

// nonFiniteToNull replaces the NaN, Infinity and -Infinity literals that
// Python's json module writes (outside strings) by null, keeping line numbers
// intact for later errors. data is returned as is when there are none.
func nonFiniteToNull(data []byte) ([]byte, []nonFinite) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data, nil
	}
	var (
		out    []byte
		found  []nonFinite
		last   int
		line   = 1
		inStr  bool
		escape bool
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			line++
		}
		if inStr {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		lit := ""
		for _, l := range [...]string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(data[i:], []byte(l)) {
				lit = l
				break
			}
		}
		if lit == "" || !valueStart(data, i) || !valueEnd(data, i+len(lit)) {
			continue
		}
		found = append(found, nonFinite{line: line, field: keyBefore(data, i), literal: lit})
		out = append(append(out, data[last:i]...), "null"...)
		last = i + len(lit)
		i = last - 1
	}
	if found == nil {
		return data, nil
	}
	return append(out, data[last:]...), found
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// valueStart reports whether a value may start at i: after ':', ',', '[' or
// the start of the document, white space aside.
func valueStart(data []byte, i int) bool {
	j := i - 1
	for j >= 0 && isSpace(data[j]) {
		j--
	}
	return j < 0 || data[j] == ':' || data[j] == ',' || data[j] == '['
}

// valueEnd reports whether a value may end at i.
func valueEnd(data []byte, i int) bool {
	return i == len(data) || isSpace(data[i]) || data[i] == ',' || data[i] == ']' || data[i] == '}'
}

// keyBefore returns the object key whose value starts at i, or "" when the
// value is not directly an object member (an array element).
func keyBefore(data []byte, i int) string {
	j := i - 1
	for j >= 0 && isSpace(data[j]) {
		j--
	}
	if j < 0 || data[j] != ':' {
		return ""
	}
	j--
	for j >= 0 && isSpace(data[j]) {
		j--
	}
	if j < 0 || data[j] != '"' {
		return ""
	}
	end := j
	for j--; j >= 0; j-- {
		if data[j] == '"' && (j == 0 || data[j-1] != '\\') {
			var key string
			if err := json.Unmarshal(data[j:end+1], &key); err != nil {
				return ""
			}
			return parsers.Truncate(key, 60)
		}
	}
	return ""
}

// String makes a nonFinite readable in test failures.
func (n nonFinite) String() string { return fmt.Sprintf("%d:%s=%s", n.line, n.field, n.literal) }
