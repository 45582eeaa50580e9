package opensearchtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// apiError is an OpenSearch exception as its REST layer renders it:
//
//	{"error":{"root_cause":[...],"type":"...","reason":"...",<metadata>,"caused_by":{...}},"status":N}
type apiError struct {
	status   int
	typ      string
	reason   string
	meta     []metaField // rendered after reason, in this order
	causedBy *apiError
	// rootCauses overrides the default root cause (the error itself).
	rootCauses []*apiError
	// search_phase_execution_exception only
	phase        string
	failedShards []shardFailure
}

type metaField struct {
	key string
	val any
}

type shardFailure struct {
	Shard  int       `json:"shard"`
	Index  string    `json:"index"`
	Node   string    `json:"node"`
	Reason *apiError `json:"reason"`
}

func (e *apiError) Error() string { return e.typ + ": " + e.reason }

func (e *apiError) with(key string, val any) *apiError {
	e.meta = append(e.meta, metaField{key, val})
	return e
}

func (e *apiError) because(cause *apiError) *apiError {
	e.causedBy = cause
	return e
}

// writeFields writes the exception's fields, without braces.
func (e *apiError) writeFields(b *bytes.Buffer, withCause bool) {
	writeKV(b, "type", e.typ, true)
	writeKV(b, "reason", e.reason, false)
	for _, m := range e.meta {
		writeKV(b, m.key, m.val, false)
	}
	if e.phase != "" {
		writeKV(b, "phase", e.phase, false)
		writeKV(b, "grouped", true, false)
		writeKV(b, "failed_shards", e.failedShards, false)
	}
	if withCause && e.causedBy != nil {
		b.WriteString(`,"caused_by":{`)
		e.causedBy.writeFields(b, true)
		b.WriteByte('}')
	}
}

// MarshalJSON renders the exception as it appears nested (caused_by, bulk
// item errors, shard failures).
func (e *apiError) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	e.writeFields(&b, true)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// body renders the whole error response.
func (e *apiError) body() []byte {
	var b bytes.Buffer
	b.WriteString(`{"error":{"root_cause":[`)
	roots := e.rootCauses
	if roots == nil {
		roots = []*apiError{e}
	}
	for i, r := range roots {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		r.writeFields(&b, false)
		b.WriteByte('}')
	}
	b.WriteString("],")
	e.writeFields(&b, true)
	fmt.Fprintf(&b, `},"status":%d}`, e.status)
	return b.Bytes()
}

func writeKV(b *bytes.Buffer, key string, val any, first bool) {
	if !first {
		b.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	b.Write(k)
	b.WriteByte(':')
	v, err := json.Marshal(val)
	if err != nil {
		v = []byte("null")
	}
	b.Write(v)
}

func newError(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, reason: fmt.Sprintf(format, args...)}
}

func errIllegalArgument(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, "illegal_argument_exception", format, args...)
}

// errParsing is a ParsingException, which carries the position of the token
// it complains about.
func errParsing(line, col int, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, "parsing_exception", format, args...).with("line", line).with("col", col)
}

func errParsingAt(v *jv, format string, args ...any) *apiError {
	line, col := 1, 1
	if v != nil {
		line, col = v.line, v.col
	}
	return errParsing(line, col, format, args...)
}

// errJSON converts a JSON syntax error to Jackson's json_parse_exception.
func errJSON(err error) *apiError {
	var se *jsonSyntaxError
	if errors.As(err, &se) {
		return newError(http.StatusBadRequest, "json_parse_exception", "%s", se.Error())
	}
	return newError(http.StatusBadRequest, "parse_exception", "%s", err.Error())
}

func errIndexNotFound(name string) *apiError {
	return newError(http.StatusNotFound, "index_not_found_exception", "no such index [%s]", name).
		with("resource.type", "index_or_alias").with("resource.id", name).
		with("index_uuid", "_na_").with("index", name)
}

func errInvalidIndexName(name, why string) *apiError {
	return newError(http.StatusBadRequest, "invalid_index_name_exception", "Invalid index name [%s], %s", name, why).
		with("index_uuid", "_na_").with("index", name)
}

func errValidation(problems []string) *apiError {
	var b bytes.Buffer
	b.WriteString("Validation Failed: ")
	for i, p := range problems {
		fmt.Fprintf(&b, "%d: %s;", i+1, p)
	}
	return newError(http.StatusBadRequest, "action_request_validation_exception", "%s", b.String())
}

// errNotImplemented marks an OpenSearch feature this server does not model.
// It is deliberately not an OpenSearch error type: a test hitting it needs a
// server extension, not a client fix.
func errNotImplemented(format string, args ...any) *apiError {
	return newError(http.StatusNotImplemented, "opensearchtest_not_implemented", format, args...)
}

// errSearchPhase wraps per-shard failures as OpenSearch does when every shard
// of a search failed. Its status is that of the first failure.
func errSearchPhase(failures []shardFailure) *apiError {
	e := &apiError{
		status:       failures[0].Reason.status,
		typ:          "search_phase_execution_exception",
		reason:       "all shards failed",
		phase:        "query",
		failedShards: failures,
		causedBy:     failures[0].Reason,
	}
	for _, f := range failures {
		e.rootCauses = append(e.rootCauses, f.Reason)
	}
	return e
}

const contentTypeJSON = "application/json; charset=UTF-8"

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, newError(http.StatusInternalServerError, "exception", "opensearchtest: cannot encode response: %v", err))
		return
	}
	writeRaw(w, status, body)
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeRaw(w, e.status, e.body())
}

// writeSimpleError writes the short form the REST controller uses for
// transport-level problems: {"error":"...","status":N}.
func writeSimpleError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}{msg, status})
	writeRaw(w, status, body)
}
