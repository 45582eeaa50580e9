package opensearchtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// maxResultWindow is OpenSearch's default index.max_result_window.
const maxResultWindow = 10000

// matcher says whether a document matches a query.
type matcher func(id string, d *doc) bool

// queryOf compiles a query against an index's mapping. It knows the
// clauses the store sends: match_all, bool (filter, must, should,
// must_not, minimum_should_match), terms, prefix, exists, range and ids.
func queryOf(raw json.RawMessage, m *mapping) (matcher, *apiError) {
	name, body, ok := single(raw)
	if !ok {
		return nil, badRequest("parsing_exception", "a query is one object with one clause, not %s", raw)
	}
	switch name {
	case "match_all":
		if err := strictDecode(body, &struct{}{}, "[match_all]"); err != nil {
			return nil, err
		}
		return func(string, *doc) bool { return true }, nil
	case "bool":
		return boolQuery(body, m)
	case "terms":
		return termsQuery(body, m)
	case "range":
		return rangeQuery(body, m)
	case "prefix":
		return prefixQuery(body, m)
	case "exists":
		var e struct {
			Field string `json:"field"`
		}
		if err := strictDecode(body, &e, "[exists]"); err != nil {
			return nil, err
		}
		return func(_ string, d *doc) bool { return len(d.fields[e.Field]) > 0 }, nil
	case "ids":
		var ids struct {
			Values []string `json:"values"`
		}
		if err := strictDecode(body, &ids, "[ids]"); err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, id := range ids.Values {
			set[id] = true
		}
		return func(id string, _ *doc) bool { return set[id] }, nil
	}
	return nil, notSupported("query [%s] is not modelled", name)
}

// single reads an object of one member, the shape of queries and their
// field clauses.
func single(raw json.RawMessage) (string, json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || len(obj) != 1 {
		return "", nil, false
	}
	for k, v := range obj {
		return k, v, true
	}
	return "", nil, false
}

func matchNothing(string, *doc) bool { return false }

