package opensearchtest

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Queries are parsed once per request (syntax errors are request errors,
// as in OpenSearch's coordinating node) and bound once per index (type
// errors are that index's shard failure).

type query interface {
	bind(b *binder) (matcher, *apiError)
}

// matcher decides whether a document matches and with what score.
type matcher func(d *docVersion) (bool, float64)

// binder carries what binding a query needs about one index.
type binder struct {
	ix  *index
	now time.Time
}

// field is the mapping of a field; a path inside a flat_object field is a
// keyword.
func (b *binder) field(name string) *fieldDef {
	if d := b.ix.mapping.fields[name]; d != nil {
		return d
	}
	for p := name; ; {
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return nil
		}
		p = p[:i]
		if d := b.ix.mapping.fields[p]; d != nil {
			if d.typ == "flat_object" {
				return &fieldDef{typ: "keyword", enabled: true}
			}
			return nil
		}
	}
}

// shardError is a QueryShardException raised while building the query for
// one index.
func (b *binder) shardError(cause *apiError) *apiError {
	return newError(http.StatusBadRequest, "query_shard_exception", "failed to create query: %s", cause.reason).
		with("index", b.ix.name).with("index_uuid", b.ix.uuid).because(cause)
}

var unmodelledQueries = map[string]bool{
	"match_phrase": true, "match_phrase_prefix": true, "multi_match": true, "query_string": true,
	"simple_query_string": true, "wildcard": true, "regexp": true, "fuzzy": true, "nested": true,
	"has_child": true, "has_parent": true, "parent_id": true, "geo_bounding_box": true, "geo_distance": true,
	"geo_polygon": true, "geo_shape": true, "script": true, "script_score": true, "function_score": true,
	"dis_max": true, "boosting": true, "more_like_this": true, "terms_set": true, "distance_feature": true,
	"span_term": true, "span_near": true, "span_or": true, "span_not": true, "span_first": true,
	"span_multi": true, "span_containing": true, "span_within": true, "field_masking_span": true,
	"intervals": true, "combined_fields": true, "knn": true, "neural": true, "percolate": true,
	"wrapper": true, "rank_feature": true, "pinned": true, "type": true, "hybrid": true, "match_bool_prefix": true,
}

// parseQuery parses a query clause object such as {"term":{"f":"v"}}.
func parseQuery(v *jv) (query, *apiError) {
	if v == nil || v.kind != jObject {
		return nil, errParsingAt(v, "[_na] query malformed, must start with start_object")
	}
	if len(v.obj) == 0 {
		return nil, errIllegalArgument("query malformed, empty clause found at [%d:%d]", v.line, v.col)
	}
	m := v.obj[0]
	if m.val.kind != jObject {
		return nil, errParsingAt(m.val, "[%s] query malformed, no start_object after query name", m.key)
	}
	if len(v.obj) > 1 {
		next := v.obj[1]
		return nil, errParsing(next.line, next.col, "[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", m.key)
	}
	body := m.val
	switch m.key {
	case "match_all":
		return parseMatchAll(body, false)
	case "match_none":
		return parseMatchAll(body, true)
	case "term":
		return parseTerm(body)
	case "terms":
		return parseTerms(body)
	case "range":
		return parseRange(body)
	case "exists":
		return parseExists(body)
	case "ids":
		return parseIDs(body)
	case "bool":
		return parseBool(body)
	case "constant_score":
		return parseConstantScore(body)
	case "match":
		return parseMatch(body)
	case "prefix":
		return parsePrefix(body)
	}
	if unmodelledQueries[m.key] {
		return nil, errNotImplemented("opensearchtest: the [%s] query is not modelled", m.key)
	}
	return nil, errParsing(m.line, m.col, "unknown query [%s]", m.key)
}

