package opensearchtest

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// bulkAction is one operation of a bulk body (or of a single-document
// request, which takes the same path through write).
type bulkAction struct {
	action        string // index, create, update, delete
	index         string
	id            string
	source        []byte // index/create: the document; update: the update body
	update        *jv    // update: parsed body
	line          int    // line of the action/metadata in the body, 1-based
	opType        string
	ifSeqNo       int64 // -2 when not given
	ifPrimaryTerm int64
	version       int64 // -3 when not given
	versionType   string
}

const (
	unassignedSeqNo = -2
	matchAnyVersion = -3
	maxIDBytes      = 512
)

// BulkItem describes one action of a bulk request to a fault rule that
// picks items to fail.
type BulkItem struct {
	Position int    // 0-based position in the request
	Action   string // index, create, update or delete
	Index    string
	ID       string // empty when OpenSearch would generate one
}

// parseBulk splits an NDJSON bulk body into actions following
// BulkRequestParser: every line ends with '\n'; an action/metadata line is
// followed by a source line except for delete; blank lines are skipped; an
// action whose source line is missing at the very end is dropped.
func parseBulk(body []byte, defaultIndex string) ([]*bulkAction, *apiError) {
	var out []*bulkAction
	line, from := 0, 0
	next := func() (int, *apiError) {
		i := bytes.IndexByte(body[from:], '\n')
		if i >= 0 {
			return from + i, nil
		}
		if from != len(body) {
			return -1, errIllegalArgument(`The bulk request must be terminated by a newline [\n]`)
		}
		return -1, nil
	}
	for {
		end, err := next()
		if err != nil {
			return nil, err
		}
		if end < 0 {
			break
		}
		line++
		raw := body[from:end]
		from = end + 1
		v, _, perr := parseJSON(raw)
		if perr != nil {
			return nil, errJSON(perr)
		}
		if v == nil {
			continue
		}
		if v.kind != jObject {
			return nil, errIllegalArgument("Malformed action/metadata line [%d], expected START_OBJECT but found [%s]", line, v.token())
		}
		if len(v.obj) == 0 {
			return nil, errIllegalArgument("Malformed action/metadata line [%d], expected FIELD_NAME but found [END_OBJECT]", line)
		}
		a := &bulkAction{action: v.obj[0].key, index: defaultIndex, line: line, ifSeqNo: unassignedSeqNo, ifPrimaryTerm: 0, version: matchAnyVersion}
		switch a.action {
		case "create", "delete", "index", "update":
		default:
			return nil, errIllegalArgument("Malformed action/metadata line [%d], expected one of [create, delete, index, update] but found [%s]", line, a.action)
		}
		meta := v.obj[0].val
		switch meta.kind {
		case jObject:
			if err := a.parseMeta(meta, line); err != nil {
				return nil, err
			}
		default:
			return nil, errIllegalArgument("Malformed action/metadata line [%d], expected START_OBJECT or END_OBJECT but found [%s]", line, meta.token())
		}
		if a.action == "delete" {
			out = append(out, a)
			continue
		}
		end, err = next()
		if err != nil {
			return nil, err
		}
		if end < 0 {
			break
		}
		line++
		src := body[from:end]
		if len(src) > 0 && src[len(src)-1] == '\r' {
			src = src[:len(src)-1]
		}
		from = end + 1
		a.source = src
		if a.action == "update" {
			if err := a.parseUpdate(); err != nil {
				return nil, err
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func (a *bulkAction) parseMeta(meta *jv, line int) *apiError {
	for _, m := range meta.obj {
		v := m.val
		switch v.kind {
		case jArray:
			return errIllegalArgument("Malformed action/metadata line [%d], expected a simple value for field [%s] but found [START_ARRAY]", line, m.key)
		case jObject:
			if m.key != "_source" {
				return errIllegalArgument("Malformed action/metadata line [%d], expected a simple value for field [%s] but found [START_OBJECT]", line, m.key)
			}
			continue
		case jNull:
			continue
		}
		switch m.key {
		case "_index":
			a.index = v.text()
		case "_id":
			a.id = v.text()
		case "op_type":
			switch a.opType = v.text(); a.opType {
			case "create", "index":
			default:
				return errIllegalArgument("opType must be 'create' or 'index', found: [%s]", a.opType)
			}
		case "version":
			n, err := strconv.ParseInt(v.text(), 10, 64)
			if err != nil {
				return errIllegalArgument("Malformed action/metadata line [%d], version [%s] is not a number", line, v.text())
			}
			a.version = n
		case "version_type":
			switch vt := v.text(); vt {
			case "internal", "external", "external_gte":
				a.versionType = vt
			default:
				return errIllegalArgument("No version type match [%s]", vt)
			}
		case "if_seq_no":
			n, err := strconv.ParseInt(v.text(), 10, 64)
			if err != nil {
				return errIllegalArgument("Malformed action/metadata line [%d], if_seq_no [%s] is not a number", line, v.text())
			}
			a.ifSeqNo = n
		case "if_primary_term":
			n, err := strconv.ParseInt(v.text(), 10, 64)
			if err != nil {
				return errIllegalArgument("Malformed action/metadata line [%d], if_primary_term [%s] is not a number", line, v.text())
			}
			a.ifPrimaryTerm = n
		case "routing", "retry_on_conflict", "pipeline", "_source", "require_alias":
		default:
			return errIllegalArgument("Action/metadata line [%d] contains an unknown parameter [%s]", line, m.key)
		}
	}
	return nil
}

// parseUpdate validates an update body as UpdateRequest's parser does.
func (a *bulkAction) parseUpdate() *apiError {
	v, err := parseJSONStrict(a.source)
	if err != nil {
		return errJSON(err)
	}
	if v == nil {
		return nil // reported by validation as "script or doc is missing"
	}
	if v.kind != jObject {
		return newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [UpdateRequest] Expected START_OBJECT but was: %s", v.line, v.col, v.token())
	}
	for _, m := range v.obj {
		switch m.key {
		case "doc", "upsert", "doc_as_upsert", "script", "scripted_upsert", "detect_noop", "_source":
		default:
			return newError(http.StatusBadRequest, "x_content_parse_exception", "[%d:%d] [UpdateRequest] unknown field [%s]", m.line, m.col, m.key)
		}
	}
	a.update = v
	return nil
}

// validateBulk reproduces BulkRequest.validate: every problem of every
// action, numbered, in one action_request_validation_exception.
func validateBulk(actions []*bulkAction) *apiError {
	if len(actions) == 0 {
		return errValidation([]string{"no requests added"})
	}
	var problems []string
	for _, a := range actions {
		problems = append(problems, a.validate()...)
	}
	if len(problems) > 0 {
		return errValidation(problems)
	}
	return nil
}

func (a *bulkAction) validate() []string {
	var p []string
	if a.index == "" {
		p = append(p, "index is missing")
	}
	switch a.action {
	case "index", "create":
		if len(bytes.TrimSpace(a.source)) == 0 {
			p = append(p, "source is missing")
		}
		if (a.action == "create" || a.opType == "create") && a.version != matchAnyVersion && a.versionType != "" && a.versionType != "internal" {
			p = append(p, "create operations only support internal versioning. use index instead")
		}
	case "update":
		if a.id == "" {
			p = append(p, "id is missing")
		}
		if a.update == nil || (a.update.get("doc") == nil && a.update.get("script") == nil) {
			p = append(p, "script or doc is missing")
		}
		if a.update != nil && a.update.get("doc") != nil && a.update.get("script") != nil {
			p = append(p, "can't provide both script and doc")
		}
	case "delete":
		if a.id == "" {
			p = append(p, "id is missing")
		}
	}
	if len(a.id) > maxIDBytes {
		p = append(p, "id ["+a.id+"] is too long, must be no longer than 512 bytes but was: "+strconv.Itoa(len(a.id)))
	}
	if a.version != matchAnyVersion && (a.versionType == "" || a.versionType == "internal") && a.action != "update" {
		p = append(p, "internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead")
	}
	if a.ifSeqNo != unassignedSeqNo && a.ifSeqNo < 0 {
		p = append(p, "ifSeqNo must be non negative")
	}
	return p
}

// itemResult is one entry of a bulk response's items.
type itemResult struct {
	Index         string       `json:"_index"`
	ID            string       `json:"_id"`
	Version       int64        `json:"_version,omitempty"`
	Result        string       `json:"result,omitempty"`
	ForcedRefresh bool         `json:"forced_refresh,omitempty"`
	Shards        *shardCounts `json:"_shards,omitempty"`
	SeqNo         *int64       `json:"_seq_no,omitempty"`
	PrimaryTerm   *int64       `json:"_primary_term,omitempty"`
	Status        int          `json:"status"`
	Error         *apiError    `json:"error,omitempty"`

	action string
}

func failedItem(a *bulkAction, e *apiError) *itemResult {
	return &itemResult{Index: a.index, ID: a.id, Status: e.status, Error: e, action: a.action}
}

func okItem(ix *index, a *bulkAction, result string, status int, version, seqNo int64) *itemResult {
	term := int64(1)
	return &itemResult{
		Index: ix.name, ID: a.id, Version: version, Result: result, Shards: ix.shardInfo(),
		SeqNo: &seqNo, PrimaryTerm: &term, Status: status, action: a.action,
	}
}

// write applies one operation. Callers hold s.mu for writing.
func (s *Server) write(a *bulkAction) *itemResult {
	if a.id == "" && (a.action == "index" || a.action == "create") {
		a.id = s.autoID()
		a.opType = "create"
	}
	ix, err := s.indexForWrite(a.index)
	if err != nil {
		return failedItem(a, err)
	}
	e := ix.docs[a.id]
	if e == nil {
		e = &docEntry{seqNo: -1}
	}
	if err := checkConcurrency(ix, a, e); err != nil {
		return failedItem(a, err)
	}
	switch a.action {
	case "delete":
		return s.applyDelete(ix, a, e)
	case "update":
		return s.applyUpdate(ix, a, e)
	default:
		if (a.action == "create" || a.opType == "create") && e.latest != nil {
			return failedItem(a, versionConflict(ix, a.id, "document already exists (current version [%d])", e.version))
		}
		return s.applyIndex(ix, a, e, a.source)
	}
}

func versionConflict(ix *index, id, format string, args ...any) *apiError {
	e := newError(http.StatusConflict, "version_conflict_engine_exception", "[%s]: version conflict, "+format, append([]any{id}, args...)...)
	return e.with("index_uuid", ix.uuid).with("shard", "0").with("index", ix.name)
}

func checkConcurrency(ix *index, a *bulkAction, e *docEntry) *apiError {
	if a.ifSeqNo != unassignedSeqNo {
		if e.latest == nil {
			return versionConflict(ix, a.id, "required seqNo [%d], primary term [%d]. but no document was found", a.ifSeqNo, a.ifPrimaryTerm)
		}
		if e.latest.seqNo != a.ifSeqNo || a.ifPrimaryTerm != 1 {
			return versionConflict(ix, a.id, "required seqNo [%d], primary term [%d]. current document has seqNo [%d] and primary term [1]", a.ifSeqNo, a.ifPrimaryTerm, e.latest.seqNo)
		}
	}
	if a.version != matchAnyVersion {
		cur := e.version
		switch a.versionType {
		case "external":
			if e.latest != nil && a.version <= cur {
				return versionConflict(ix, a.id, "current version [%d] is higher or equal to the one provided [%d]", cur, a.version)
			}
		case "external_gte":
			if e.latest != nil && a.version < cur {
				return versionConflict(ix, a.id, "current version [%d] is higher than the one provided [%d]", cur, a.version)
			}
		default:
			if e.latest == nil || cur != a.version {
				return versionConflict(ix, a.id, "current version [%d] is different than the one provided [%d]", cur, a.version)
			}
		}
	}
	return nil
}

func nextVersion(a *bulkAction, e *docEntry) int64 {
	if a.version != matchAnyVersion && (a.versionType == "external" || a.versionType == "external_gte") {
		return a.version
	}
	return e.version + 1
}

// applyIndex parses and indexes a document source.
func (s *Server) applyIndex(ix *index, a *bulkAction, e *docEntry, source []byte) *itemResult {
	src, end, perr := parseJSON(source)
	if perr != nil {
		return failedItem(a, errMapperParsing("failed to parse").because(errJSON(perr)))
	}
	if src == nil || src.kind != jObject {
		tok := "END_OF_INPUT"
		if src != nil {
			tok = src.token()
		}
		return failedItem(a, errMapperParsing("failed to parse").
			because(errIllegalArgument("Malformed content, must start with an object, found [%s]", tok)))
	}
	if rest := bytes.TrimSpace(source[end:]); len(rest) > 0 {
		extra, _, _ := parseJSON(rest)
		tok := "unknown"
		if extra != nil {
			tok = extra.token()
		}
		return failedItem(a, errMapperParsing("failed to parse").
			because(errIllegalArgument("Malformed content, found extra data after parsing: %s", tok)))
	}
	fields, present, added, merr := ix.mapping.index(a.id, src)
	if merr != nil {
		return failedItem(a, merr)
	}
	for p := range present {
		if _, ok := fields[p]; !ok {
			fields[p] = nil
		}
	}
	for p, d := range added {
		ix.mapping.setField(p, d)
	}
	created := e.latest == nil
	e.version = nextVersion(a, e)
	ix.seqNo++
	e.seqNo = ix.seqNo
	e.latest = &docVersion{id: a.id, source: bytes.Clone(source), fields: fields, version: e.version, seqNo: ix.seqNo}
	ix.docs[a.id] = e
	ix.touch(a.id)
	if created {
		ix.live++
		return okItem(ix, a, "created", http.StatusCreated, e.version, e.seqNo)
	}
	return okItem(ix, a, "updated", http.StatusOK, e.version, e.seqNo)
}

func (s *Server) applyDelete(ix *index, a *bulkAction, e *docEntry) *itemResult {
	found := e.latest != nil
	e.version = nextVersion(a, e)
	ix.seqNo++
	e.seqNo = ix.seqNo
	ix.docs[a.id] = e
	if !found {
		return okItem(ix, a, "not_found", http.StatusNotFound, e.version, e.seqNo)
	}
	e.latest = nil
	ix.live--
	ix.touch(a.id)
	return okItem(ix, a, "deleted", http.StatusOK, e.version, e.seqNo)
}

// applyUpdate merges a partial document (doc), or upserts.
func (s *Server) applyUpdate(ix *index, a *bulkAction, e *docEntry) *itemResult {
	u := a.update
	if u.get("script") != nil {
		return failedItem(a, errNotImplemented("opensearchtest: scripted updates are not modelled"))
	}
	doc := u.get("doc")
	if e.latest == nil {
		switch {
		case truthy(orNull(u.get("doc_as_upsert"))):
			return s.applyIndex(ix, a, e, doc.marshal())
		case u.get("upsert") != nil:
			return s.applyIndex(ix, a, e, u.get("upsert").marshal())
		}
		return failedItem(a, newError(http.StatusNotFound, "document_missing_exception", "[%s]: document missing", a.id).
			with("index_uuid", ix.uuid).with("shard", "0").with("index", ix.name))
	}
	cur, err := parseJSONStrict(e.latest.source)
	if err != nil || cur == nil || doc == nil || doc.kind != jObject {
		return failedItem(a, errMapperParsing("failed to parse"))
	}
	merged, changed := mergeObjects(cur, doc)
	detectNoop := true
	if d := u.get("detect_noop"); d != nil && d.kind == jBool {
		detectNoop = d.b
	}
	if !changed && detectNoop {
		term := int64(1)
		seq := e.latest.seqNo
		return &itemResult{Index: ix.name, ID: a.id, Version: e.version, Result: "noop",
			Shards: &shardCounts{}, SeqNo: &seq, PrimaryTerm: &term,
			Status: http.StatusOK, action: a.action}
	}
	return s.applyIndex(ix, a, e, merged.marshal())
}

func orNull(v *jv) *jv {
	if v == nil {
		return &jv{kind: jNull}
	}
	return v
}

// mergeObjects applies a partial document the way update's doc does:
// objects merge recursively, everything else is replaced.
func mergeObjects(cur, doc *jv) (*jv, bool) {
	out := &jv{kind: jObject, obj: append([]jmember(nil), cur.obj...)}
	changed := false
	for _, dm := range doc.obj {
		i := -1
		for j, m := range out.obj {
			if m.key == dm.key {
				i = j
				break
			}
		}
		if i < 0 {
			out.obj = append(out.obj, dm)
			changed = true
			continue
		}
		old := out.obj[i].val
		if old.kind == jObject && dm.val.kind == jObject {
			nv, ch := mergeObjects(old, dm.val)
			out.obj[i].val = nv
			changed = changed || ch
			continue
		}
		if !bytes.Equal(old.marshal(), dm.val.marshal()) {
			changed = true
		}
		out.obj[i].val = dm.val
	}
	return out, changed
}

// handleBulk serves POST|PUT [/{index}]/_bulk.
func (s *Server) handleBulk(w http.ResponseWriter, rq *request) {
	start := time.Now()
	refresh, rerr := refreshParam(rq)
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	if len(rq.body) == 0 {
		writeError(w, newError(http.StatusBadRequest, "parse_exception", "request body is required"))
		return
	}
	actions, err := parseBulk(rq.body, rq.index)
	if err == nil {
		err = validateBulk(actions)
	}
	rq.bulkActions = len(actions)
	if err != nil {
		writeError(w, err)
		return
	}

	// Item faults are decided before taking the lock, so that a Match
	// function may look at the server.
	faults := make([]*apiError, len(actions))
	for i, a := range actions {
		faults[i] = rq.itemFault(s, BulkItem{Position: i, Action: a.action, Index: a.index, ID: a.id}, a.index)
	}

	s.mu.Lock()
	items := make([]map[string]*itemResult, len(actions))
	touched := map[*index]bool{}
	anyError := false
	for i, a := range actions {
		var res *itemResult
		if faults[i] != nil {
			res = failedItem(a, faults[i])
		} else {
			res = s.write(a)
		}
		if res.Error != nil {
			anyError = true
			rq.bulkFailed++
		} else if ix := s.indices[res.Index]; ix != nil {
			touched[ix] = true
		}
		items[i] = map[string]*itemResult{res.action: res}
	}
	for ix := range touched {
		if refresh != "" || s.cfg.AutoRefresh {
			ix.refresh()
		}
	}
	if refresh == "true" {
		for _, it := range items {
			for _, r := range it {
				r.ForcedRefresh = r.Error == nil
			}
		}
	}
	s.mu.Unlock()

	writeJSON(w, http.StatusOK, struct {
		Took   int64                    `json:"took"`
		Errors bool                     `json:"errors"`
		Items  []map[string]*itemResult `json:"items"`
	}{time.Since(start).Milliseconds(), anyError, items})
}

// refreshParam reads ?refresh=; "" means no refresh, "true" a forced one,
// "wait_for" one that waits (immediate here).
func refreshParam(rq *request) (string, *apiError) {
	v, ok := rq.query["refresh"]
	if !ok {
		return "", nil
	}
	switch v {
	case "", "true":
		return "true", nil
	case "false":
		return "", nil
	case "wait_for":
		return "wait_for", nil
	}
	return "", errIllegalArgument("Unknown value for refresh: [%s].", v)
}