// clauses reads a bool clause: one query or a list of them.
func clauses(raw json.RawMessage, m *mapping) ([]matcher, *apiError) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	out := make([]matcher, len(list))
	for i, q := range list {
		var err *apiError
		if out[i], err = queryOf(q, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func boolQuery(body json.RawMessage, m *mapping) (matcher, *apiError) {
	var b struct {
		Filter             json.RawMessage `json:"filter"`
		Must               json.RawMessage `json:"must"`
		Should             json.RawMessage `json:"should"`
		MustNot            json.RawMessage `json:"must_not"`
		MinimumShouldMatch json.RawMessage `json:"minimum_should_match"`
	}
	if err := strictDecode(body, &b, "[bool]"); err != nil {
		return nil, err
	}
	var all [4][]matcher
	for i, r := range []json.RawMessage{b.Filter, b.Must, b.Should, b.MustNot} {
		var err *apiError
		if all[i], err = clauses(r, m); err != nil {
			return nil, err
		}
	}
	required, should, mustNot := append(all[0], all[1]...), all[2], all[3]
	minShould := 0
	if len(should) > 0 && len(required) == 0 {
		minShould = 1
	}
	if len(b.MinimumShouldMatch) > 0 {
		n, err := strconv.Atoi(strings.Trim(string(b.MinimumShouldMatch), `"`))
		if err != nil || n < 0 {
			return nil, notSupported("minimum_should_match %s is not modelled (only a count)", b.MinimumShouldMatch)
		}
		minShould = n
	}
	return func(id string, d *doc) bool {
		for _, q := range required {
			if !q(id, d) {
				return false
			}
		}
		for _, q := range mustNot {
			if q(id, d) {
				return false
			}
		}
		n := 0
		for _, q := range should {
			if q(id, d) {
				n++
			}
		}
		return n >= minShould
	}, nil
}

// oneField reads {"field": body}, the shape of terms and range.
func oneField(raw json.RawMessage, query string) (string, json.RawMessage, *apiError) {
	f, body, ok := single(raw)
	if !ok {
		return "", nil, badRequest("parsing_exception", "[%s] query takes one field (other parameters are not modelled): %s", query, raw)
	}
	return f, body, nil
}

// termsQuery matches documents with any of the values, compared as the
// field indexes them (not analysed: a term against text matches one
// token). An unmapped field matches nothing.
func termsQuery(raw json.RawMessage, m *mapping) (matcher, *apiError) {
	field, body, err := oneField(raw, "terms")
	if err != nil {
		return nil, err
	}
	var vals []any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&vals) != nil {
		return nil, badRequest("parsing_exception", "[terms] query on [%s] takes an array of values", field)
	}
	typ := m.types[field]
	if typ == "" {
		return matchNothing, nil
	}
	if typ == "text" {
		typ = "keyword" // the term itself, not analysed
	}
	want := map[any]bool{}
	for _, v := range vals {
		c, ok := convert(typ, v)
		if !ok || len(c) != 1 {
			return nil, badRequest("query_shard_exception", "failed to create query: cannot read %v as a [%s] for field [%s]", v, typ, field)
		}
		want[c[0]] = true
	}
	return func(_ string, d *doc) bool {
		for _, have := range d.fields[field] {
			if want[have] {
				return true
			}
		}
		return false
	}, nil
}

// prefixQuery matches the keywords that start with a string, in the
// short form {"field": "prefix"}; other field types are not modelled.
func prefixQuery(raw json.RawMessage, m *mapping) (matcher, *apiError) {
	field, body, err := oneField(raw, "prefix")
	if err != nil {
		return nil, err
	}
	var prefix string
	if json.Unmarshal(body, &prefix) != nil {
		return nil, notSupported("[prefix] query on [%s]: only the short form {field: string} is modelled", field)
	}
	switch m.types[field] {
	case "":
		return matchNothing, nil
	case "keyword":
	default:
		return nil, notSupported("[prefix] query on a [%s] field is not modelled (keywords only)", m.types[field])
	}
	return func(_ string, d *doc) bool {
		for _, have := range d.fields[field] {
			if s, ok := have.(string); ok && strings.HasPrefix(s, prefix) {
				return true
			}
		}
		return false
	}, nil
}

// rangeQuery matches dates, numbers and keywords within gt/gte/lt/lte
// bounds (dates as strict_date_optional_time or epoch milliseconds, no
// date math).
func rangeQuery(raw json.RawMessage, m *mapping) (matcher, *apiError) {
	field, body, err := oneField(raw, "range")
	if err != nil {
		return nil, err
	}
	var bounds map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&bounds) != nil {
		return nil, badRequest("parsing_exception", "[range] query on [%s] takes an object of bounds", field)
	}
	typ := m.types[field]
	if typ == "" {
		return matchNothing, nil
	}
	if typ == "text" || typ == "object" || typ == "boolean" {
		return nil, notSupported("[range] query on [%s] field [%s] is not modelled", typ, field)
	}
	type bound struct {
		v  any
		ok func(c int) bool
	}
	var bs []bound
	for _, k := range slices.Sorted(maps.Keys(bounds)) {
		var ok func(int) bool
		switch k {
		case "gt":
			ok = func(c int) bool { return c > 0 }
		case "gte":
			ok = func(c int) bool { return c >= 0 }
		case "lt":
			ok = func(c int) bool { return c < 0 }
		case "lte":
			ok = func(c int) bool { return c <= 0 }
		default:
			return nil, notSupported("[range] parameter [%s] is not modelled", k)
		}
		c, good := convert(typ, bounds[k])
		if !good {
			return nil, badRequest("parse_exception", "failed to parse [%v] as a [%s] bound of field [%s]", bounds[k], typ, field)
		}
		bs = append(bs, bound{c[0], ok})
	}
	return func(_ string, d *doc) bool {
		for _, v := range d.fields[field] {
			if !slices.ContainsFunc(bs, func(b bound) bool { return !b.ok(compareValues(v, b.v)) }) {
				return true
			}
		}
		return false
	}, nil
}