// commonParam handles the boost and _name every query accepts.
func commonParam(q string, m jmember, boost *float64) (bool, *apiError) {
	switch m.key {
	case "boost":
		f, err := strconv.ParseFloat(m.val.text(), 64)
		if err != nil {
			return true, errParsing(m.val.line, m.val.col, "[%s] failed to parse field [boost]", q)
		}
		*boost = f
		return true, nil
	case "_name":
		return true, nil
	}
	return false, nil
}

type matchAllQuery struct {
	none  bool
	boost float64
}

func parseMatchAll(body *jv, none bool) (query, *apiError) {
	q := &matchAllQuery{none: none, boost: 1}
	name := "match_all"
	if none {
		name = "match_none"
	}
	for _, m := range body.obj {
		if ok, err := commonParam(name, m, &q.boost); ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		return nil, errParsing(m.line, m.col, "[%s] query does not support [%s]", name, m.key)
	}
	return q, nil
}

func (q *matchAllQuery) bind(*binder) (matcher, *apiError) {
	return func(*docVersion) (bool, float64) { return !q.none, q.boost }, nil
}

// termQuery covers term and terms: a field and the values it must hold one of.
type termQuery struct {
	name            string // "term" or "terms"
	field           string
	values          []*jv
	caseInsensitive bool
	boost           float64
}

