package opensearchtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// BulkItem describes one action of a bulk request to a fault rule that
// picks items to fail.
type BulkItem struct {
	Position int    // 0-based position in the request
	Action   string // index or delete
	Index    string
	ID       string
}

// bulkAction is one parsed action of a bulk body.
type bulkAction struct {
	BulkItem
	source []byte // index: the document line, as sent
}

// parseBulk splits an NDJSON bulk body into actions, with OpenSearch's
// framing: every line ends with '\n', blank lines are skipped, an index
// action line is followed by its source line, a delete has none. Only the
// actions the store sends (index and delete, with _index and _id) are
// modelled; the others are refused as not modelled.
func parseBulk(body []byte) ([]bulkAction, *apiError) {
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return nil, badRequest("illegal_argument_exception", `The bulk request must be terminated by a newline [\n]`)
	}
	lines := bytes.Split(body, []byte{'\n'})
	var out []bulkAction
	for i := 0; i < len(lines); i++ {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 {
			continue
		}
		n := i + 1
		a, err := parseActionLine(line, n)
		if err != nil {
			return nil, err
		}
		a.Position = len(out)
		if a.Action == "index" {
			for i++; i < len(lines) && len(bytes.TrimSpace(lines[i])) == 0; i++ {
			}
			if i >= len(lines) {
				return nil, badRequest("illegal_argument_exception", "opensearchtest: the index action on line %d has no source line", n)
			}
			a.source = bytes.TrimSpace(lines[i])
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, badRequest("action_request_validation_exception", "Validation Failed: 1: no requests added;")
	}
	return out, nil
}

// parseActionLine reads {"index"|"delete": {"_index": ..., "_id": ...}}.
func parseActionLine(line []byte, n int) (bulkAction, *apiError) {
	var action map[string]map[string]json.RawMessage
	if err := json.Unmarshal(line, &action); err != nil || len(action) != 1 {
		return bulkAction{}, badRequest("illegal_argument_exception", "Malformed action/metadata line [%d], expected one object with one action: %s", n, line)
	}
	var a bulkAction
	for name, meta := range action {
		a.Action = name
		if name != "index" && name != "delete" {
			if slices.Contains([]string{"create", "update"}, name) {
				return a, notSupported("bulk action [%s] (line %d) is not modelled", name, n)
			}
			return a, badRequest("illegal_argument_exception", "Malformed action/metadata line [%d], expected one of [create, delete, index, update] but found [%s]", n, name)
		}
		for key, raw := range meta {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return a, badRequest("illegal_argument_exception", "Malformed action/metadata line [%d], [%s] must be a string", n, key)
			}
			switch key {
			case "_index":
				a.Index = s
			case "_id":
				a.ID = s
			default:
				return a, notSupported("bulk parameter [%s] (line %d) is not modelled", key, n)
			}
		}
	}
	switch {
	case a.Index == "":
		return a, badRequest("action_request_validation_exception", "Validation Failed: 1: index is missing (line %d);", n)
	case a.ID == "":
		return a, notSupported("bulk action without _id (line %d) is not modelled", n)
	}
	return a, nil
}

// itemResult is one entry of a bulk answer's items.
type itemResult struct {
	Index  string         `json:"_index"`
	ID     string         `json:"_id"`
	Status int            `json:"status"`
	Result string         `json:"result,omitempty"`
	Error  map[string]any `json:"error,omitempty"`
}

// bulk applies the actions in order; each succeeds or fails alone.
func (ts *TestServer) bulk(rq *request) (int, any, *apiError) {
	actions, err := parseBulk(rq.body)
	if err != nil {
		return 0, nil, err
	}
	items := make([]map[string]itemResult, len(actions))
	failed := false
	for i, a := range actions {
		res := itemResult{Index: a.Index, ID: a.ID}
		e := rq.items.fail(ts, a.BulkItem)
		if e == nil {
			res.Status, res.Result, e = ts.apply(a)
		}
		if e != nil {
			failed = true
			res.Status, res.Result, res.Error = e.status, "", e.body()
		}
		items[i] = map[string]itemResult{a.Action: res}
	}
	return http.StatusOK, map[string]any{"took": 0, "errors": failed, "items": items}, nil
}

// apply writes one action, creating its index (from the matching template)
// on first use.
func (ts *TestServer) apply(a bulkAction) (int, string, *apiError) {
	if err := checkIndexName(a.Index); err != nil {
		return 0, "", err
	}
	ix := ts.indices[a.Index]
	if ix == nil {
		ix = ts.newIndex(a.Index)
		ts.indices[a.Index] = ix
	}
	if a.Action == "delete" {
		if _, ok := ix.docs[a.ID]; !ok {
			return http.StatusNotFound, "not_found", nil
		}
		delete(ix.docs, a.ID)
		return http.StatusOK, "deleted", nil
	}
	d, err := ix.mapping.index(a.ID, a.source)
	if err != nil {
		return 0, "", err
	}
	_, existed := ix.docs[a.ID]
	ix.docs[a.ID] = d
	if existed {
		return http.StatusOK, "updated", nil
	}
	return http.StatusCreated, "created", nil
}

// checkIndexName applies OpenSearch's rules for index names.
func checkIndexName(name string) *apiError {
	why := ""
	switch {
	case strings.ToLower(name) != name:
		why = "must be lowercase"
	case strings.ContainsAny(name, `\/*?"<>| ,#:`):
		why = `must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?, #, :]`
	case strings.IndexAny(name, "_-+") == 0:
		why = "must not start with '_', '-', or '+'"
	case name == "." || name == "..":
		why = "must not be '.' or '..'"
	}
	if why != "" {
		return badRequest("invalid_index_name_exception", "Invalid index name [%s], %s", name, why)
	}
	return nil
}