// compareValues orders two indexed values of one field; values of
// different kinds order by kind.
func compareValues(a, b any) int {
	switch a := a.(type) {
	case float64:
		if b, ok := b.(float64); ok {
			return cmp.Compare(a, b)
		}
	case string:
		if b, ok := b.(string); ok {
			return strings.Compare(a, b)
		}
	case bool:
		if b, ok := b.(bool); ok {
			return cmp.Compare(strconv.FormatBool(a), strconv.FormatBool(b))
		}
	}
	return cmp.Compare(kindOf(a), kindOf(b))
}

func kindOf(v any) int {
	switch v.(type) {
	case bool:
		return 0
	case float64:
		return 1
	case string:
		return 2
	}
	return 3 // missing: last
}

// sortField is one sort criterion.
type sortField struct {
	field string
	desc  bool
}

// parseSort reads [{"field": {"order": "asc"|"desc"}}, ...] and checks the
// fields can be sorted on, as OpenSearch does: text fields and unmapped
// fields cannot.
func parseSort(raw json.RawMessage, m *mapping) ([]sortField, *apiError) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, notSupported("sort %s is not modelled (only a list of {field: {order}})", raw)
	}
	var out []sortField
	for _, s := range list {
		if len(s) != 1 {
			return nil, notSupported("sort entry %v is not modelled (one field per entry)", s)
		}
		for field, body := range s {
			var o struct {
				Order string `json:"order"`
			}
			if err := strictDecode(body, &o, "sort on ["+field+"]"); err != nil {
				return nil, err
			}
			if o.Order != "asc" && o.Order != "desc" {
				return nil, badRequest("parsing_exception", "unknown sort order [%s] for [%s]", o.Order, field)
			}
			switch m.types[field] {
			case "":
				return nil, badRequest("query_shard_exception", "No mapping found for [%s] in order to sort on", field)
			case "text":
				return nil, badRequest("illegal_argument_exception", "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. [%s]", field)
			case "object":
				return nil, badRequest("illegal_argument_exception", "cannot sort on object field [%s]", field)
			}
			out = append(out, sortField{field: field, desc: o.Order == "desc"})
		}
	}
	return out, nil
}

// sortValue is a document's value for a sort: the smallest of a
// multi-valued field ascending, the largest descending; nil when missing.
func (s sortField) value(d *doc) any {
	var best any
	for _, v := range d.fields[s.field] {
		if c := compareValues(v, best); best == nil || (!s.desc && c < 0) || (s.desc && c > 0) {
			best = v
		}
	}
	return best
}