func parseTerm(body *jv) (query, *apiError) {
	q := &termQuery{name: "term", boost: 1}
	for _, m := range body.obj {
		switch m.val.kind {
		case jObject:
			if q.field != "" {
				return nil, errParsing(m.line, m.col, "[term] query doesn't support multiple fields, found [%s] and [%s]", q.field, m.key)
			}
			q.field = m.key
			for _, im := range m.val.obj {
				if ok, err := commonParam("term", im, &q.boost); ok {
					if err != nil {
						return nil, err
					}
					continue
				}
				switch im.key {
				case "value":
					q.values = []*jv{im.val}
				case "case_insensitive":
					q.caseInsensitive = truthy(im.val)
				default:
					return nil, errParsing(im.line, im.col, "[term] query does not support [%s]", im.key)
				}
			}
		case jArray:
			return nil, errParsing(m.val.line, m.val.col, "[term] query does not support array of values")
		default:
			if ok, err := commonParam("term", m, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			if q.field != "" {
				return nil, errParsing(m.line, m.col, "[term] query doesn't support multiple fields, found [%s] and [%s]", q.field, m.key)
			}
			q.field = m.key
			q.values = []*jv{m.val}
		}
	}
	if q.field == "" {
		return nil, errIllegalArgument("field name is null or empty")
	}
	if len(q.values) == 0 || q.values[0].kind == jNull {
		return nil, errIllegalArgument("value cannot be null")
	}
	return q, nil
}

func parseTerms(body *jv) (query, *apiError) {
	q := &termQuery{name: "terms", boost: 1}
	for _, m := range body.obj {
		switch m.val.kind {
		case jArray:
			if q.field != "" {
				return nil, errParsing(m.line, m.col, "[terms] query does not support multiple fields")
			}
			q.field = m.key
			for _, e := range m.val.arr {
				if e.kind == jNull {
					return nil, errIllegalArgument("No value specified for terms query")
				}
				if e.kind == jObject || e.kind == jArray {
					return nil, errIllegalArgument("Invalid value for terms query: %s", e.text())
				}
				q.values = append(q.values, e)
			}
			q.values = slices.Clip(q.values)
		case jObject:
			return nil, errNotImplemented("opensearchtest: terms lookup is not modelled")
		default:
			if ok, err := commonParam("terms", m, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			return nil, errParsing(m.line, m.col, "[terms] query does not support [%s]", m.key)
		}
	}
	if q.field == "" {
		return nil, errIllegalArgument("field name cannot be null.")
	}
	return q, nil
}

func (q *termQuery) bind(b *binder) (matcher, *apiError) {
	boost := q.boost
	switch q.field {
	case "_id":
		want := map[string]bool{}
		for _, v := range q.values {
			want[v.text()] = true
		}
		return func(d *docVersion) (bool, float64) { return want[d.id], boost }, nil
	case "_index":
		hit := false
		for _, v := range q.values {
			hit = hit || v.text() == b.ix.name
		}
		return func(*docVersion) (bool, float64) { return hit, boost }, nil
	}
	def := b.field(q.field)
	if def == nil || def.kind() == kindObject {
		return matchNothing, nil
	}
	var wants []ival
	for _, v := range q.values {
		iv, err := termValue(def, v)
		if err != nil {
			return nil, b.shardError(err)
		}
		wants = append(wants, iv)
	}
	field, kind, ci := q.field, def.kind(), q.caseInsensitive
	return func(d *docVersion) (bool, float64) {
		for _, have := range d.fields[field] {
			for _, want := range wants {
				if termEquals(kind, have, want, ci) {
					return true, boost
				}
			}
		}
		return false, 0
	}, nil
}

func matchNothing(*docVersion) (bool, float64) { return false, 0 }

// termValue converts a query value to the field's indexed form. Text fields
// take term values as they are: term queries are not analyzed.
func termValue(def *fieldDef, v *jv) (ival, *apiError) {
	switch def.kind() {
	case kindString, kindText:
		return ival{s: v.text()}, nil
	case kindInt:
		if v.kind != jNumber && v.kind != jString {
			return ival{}, errIllegalArgument("Can't parse [%s] as a number", v.text())
		}
		s := strings.TrimSpace(v.s)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return ival{i: n}, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return ival{}, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", s)
		}
		if f != math.Trunc(f) {
			return ival{}, errIllegalArgument("Value [%s] has a decimal part", s)
		}
		return ival{i: int64(f)}, nil
	case kindFloat:
		f, err := parseFloatValue(def.typ, v)
		return ival{f: f}, err
	case kindDate:
		ms, err := parseDateValue(def, v)
		return ival{i: ms}, err
	case kindBool:
		n, err := parseBoolValue(v)
		return ival{i: n}, err
	}
	return ival{}, errIllegalArgument("cannot query field of type [%s]", def.typ)
}

func termEquals(kind valueKind, have, want ival, caseInsensitive bool) bool {
	switch kind {
	case kindString:
		if caseInsensitive {
			return strings.EqualFold(have.s, want.s)
		}
		return have.s == want.s
	case kindText:
		for _, t := range have.toks {
			if t == want.s || (caseInsensitive && strings.EqualFold(t, want.s)) {
				return true
			}
		}
		return false
	case kindFloat:
		return have.f == want.f
	default:
		return have.i == want.i
	}
}

type rangeQuery struct {
	field            string
	from, to         *jv
	includeLower     bool
	includeUpper     bool
	format, timeZone string
	boost            float64
}

func parseRange(body *jv) (query, *apiError) {
	q := &rangeQuery{includeLower: true, includeUpper: true, boost: 1}
	for _, m := range body.obj {
		if m.val.kind != jObject {
			if ok, err := commonParam("range", m, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			return nil, errParsing(m.line, m.col, "[range] query does not support [%s]", m.key)
		}
		if q.field != "" {
			return nil, errParsing(m.line, m.col, "[range] query doesn't support multiple fields, found [%s] and [%s]", q.field, m.key)
		}
		q.field = m.key
		for _, im := range m.val.obj {
			if ok, err := commonParam("range", im, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			v := im.val
			switch im.key {
			case "from":
				q.from = v
			case "to":
				q.to = v
			case "include_lower":
				q.includeLower = truthy(v)
			case "include_upper":
				q.includeUpper = truthy(v)
			case "gt":
				q.from, q.includeLower = v, false
			case "gte":
				q.from, q.includeLower = v, true
			case "lt":
				q.to, q.includeUpper = v, false
			case "lte":
				q.to, q.includeUpper = v, true
			case "format":
				q.format = v.text()
			case "time_zone":
				q.timeZone = v.text()
			case "relation":
				switch strings.ToLower(v.text()) {
				case "intersects", "contains", "within":
				default:
					return nil, errIllegalArgument("[range] query does not support relation [%s]", v.text())
				}
			default:
				return nil, errParsing(im.line, im.col, "[range] query does not support [%s]", im.key)
			}
		}
	}
	if q.field == "" {
		return nil, errIllegalArgument("[range] query requires a field")
	}
	if q.from != nil && q.from.kind == jNull {
		q.from = nil
	}
	if q.to != nil && q.to.kind == jNull {
		q.to = nil
	}
	return q, nil
}

func (q *rangeQuery) bind(b *binder) (matcher, *apiError) {
	def := b.field(q.field)
	if def == nil || def.kind() == kindObject {
		return matchNothing, nil
	}
	kind := def.kind()
	incLo, incHi := q.includeLower, q.includeUpper
	bound := func(v *jv, upper bool, inclusive *bool) (*ival, *apiError) {
		if v == nil {
			return nil, nil
		}
		if kind == kindDate {
			roundUp := (upper && *inclusive) || (!upper && !*inclusive)
			ms, err := q.dateBound(def, v, roundUp, b.now)
			if err != nil {
				return nil, err
			}
			return &ival{i: ms}, nil
		}
		if kind == kindInt {
			n, exact, err := intBound(v)
			if err != nil {
				return nil, err
			}
			if !exact {
				// A fractional bound on an integer field: only whole values
				// strictly inside it can match.
				*inclusive = true
				if upper {
					n = int64(math.Floor(exactFloat(v)))
				} else {
					n = int64(math.Ceil(exactFloat(v)))
				}
			}
			return &ival{i: n}, nil
		}
		iv, err := termValue(def, v)
		return &iv, err
	}
	lo, err := bound(q.from, false, &incLo)
	if err != nil {
		return nil, b.shardError(err)
	}
	hi, err := bound(q.to, true, &incHi)
	if err != nil {
		return nil, b.shardError(err)
	}
	field, boost := q.field, q.boost
	inRange := func(c int, inclusive bool) bool { return c > 0 || (c == 0 && inclusive) }
	return func(d *docVersion) (bool, float64) {
		for _, have := range d.fields[field] {
			if kind == kindText {
				for _, t := range have.toks {
					tv := ival{s: t}
					if (lo == nil || inRange(compareVals(kindString, tv, *lo), incLo)) && (hi == nil || inRange(compareVals(kindString, *hi, tv), incHi)) {
						return true, boost
					}
				}
				continue
			}
			if (lo == nil || inRange(compareVals(kind, have, *lo), incLo)) && (hi == nil || inRange(compareVals(kind, *hi, have), incHi)) {
				return true, boost
			}
		}
		return false, 0
	}, nil
}

// intBound parses a bound for an integer field; exact is false for a
// fractional value.
func intBound(v *jv) (int64, bool, *apiError) {
	if v.kind != jNumber && v.kind != jString {
		return 0, false, errIllegalArgument("Can't parse [%s] as a number", v.text())
	}
	s := strings.TrimSpace(v.s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", s)
	}
	if f == math.Trunc(f) {
		return int64(f), true, nil
	}
	return 0, false, nil
}

func exactFloat(v *jv) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
	return f
}

// compareVals orders two indexed values of one kind.
func compareVals(kind valueKind, a, b ival) int {
	switch kind {
	case kindString, kindText:
		return strings.Compare(a.s, b.s)
	case kindFloat:
		return cmpFloat(a.f, b.f)
	default:
		return cmpInt(a.i, b.i)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var dateMathOp = regexp.MustCompile(`^([+-])(\d+)([yMwdhHms])|^/([yMwdhHms])`)

// dateBound parses a date range bound, with date math ("now-1d/d",
// "2024-01-01||+1M") and the rounding rules OpenSearch applies: rounding is
// up for gt and lte, down for gte and lt.
func (q *rangeQuery) dateBound(def *fieldDef, v *jv, roundUp bool, now time.Time) (int64, *apiError) {
	format := def.format
	if q.format != "" {
		format = q.format
	}
	loc := time.UTC
	if q.timeZone != "" {
		l, err := parseTimeZone(q.timeZone)
		if err != nil {
			return 0, errIllegalArgument("%s", err.Error())
		}
		loc = l
	}
	if v.kind == jNumber {
		f, _ := strconv.ParseFloat(v.s, 64)
		return int64(f), nil
	}
	s := v.text()
	var anchor time.Time
	var rest string
	switch {
	case strings.HasPrefix(s, "now"):
		anchor, rest = now.In(loc), s[3:]
	case strings.Contains(s, "||"):
		i := strings.Index(s, "||")
		ms, err := parseDateIn(s[:i], format, loc)
		if err != nil {
			return 0, newError(http.StatusBadRequest, "parse_exception", "failed to parse date field [%s] with format [%s]", s[:i], format)
		}
		anchor, rest = time.UnixMilli(ms).In(loc), s[i+2:]
	default:
		ms, err := parseDateIn(s, format, loc)
		if err != nil {
			return 0, newError(http.StatusBadRequest, "parse_exception", "failed to parse date field [%s] with format [%s]", s, format).
				because(errIllegalArgument("failed to parse date field [%s] with format [%s]", s, format))
		}
		return ms, nil
	}
	t := anchor
	for rest != "" {
		m := dateMathOp.FindStringSubmatch(rest)
		if m == nil {
			return 0, newError(http.StatusBadRequest, "parse_exception", "operator not supported for date math [%s]", rest)
		}
		rest = rest[len(m[0]):]
		if m[4] != "" {
			t = roundDate(t, m[4], roundUp)
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if m[1] == "-" {
			n = -n
		}
		t = addDateUnit(t, m[3], n)
	}
	return t.UnixMilli(), nil
}

// parseDateIn parses s, reading dates without a zone in loc.
func parseDateIn(s, format string, loc *time.Location) (int64, error) {
	ms, err := parseDate(s, format)
	if err != nil || loc == time.UTC {
		return ms, err
	}
	if m := isoDateRE.FindStringSubmatch(s); m != nil && m[8] != "" {
		return ms, nil // the value names its own zone
	}
	t := time.UnixMilli(ms).UTC()
	local := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	return local.UnixMilli(), nil
}

func parseTimeZone(z string) (*time.Location, error) {
	if z == "Z" || z == "UTC" {
		return time.UTC, nil
	}
	if len(z) >= 3 && (z[0] == '+' || z[0] == '-') {
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, err := strconv.Atoi(digits[:2])
		if err != nil {
			return nil, fmt.Errorf("unknown time zone [%s]", z)
		}
		m := 0
		if len(digits) >= 4 {
			m, _ = strconv.Atoi(digits[2:4])
		}
		off := h*3600 + m*60
		if z[0] == '-' {
			off = -off
		}
		return time.FixedZone(z, off), nil
	}
	l, err := time.LoadLocation(z)
	if err != nil {
		return nil, fmt.Errorf("Unknown time-zone ID: %s", z)
	}
	return l, nil
}

func addDateUnit(t time.Time, unit string, n int) time.Time {
	switch unit {
	case "y":
		return t.AddDate(n, 0, 0)
	case "M":
		return t.AddDate(0, n, 0)
	case "w":
		return t.AddDate(0, 0, 7*n)
	case "d":
		return t.AddDate(0, 0, n)
	case "h", "H":
		return t.Add(time.Duration(n) * time.Hour)
	case "m":
		return t.Add(time.Duration(n) * time.Minute)
	default:
		return t.Add(time.Duration(n) * time.Second)
	}
}

func roundDate(t time.Time, unit string, up bool) time.Time {
	var start time.Time
	y, mo, d := t.Date()
	switch unit {
	case "y":
		start = time.Date(y, 1, 1, 0, 0, 0, 0, t.Location())
	case "M":
		start = time.Date(y, mo, 1, 0, 0, 0, 0, t.Location())
	case "w":
		wd := (int(t.Weekday()) + 6) % 7 // weeks start on Monday
		start = time.Date(y, mo, d-wd, 0, 0, 0, 0, t.Location())
	case "d":
		start = time.Date(y, mo, d, 0, 0, 0, 0, t.Location())
	case "h", "H":
		start = t.Truncate(time.Hour)
	case "m":
		start = t.Truncate(time.Minute)
	default:
		start = t.Truncate(time.Second)
	}
	if !up {
		return start
	}
	return addDateUnit(start, unit, 1).Add(-time.Millisecond)
}

type existsQuery struct {
	field string
	boost float64
}

func parseExists(body *jv) (query, *apiError) {
	q := &existsQuery{boost: 1}
	for _, m := range body.obj {
		if ok, err := commonParam("exists", m, &q.boost); ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if m.key != "field" {
			return nil, errParsing(m.line, m.col, "[exists] query does not support [%s]", m.key)
		}
		q.field = m.val.text()
	}
	if q.field == "" {
		return nil, errIllegalArgument("[exists] must be provided with a [field]")
	}
	return q, nil
}

func (q *existsQuery) bind(*binder) (matcher, *apiError) {
	field, boost := q.field, q.boost
	if field == "_id" || field == "_index" || field == "_source" {
		return func(*docVersion) (bool, float64) { return true, boost }, nil
	}
	return func(d *docVersion) (bool, float64) {
		_, ok := d.fields[field]
		return ok, boost
	}, nil
}

type idsQuery struct {
	ids   map[string]bool
	boost float64
}

func parseIDs(body *jv) (query, *apiError) {
	q := &idsQuery{ids: map[string]bool{}, boost: 1}
	for _, m := range body.obj {
		if ok, err := commonParam("ids", m, &q.boost); ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		switch m.key {
		case "values":
			for _, e := range listOf(m.val) {
				q.ids[e.text()] = true
			}
		case "type", "types":
		default:
			return nil, errParsing(m.line, m.col, "[ids] unknown field [%s]", m.key)
		}
	}
	return q, nil
}

func (q *idsQuery) bind(*binder) (matcher, *apiError) {
	return func(d *docVersion) (bool, float64) { return q.ids[d.id], q.boost }, nil
}

type boolQuery struct {
	must, filter, should, mustNot []query
	msm                           *jv
	boost                         float64
}

func parseBool(body *jv) (query, *apiError) {
	q := &boolQuery{boost: 1}
	for _, m := range body.obj {
		if ok, err := commonParam("bool", m, &q.boost); ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		var dst *[]query
		switch m.key {
		case "must":
			dst = &q.must
		case "filter":
			dst = &q.filter
		case "should":
			dst = &q.should
		case "must_not", "mustNot":
			dst = &q.mustNot
		case "minimum_should_match", "minimumShouldMatch":
			q.msm = m.val
			continue
		case "adjust_pure_negative":
			continue
		default:
			return nil, errParsing(m.line, m.col, "[bool] query does not support [%s]", m.key)
		}
		switch m.val.kind {
		case jObject:
			c, err := parseQuery(m.val)
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, c)
		case jArray:
			for _, e := range m.val.arr {
				c, err := parseQuery(e)
				if err != nil {
					return nil, err
				}
				*dst = append(*dst, c)
			}
		default:
			return nil, errParsing(m.val.line, m.val.col, "[bool] query does not support [%s]", m.key)
		}
	}
	if q.msm != nil && q.msm.kind != jNumber && q.msm.kind != jString && q.msm.kind != jNull {
		return nil, errParsingAt(q.msm, "[bool] query does not support [minimum_should_match]")
	}
	return q, nil
}

// minShouldMatch is Queries.calculateMinShouldMatch for the simple forms:
// "N", "-N", "N%", "-N%".
func minShouldMatch(spec string, clauses int) (int, *apiError) {
	spec = strings.TrimSpace(spec)
	if strings.ContainsAny(spec, "< ") {
		return 0, errNotImplemented("opensearchtest: conditional minimum_should_match [%s] is not modelled", spec)
	}
	result := clauses
	if pct, ok := strings.CutSuffix(spec, "%"); ok {
		p, err := strconv.Atoi(pct)
		if err != nil {
			return 0, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", pct)
		}
		calc := float32(result*p) * (1 / float32(100))
		if calc < 0 {
			result += int(calc)
		} else {
			result = int(calc)
		}
	} else {
		n, err := strconv.Atoi(spec)
		if err != nil {
			return 0, newError(http.StatusBadRequest, "number_format_exception", "For input string: \"%s\"", spec)
		}
		if n < 0 {
			result += n
		} else {
			result = n
		}
	}
	return max(result, 0), nil
}

func (q *boolQuery) bind(b *binder) (matcher, *apiError) {
	bindAll := func(qs []query) ([]matcher, *apiError) {
		out := make([]matcher, 0, len(qs))
		for _, c := range qs {
			m, err := c.bind(b)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	must, err := bindAll(q.must)
	if err != nil {
		return nil, err
	}
	filter, err := bindAll(q.filter)
	if err != nil {
		return nil, err
	}
	should, err := bindAll(q.should)
	if err != nil {
		return nil, err
	}
	mustNot, err := bindAll(q.mustNot)
	if err != nil {
		return nil, err
	}
	required := 0
	if len(q.should) > 0 && len(q.must) == 0 && len(q.filter) == 0 {
		required = 1
	}
	if q.msm != nil && q.msm.kind != jNull {
		if required, err = minShouldMatch(q.msm.text(), len(q.should)); err != nil {
			return nil, err
		}
	}
	if required > len(should) {
		return matchNothing, nil
	}
	boost := q.boost
	return func(d *docVersion) (bool, float64) {
		score := 0.0
		for _, m := range must {
			ok, s := m(d)
			if !ok {
				return false, 0
			}
			score += s
		}
		for _, m := range filter {
			if ok, _ := m(d); !ok {
				return false, 0
			}
		}
		for _, m := range mustNot {
			if ok, _ := m(d); ok {
				return false, 0
			}
		}
		matched := 0
		for _, m := range should {
			if ok, s := m(d); ok {
				matched++
				score += s
			}
		}
		if matched < required {
			return false, 0
		}
		return true, score * boost
	}, nil
}

type constantScoreQuery struct {
	filter query
	boost  float64
}

func parseConstantScore(body *jv) (query, *apiError) {
	q := &constantScoreQuery{boost: 1}
	for _, m := range body.obj {
		if ok, err := commonParam("constant_score", m, &q.boost); ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if m.key != "filter" {
			return nil, errParsing(m.line, m.col, "[constant_score] query does not support [%s]", m.key)
		}
		f, err := parseQuery(m.val)
		if err != nil {
			return nil, err
		}
		q.filter = f
	}
	if q.filter == nil {
		return nil, errParsingAt(body, "[constant_score] requires a 'filter' element")
	}
	return q, nil
}

func (q *constantScoreQuery) bind(b *binder) (matcher, *apiError) {
	f, err := q.filter.bind(b)
	if err != nil {
		return nil, err
	}
	return func(d *docVersion) (bool, float64) {
		ok, _ := f(d)
		return ok, q.boost
	}, nil
}

// matchQuery analyzes its text for text fields and is a term query on any
// other field type.
type matchQuery struct {
	field    string
	text     *jv
	operator string
	boost    float64
}

func parseMatch(body *jv) (query, *apiError) {
	q := &matchQuery{operator: "or", boost: 1}
	for _, m := range body.obj {
		if q.field != "" {
			return nil, errParsing(m.line, m.col, "[match] query doesn't support multiple fields, found [%s] and [%s]", q.field, m.key)
		}
		q.field = m.key
		if m.val.kind != jObject {
			q.text = m.val
			continue
		}
		for _, im := range m.val.obj {
			if ok, err := commonParam("match", im, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			switch im.key {
			case "query":
				q.text = im.val
			case "operator":
				q.operator = strings.ToLower(im.val.text())
			case "lenient", "zero_terms_query", "analyzer", "auto_generate_synonyms_phrase_query":
			default:
				return nil, errNotImplemented("opensearchtest: match option [%s] is not modelled", im.key)
			}
		}
	}
	if q.text == nil {
		return nil, errIllegalArgument("No text specified for text query")
	}
	return q, nil
}

func (q *matchQuery) bind(b *binder) (matcher, *apiError) {
	def := b.field(q.field)
	if def == nil || def.kind() != kindText {
		tq := &termQuery{name: "match", field: q.field, values: []*jv{q.text}, boost: q.boost}
		return tq.bind(b)
	}
	toks := analyze(q.text.text())
	if len(toks) == 0 {
		return matchNothing, nil
	}
	field, all, boost := q.field, q.operator == "and", q.boost
	return func(d *docVersion) (bool, float64) {
		have := map[string]bool{}
		for _, v := range d.fields[field] {
			for _, t := range v.toks {
				have[t] = true
			}
		}
		n := 0
		for _, t := range toks {
			if have[t] {
				n++
			}
		}
		if n == 0 || (all && n < len(toks)) {
			return false, 0
		}
		return true, boost * float64(n) / float64(len(toks))
	}, nil
}

type prefixQuery struct {
	field, prefix   string
	caseInsensitive bool
	boost           float64
}

func parsePrefix(body *jv) (query, *apiError) {
	q := &prefixQuery{boost: 1}
	for _, m := range body.obj {
		if q.field != "" {
			return nil, errParsing(m.line, m.col, "[prefix] query doesn't support multiple fields, found [%s] and [%s]", q.field, m.key)
		}
		q.field = m.key
		if m.val.kind != jObject {
			q.prefix = m.val.text()
			continue
		}
		for _, im := range m.val.obj {
			if ok, err := commonParam("prefix", im, &q.boost); ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			switch im.key {
			case "value":
				q.prefix = im.val.text()
			case "case_insensitive":
				q.caseInsensitive = truthy(im.val)
			case "rewrite":
			default:
				return nil, errParsing(im.line, im.col, "[prefix] query does not support [%s]", im.key)
			}
		}
	}
	return q, nil
}

func (q *prefixQuery) bind(b *binder) (matcher, *apiError) {
	def := b.field(q.field)
	if q.field == "_id" {
		return func(d *docVersion) (bool, float64) { return strings.HasPrefix(d.id, q.prefix), q.boost }, nil
	}
	if def == nil {
		return matchNothing, nil
	}
	kind := def.kind()
	if kind != kindString && kind != kindText {
		return nil, b.shardError(errIllegalArgument("Can only use prefix queries on keyword, text and wildcard fields - not on [%s] which is of type [%s]", q.field, def.typ))
	}
	hasPrefix := func(s string) bool {
		if q.caseInsensitive {
			return strings.HasPrefix(strings.ToLower(s), strings.ToLower(q.prefix))
		}
		return strings.HasPrefix(s, q.prefix)
	}
	field := q.field
	return func(d *docVersion) (bool, float64) {
		for _, v := range d.fields[field] {
			if kind == kindString && hasPrefix(v.s) {
				return true, q.boost
			}
			for _, t := range v.toks {
				if hasPrefix(t) {
					return true, q.boost
				}
			}
		}
		return false, 0
	}, nil
}