// compareKeys orders two documents' sort values; missing values sort last
// in either order, as OpenSearch's default "missing": "_last".
func compareKeys(sorts []sortField, a, b []any) int {
	for i, s := range sorts {
		c := compareValues(a[i], b[i])
		if s.desc && a[i] != nil && b[i] != nil {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// searchTarget decodes the body of a search or count into v and finds the
// one index it names; a list or a pattern is not modelled.
func (ts *TestServer) searchTarget(rq *request, v any, what string) (*index, *apiError) {
	if len(rq.body) > 0 {
		if err := strictDecode(rq.body, v, what); err != nil {
			return nil, err
		}
	}
	if strings.ContainsAny(rq.target, ",*") || strings.HasPrefix(rq.target, "_") {
		return nil, notSupported("searching [%s] is not modelled (one index by name)", rq.target)
	}
	ix := ts.indices[rq.target]
	if ix == nil {
		return nil, indexNotFound(rq.target)
	}
	return ix, nil
}

// search answers POST /{index}/_search over the documents of the last
// refresh: query, sort, search_after, size and _source as the store sends
// them.
func (ts *TestServer) search(rq *request) (int, any, *apiError) {
	var body struct {
		Query       json.RawMessage `json:"query"`
		Size        *int            `json:"size"`
		Sort        json.RawMessage `json:"sort"`
		SearchAfter json.RawMessage `json:"search_after"`
		Source      json.RawMessage `json:"_source"`
	}
	ix, err := ts.searchTarget(rq, &body, "search")
	if err != nil {
		return 0, nil, err
	}
	size := 10
	if body.Size != nil {
		size = *body.Size
	}
	if size < 0 || size > maxResultWindow {
		return 0, nil, badRequest("illegal_argument_exception", "Result window is too large, from + size must be less than or equal to: [%d] but was [%d]", maxResultWindow, size)
	}
	match, err := ts.compile(body.Query, ix)
	if err != nil {
		return 0, nil, err
	}
	var sorts []sortField
	if len(body.Sort) > 0 {
		if sorts, err = parseSort(body.Sort, ix.mapping); err != nil {
			return 0, nil, err
		}
	}
	after, err := searchAfter(body.SearchAfter, sorts, ix.mapping)
	if err != nil {
		return 0, nil, err
	}
	source, err := sourceFilter(body.Source)
	if err != nil {
		return 0, nil, err
	}
	// The matches in order, found once for the pages of one query: a
	// store pages through 25,000 documents in 25 searches of 1,000.
	key := rq.target + "\x00" + string(body.Query) + "\x00" + string(body.Sort)
	sorted := ts.sorted[key]
	if sorted == nil {
		sorted = &sortedHits{}
		for id, d := range ix.visible {
			if !match(id, d) {
				continue
			}
			h := hit{id: id, d: d, keys: make([]any, len(sorts))}
			for i, s := range sorts {
				h.keys[i] = s.value(d)
			}
			sorted.hits = append(sorted.hits, h)
		}
		// Without a sort, the order is by id: stable, as a test wants it.
		slices.SortFunc(sorted.hits, func(a, b hit) int {
			return cmp.Or(compareKeys(sorts, a.keys, b.keys), strings.Compare(a.id, b.id))
		})
		if ts.sorted == nil {
			ts.sorted = map[string]*sortedHits{}
		}
		ts.sorted[key] = sorted
	}
	total, hits := len(sorted.hits), sorted.hits
	// search_after is strict: ties with the cursor are skipped.
	if after != nil {
		hits = hits[sort.Search(len(hits), func(i int) bool { return compareKeys(sorts, hits[i].keys, after) > 0 }):]
	}
	out := []map[string]any{}
	for _, h := range hits[:min(size, len(hits))] {
		e := map[string]any{"_index": rq.target, "_id": h.id, "_score": nil}
		if src := source(h.d.source); src != nil {
			e["_source"] = src
		}
		if sorts != nil {
			e["sort"] = h.keys
		}
		out = append(out, e)
	}
	return http.StatusOK, map[string]any{"took": 0, "timed_out": false,
		"hits": map[string]any{"total": map[string]any{"value": total, "relation": "eq"}, "max_score": nil, "hits": out}}, nil
}

// hit is a document a search matched, with its sort values.
type hit struct {
	id   string
	d    *doc
	keys []any
}

// sortedHits are the documents a query matched, in the order of its sort,
// for its next pages: TestServer.sorted keeps them until a request other
// than a search or a count (one that may write) comes.
type sortedHits struct {
	hits []hit
}

// compile compiles a query; none is match_all.
func (ts *TestServer) compile(q json.RawMessage, ix *index) (matcher, *apiError) {
	if len(q) == 0 {
		return func(string, *doc) bool { return true }, nil
	}
	return queryOf(q, ix.mapping)
}

// searchAfter reads the cursor: one value per sort field, as the hits'
// "sort" gave them.
func searchAfter(raw json.RawMessage, sorts []sortField, m *mapping) ([]any, *apiError) {
	if len(raw) == 0 {
		return nil, nil
	}
	var vals []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&vals) != nil {
		return nil, badRequest("parsing_exception", "[search_after] takes an array of values")
	}
	if len(sorts) == 0 {
		return nil, badRequest("illegal_argument_exception", "Cannot use [search_after] without sort")
	}
	if len(vals) != len(sorts) {
		return nil, badRequest("illegal_argument_exception", "search_after has %d value(s) but sort has %d.", len(vals), len(sorts))
	}
	after := make([]any, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		c, ok := convert(m.types[sorts[i].field], v)
		if !ok || len(c) != 1 {
			return nil, badRequest("illegal_argument_exception", "Failed to parse search_after value [%v] for field [%s]", v, sorts[i].field)
		}
		after[i] = c[0]
	}
	return after, nil
}

// sourceFilter reads _source: true, false, or {"excludes": [paths]}.
func sourceFilter(raw json.RawMessage) (func([]byte) json.RawMessage, *apiError) {
	var on bool
	if len(raw) == 0 || (json.Unmarshal(raw, &on) == nil && on) {
		return func(src []byte) json.RawMessage { return src }, nil
	}
	if json.Unmarshal(raw, &on) == nil {
		return func([]byte) json.RawMessage { return nil }, nil
	}
	var f struct {
		Excludes []string `json:"excludes"`
	}
	if err := strictDecode(raw, &f, "_source"); err != nil {
		return nil, err
	}
	for _, p := range f.Excludes {
		if strings.Contains(p, "*") {
			return nil, notSupported("_source pattern [%s] is not modelled", p)
		}
	}
	return func(src []byte) json.RawMessage { return exclude(src, f.Excludes) }, nil
}

// exclude removes dotted paths from a JSON object, leaving the rest as it
// was sent.
func exclude(src []byte, paths []string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(src, &obj) != nil {
		return src
	}
	for _, p := range paths {
		head, rest, nested := strings.Cut(p, ".")
		switch {
		case !nested:
			delete(obj, head)
		case obj[head] != nil:
			obj[head] = exclude(obj[head], []string{rest})
		}
	}
	out, _ := json.Marshal(obj)
	return out
}

// count answers POST /{index}/_count.
func (ts *TestServer) count(rq *request) (int, any, *apiError) {
	var body struct {
		Query json.RawMessage `json:"query"`
	}
	ix, err := ts.searchTarget(rq, &body, "count")
	if err != nil {
		return 0, nil, err
	}
	match, err := ts.compile(body.Query, ix)
	if err != nil {
		return 0, nil, err
	}
	n := 0
	for id, d := range ix.visible {
		if match(id, d) {
			n++
		}
	}
	return http.StatusOK, map[string]any{"count": n}, nil
}

// fieldCaps answers GET|POST /{index}/_field_caps?fields=...: the fields
// of one index's mapping matching the patterns (names, or a prefix and a
// final "*"), each with its type, as OpenSearch lists them.
func (ts *TestServer) fieldCaps(rq *request) (int, any, *apiError) {
	if strings.ContainsAny(rq.target, ",*") || strings.HasPrefix(rq.target, "_") {
		return 0, nil, notSupported("field_caps of [%s] is not modelled (one index by name)", rq.target)
	}
	ix := ts.indices[rq.target]
	if ix == nil {
		return 0, nil, indexNotFound(rq.target)
	}
	patterns := strings.Split(rq.params["fields"], ",")
	for _, p := range patterns {
		if p == "" || strings.Contains(strings.TrimSuffix(p, "*"), "*") {
			return 0, nil, notSupported("field_caps pattern [%s] is not modelled (a name, or a prefix and a final *)", p)
		}
	}
	fields := map[string]any{}
	for field, typ := range ix.mapping.types {
		for _, p := range patterns {
			prefix, wild := strings.CutSuffix(p, "*")
			if field == p || (wild && strings.HasPrefix(field, prefix)) {
				fields[field] = map[string]any{typ: map[string]any{"type": typ, "searchable": typ != "object", "aggregatable": typ != "text" && typ != "object"}}
			}
		}
	}
	return http.StatusOK, map[string]any{"indices": []string{rq.target}, "fields": fields}, nil
}

// refresh answers POST /{indices}/_refresh: searches see the documents
// written so far.
func (ts *TestServer) refresh(rq *request) (int, any, *apiError) {
	names := strings.Split(rq.target, ",")
	for _, n := range names {
		if strings.Contains(n, "*") || strings.HasPrefix(n, "_") {
			return 0, nil, notSupported("refreshing [%s] is not modelled (indices by name)", rq.target)
		}
		if ts.indices[n] == nil && rq.params["ignore_unavailable"] != "true" {
			return 0, nil, indexNotFound(n)
		}
	}
	for _, n := range names {
		if ix := ts.indices[n]; ix != nil {
			ix.visible = maps.Clone(ix.docs)
		}
	}
	return http.StatusOK, map[string]any{"_shards": map[string]int{"total": len(names), "successful": len(names), "failed": 0}}, nil
}
