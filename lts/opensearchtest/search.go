package opensearchtest

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	trackTotalAccurate = math.MaxInt32
	trackTotalDisabled = -1
	defaultTrackTotal  = 10000
	defaultSize        = 10
)

type searchRequest struct {
	query       query
	postFilter  query
	size, from  int
	sorts       []sortSpec // nil: by _score
	searchAfter []*jv
	trackTotal  int
	source      sourceFilter
	trackScores bool
	version     bool
	seqNo       bool
	totalAsInt  bool
}

type sortSpec struct {
	field        string // "_score", "_doc", "_id" or a mapped field
	desc         bool
	missing      *jv // nil: _last
	unmappedType string
	mode         string
	format       string // date sorts: render sort values with this format
}

type sourceFilter struct {
	disabled           bool
	includes, excludes []string
}

var (
	searchValueKeys  = set("from", "size", "timeout", "terminate_after", "min_score", "version", "seq_no_primary_term", "explain", "track_scores", "include_named_queries_score", "track_total_hits", "_source", "stored_fields", "sort", "profile", "search_pipeline", "verbose_pipeline")
	searchObjectKeys = set("query", "post_filter", "_source", "script_fields", "indices_boost", "aggregations", "aggs", "highlight", "suggest", "sort", "rescore", "ext", "slice", "collapse", "pit", "search_pipeline", "derived")
	searchArrayKeys  = set("stored_fields", "docvalue_fields", "fields", "indices_boost", "sort", "rescore", "stats", "_source", "search_after")
	unmodelledSearch = set("script_fields", "aggregations", "aggs", "highlight", "suggest", "rescore", "ext", "slice", "collapse", "pit", "search_pipeline", "derived", "indices_boost")
)

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

// parseSearch reads a search body, then the URL parameters that override
// it, as RestSearchAction does.
func parseSearch(body *jv, params map[string]string) (*searchRequest, *apiError) {
	sr := &searchRequest{size: -1, from: -1, trackTotal: defaultTrackTotal}
	trackTotalSet := false
	if body != nil {
		if body.kind != jObject {
			return nil, errParsingAt(body, "Expected [START_OBJECT] but found [%s]", body.token())
		}
		for _, m := range body.obj {
			v := m.val
			tok := v.token()
			var allowed bool
			switch v.kind {
			case jObject:
				allowed = searchObjectKeys[m.key]
			case jArray:
				allowed = searchArrayKeys[m.key]
			default:
				allowed = searchValueKeys[m.key]
			}
			if !allowed {
				return nil, errParsing(v.line, v.col, "Unknown key for a %s in [%s].", tok, m.key)
			}
			if unmodelledSearch[m.key] {
				return nil, errNotImplemented("opensearchtest: search [%s] is not modelled", m.key)
			}
			var err *apiError
			switch m.key {
			case "query":
				sr.query, err = parseQuery(v)
			case "post_filter":
				sr.postFilter, err = parseQuery(v)
			case "size", "from":
				var n int
				if n, err = intValue(v, m.key); err == nil {
					err = setWindow(sr, m.key, n)
				}
			case "sort":
				sr.sorts, err = parseSorts(v)
			case "search_after":
				sr.searchAfter = v.arr
				for _, e := range v.arr {
					if e.kind == jObject || e.kind == jArray {
						return nil, errParsingAt(e, "Expected [VALUE_STRING] or [VALUE_NUMBER] or [VALUE_BOOLEAN] or [VALUE_NULL] but found [%s] inside search_after.", e.token())
					}
				}
				if len(v.arr) == 0 {
					return nil, errIllegalArgument("Values must contains at least one value.")
				}
			case "track_total_hits":
				sr.trackTotal, err = trackTotalValue(v.text())
				trackTotalSet = true
			case "_source":
				sr.source, err = parseSourceFilter(v)
			case "track_scores":
				sr.trackScores = truthy(v)
			case "version":
				sr.version = truthy(v)
			case "seq_no_primary_term":
				sr.seqNo = truthy(v)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if _, ok := params["q"]; ok {
		return nil, errNotImplemented("opensearchtest: the q parameter (query string) is not modelled")
	}
	if _, ok := params["scroll"]; ok {
		return nil, errNotImplemented("opensearchtest: scroll is not modelled")
	}
	for _, name := range []string{"size", "from"} {
		if v, ok := params[name]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, errIllegalArgument("Failed to parse int parameter [%s] with value [%s]", name, v)
			}
			if err := setWindow(sr, name, n); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := params["sort"]; ok {
		sr.sorts = nil
		for _, part := range strings.Split(v, ",") {
			name, order, _ := strings.Cut(part, ":")
			spec := sortSpec{field: name, desc: name == "_score"}
			switch order {
			case "":
			case "asc":
				spec.desc = false
			case "desc":
				spec.desc = true
			default:
				return nil, errIllegalArgument("Unknown SortOrder [%s]", order)
			}
			sr.sorts = append(sr.sorts, spec)
		}
	}
	if v, ok := params["track_total_hits"]; ok {
		n, err := trackTotalValue(v)
		if err != nil {
			return nil, err
		}
		sr.trackTotal, trackTotalSet = n, true
	}
	if v, ok := params["rest_total_hits_as_int"]; ok && v != "false" {
		sr.totalAsInt = true
		if !trackTotalSet {
			sr.trackTotal = trackTotalAccurate
		} else if sr.trackTotal != trackTotalAccurate {
			return nil, errIllegalArgument("[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got %d", sr.trackTotal)
		}
	}
	for _, k := range []string{"version", "seq_no_primary_term", "track_scores"} {
		if v, ok := params[k]; ok {
			b := v == "" || v == "true"
			switch k {
			case "version":
				sr.version = b
			case "seq_no_primary_term":
				sr.seqNo = b
			default:
				sr.trackScores = b
			}
		}
	}
	if err := sourceParams(&sr.source, params); err != nil {
		return nil, err
	}
	return sr, nil
}

// setWindow sets size or from; negative values are refused as
// SearchSourceBuilder refuses them (-1 included).
func setWindow(sr *searchRequest, name string, n int) *apiError {
	if n < 0 {
		return errIllegalArgument("[%s] parameter cannot be negative, found [%d]", name, n)
	}
	if name == "size" {
		sr.size = n
	} else {
		sr.from = n
	}
	return nil
}

func intValue(v *jv, name string) (int, *apiError) {
	if v.kind != jNumber && v.kind != jString {
		return 0, errParsingAt(v, "[%s] failed to parse field", name)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 32)
	if err != nil {
		f, ferr := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
		if ferr != nil || f > math.MaxInt32 || f < math.MinInt32 {
			return 0, errIllegalArgument("Numeric value (%s) out of range of int", v.s)
		}
		n = int64(f)
	}
	return int(n), nil
}

func trackTotalValue(s string) (int, *apiError) {
	switch s {
	case "true":
		return trackTotalAccurate, nil
	case "false":
		return trackTotalDisabled, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errIllegalArgument("Failed to parse int parameter [track_total_hits] with value [%s]", s)
	}
	if n < -1 {
		return 0, errIllegalArgument("[track_total_hits] parameter must be positive or equals to -1, got %d", n)
	}
	return n, nil
}

// parseSorts reads the sort element: a string, an object or an array of
// either, as SortBuilder.fromXContent does.
func parseSorts(v *jv) ([]sortSpec, *apiError) {
	var out []sortSpec
	add := func(e *jv) *apiError {
		switch e.kind {
		case jString:
			out = append(out, sortSpec{field: e.s, desc: e.s == "_score"})
			return nil
		case jObject:
			for _, m := range e.obj {
				spec := sortSpec{field: m.key, desc: m.key == "_score"}
				switch m.val.kind {
				case jString:
					if err := spec.order(m.val); err != nil {
						return err
					}
				case jObject:
					for _, om := range m.val.obj {
						switch om.key {
						case "order":
							if err := spec.order(om.val); err != nil {
								return err
							}
						case "missing":
							spec.missing = om.val
						case "unmapped_type":
							spec.unmappedType = om.val.text()
						case "mode":
							spec.mode = om.val.text()
							switch spec.mode {
							case "min", "max", "avg", "sum", "median":
							default:
								return errIllegalArgument("Unknown SortMode [%s]", spec.mode)
							}
						case "format":
							spec.format = om.val.text()
							switch spec.format {
							case "strict_date_optional_time", "strict_date_optional_time_nanos", "date_optional_time", "strict_date_time", "date_time", "epoch_millis", "epoch_second":
							default:
								return errNotImplemented("opensearchtest: sort format [%s] is not modelled", spec.format)
							}
						case "numeric_type":
						case "nested", "nested_path", "nested_filter":
							return errNotImplemented("opensearchtest: nested sort is not modelled")
						default:
							return errParsing(om.line, om.col, "[field_sort] unknown field [%s]", om.key)
						}
					}
				default:
					return errParsingAt(m.val, "[sort] unsupported value for [%s]", m.key)
				}
				if strings.HasPrefix(spec.field, "_geo_distance") || spec.field == "_script" {
					return errNotImplemented("opensearchtest: [%s] sort is not modelled", spec.field)
				}
				out = append(out, spec)
			}
			return nil
		}
		return errParsingAt(e, "[sort] unexpected token [%s]", e.token())
	}
	for _, e := range listOf(v) {
		if err := add(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *sortSpec) order(v *jv) *apiError {
	switch strings.ToLower(v.text()) {
	case "asc":
		s.desc = false
	case "desc":
		s.desc = true
	default:
		return errIllegalArgument("Unknown SortOrder [%s]", v.text())
	}
	return nil
}

func parseSourceFilter(v *jv) (sourceFilter, *apiError) {
	var f sourceFilter
	strs := func(v *jv) []string {
		var out []string
		for _, e := range listOf(v) {
			out = append(out, e.text())
		}
		return out
	}
	switch v.kind {
	case jBool:
		f.disabled = !v.b
	case jString:
		if v.s == "false" {
			f.disabled = true
		} else if v.s != "true" {
			f.includes = []string{v.s}
		}
	case jArray:
		f.includes = strs(v)
	case jObject:
		for _, m := range v.obj {
			switch m.key {
			case "includes", "include":
				f.includes = strs(m.val)
			case "excludes", "exclude":
				f.excludes = strs(m.val)
			default:
				return f, errParsing(m.line, m.col, "Unknown key for a %s in [%s].", m.val.token(), m.key)
			}
		}
	default:
		return f, errParsingAt(v, "Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] but found [%s]", v.token())
	}
	return f, nil
}

func sourceParams(f *sourceFilter, params map[string]string) *apiError {
	if v, ok := params["_source"]; ok {
		switch v {
		case "true", "":
			f.disabled = false
		case "false":
			f.disabled = true
		default:
			f.includes = strings.Split(v, ",")
		}
	}
	if v, ok := params["_source_includes"]; ok {
		f.includes = strings.Split(v, ",")
	}
	if v, ok := params["_source_excludes"]; ok {
		f.excludes = strings.Split(v, ",")
	}
	return nil
}

// apply filters a stored _source; nil means leave it out.
func (f sourceFilter) apply(src []byte) json.RawMessage {
	if f.disabled {
		return nil
	}
	if len(f.includes) == 0 && len(f.excludes) == 0 {
		return src
	}
	v, err := parseJSONStrict(src)
	if err != nil || v == nil {
		return src
	}
	out := f.filter(v, "", len(f.includes) == 0)
	return out.marshal()
}

func (f sourceFilter) filter(obj *jv, prefix string, included bool) *jv {
	out := &jv{kind: jObject}
	for _, m := range obj.obj {
		path := joinPath(prefix, m.key)
		if slices.ContainsFunc(f.excludes, func(p string) bool { return simpleMatch(p, path) }) {
			continue
		}
		inc := included || slices.ContainsFunc(f.includes, func(p string) bool { return simpleMatch(p, path) })
		switch {
		case m.val.kind == jObject:
			if !inc && !f.mayIncludeBelow(path) {
				continue
			}
			sub := f.filter(m.val, path, inc)
			if inc || len(sub.obj) > 0 {
				out.obj = append(out.obj, jmember{key: m.key, val: sub})
			}
		case m.val.kind == jArray:
			if !inc && !f.mayIncludeBelow(path) {
				continue
			}
			arr := &jv{kind: jArray, arr: []*jv{}}
			for _, e := range m.val.arr {
				if e.kind == jObject {
					if sub := f.filter(e, path, inc); inc || len(sub.obj) > 0 {
						arr.arr = append(arr.arr, sub)
					}
				} else if inc {
					arr.arr = append(arr.arr, e)
				}
			}
			if inc || len(arr.arr) > 0 {
				out.obj = append(out.obj, jmember{key: m.key, val: arr})
			}
		case inc:
			out.obj = append(out.obj, m)
		}
	}
	return out
}

func (f sourceFilter) mayIncludeBelow(path string) bool {
	for _, p := range f.includes {
		head := p
		if i := strings.IndexByte(p, '*'); i >= 0 {
			head = p[:i]
			if strings.HasPrefix(path+".", head) || strings.HasPrefix(head, path+".") {
				return true
			}
			continue
		}
		if strings.HasPrefix(head, path+".") {
			return true
		}
	}
	return false
}

// sortKey is one sort value of a hit.
type sortKey struct {
	missing bool // only for string-like sorts; numeric ones use sentinels
	s       string
	i       int64
	f       float64
}

// boundSort is a sortSpec resolved against one index's mapping.
type boundSort struct {
	spec sortSpec
	kind valueKind // kindString/Int/Float/Date/Bool, or sortScore/sortDoc
	def  *fieldDef
}

const (
	sortScore valueKind = 100 + iota
	sortDoc
)

func (b *binder) bindSort(spec sortSpec) (boundSort, *apiError) {
	switch spec.field {
	case "_score":
		return boundSort{spec: spec, kind: sortScore}, nil
	case "_doc":
		return boundSort{spec: spec, kind: sortDoc}, nil
	case "_id", "_index":
		return boundSort{spec: spec, kind: kindString}, nil
	}
	def := b.field(spec.field)
	if def == nil || def.kind() == kindObject {
		if spec.unmappedType != "" {
			d := &fieldDef{typ: spec.unmappedType}
			if d.kind() == kindObject {
				return boundSort{}, errIllegalArgument("No field type matched on [%s]", spec.unmappedType)
			}
			return boundSort{spec: spec, kind: d.kind(), def: d}, nil
		}
		return boundSort{}, newError(http.StatusBadRequest, "query_shard_exception", "No mapping found for [%s] in order to sort on", spec.field).
			with("index", b.ix.name).with("index_uuid", b.ix.uuid)
	}
	if def.kind() == kindText && def.params["fielddata"] != true {
		return boundSort{}, errIllegalArgument("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", spec.field)
	}
	kind := def.kind()
	if kind == kindText {
		kind = kindString
	}
	return boundSort{spec: spec, kind: kind, def: def}, nil
}

// missingLast reports whether documents without a value sort after all others.
func (bs boundSort) missingLast() bool {
	return bs.spec.missing == nil || bs.spec.missing.text() != "_first"
}

// key computes a hit's sort value for this sort.
func (bs boundSort) key(ix *index, d *docVersion, score float64) (sortKey, *apiError) {
	switch bs.kind {
	case sortScore:
		return sortKey{f: score}, nil
	case sortDoc:
		return sortKey{i: d.seqNo}, nil
	}
	var vals []ival
	switch bs.spec.field {
	case "_id":
		vals = []ival{{s: d.id}}
	case "_index":
		vals = []ival{{s: ix.name}}
	default:
		vals = d.fields[bs.spec.field]
		if bs.def != nil && bs.def.kind() == kindText {
			var toks []ival
			for _, v := range vals {
				for _, t := range v.toks {
					toks = append(toks, ival{s: t})
				}
			}
			vals = toks
		}
	}
	if len(vals) == 0 {
		return bs.missingKey()
	}
	return bs.pick(vals), nil
}

// pick reduces a multi-valued field: min ascending, max descending, unless
// a mode says otherwise.
func (bs boundSort) pick(vals []ival) sortKey {
	mode := bs.spec.mode
	if mode == "" {
		mode = "min"
		if bs.spec.desc {
			mode = "max"
		}
	}
	if (mode == "sum" || mode == "avg" || mode == "median") && bs.kind != kindString {
		nums := make([]float64, len(vals))
		for i, v := range vals {
			nums[i] = v.f
			if bs.kind != kindFloat {
				nums[i] = float64(v.i)
			}
		}
		var r float64
		switch mode {
		case "sum":
			for _, n := range nums {
				r += n
			}
		case "avg":
			for _, n := range nums {
				r += n
			}
			r /= float64(len(nums))
		default:
			slices.Sort(nums)
			r = nums[len(nums)/2]
			if len(nums)%2 == 0 {
				r = (nums[len(nums)/2-1] + nums[len(nums)/2]) / 2
			}
		}
		if bs.kind == kindFloat {
			return sortKey{f: r}
		}
		return sortKey{i: int64(math.Round(r))}
	}
	best := vals[0]
	for _, v := range vals[1:] {
		c := compareVals(bs.kind, v, best)
		if (mode == "max" && c > 0) || (mode != "max" && c < 0) {
			best = v
		}
	}
	return sortKey{s: best.s, i: best.i, f: best.f}
}

func (bs boundSort) missingKey() (sortKey, *apiError) {
	m := bs.spec.missing
	if m != nil && m.text() != "_last" && m.text() != "_first" {
		if bs.kind == kindString {
			return sortKey{s: m.text()}, nil
		}
		iv, err := termValue(bs.def, m)
		if err != nil {
			return sortKey{}, err
		}
		return sortKey{i: iv.i, f: iv.f}, nil
	}
	last := bs.missingLast()
	// Numeric sorts put missing documents last (or first) with a sentinel
	// value that is also what the hit's sort value shows.
	high := last != bs.spec.desc
	switch {
	case bs.kind == kindString:
		return sortKey{missing: true}, nil
	case bs.kind == kindFloat && high:
		return sortKey{f: math.Inf(1)}, nil
	case bs.kind == kindFloat:
		return sortKey{f: math.Inf(-1)}, nil
	case high:
		return sortKey{i: math.MaxInt64}, nil
	default:
		return sortKey{i: math.MinInt64}, nil
	}
}

// compare orders two keys in this sort's direction.
func (bs boundSort) compare(a, b sortKey) int {
	if bs.kind == kindString {
		switch {
		case a.missing && b.missing:
			return 0
		case a.missing || b.missing:
			c := 1
			if b.missing {
				c = -1
			}
			if !bs.missingLast() {
				c = -c
			}
			return c
		}
	}
	var c int
	switch bs.kind {
	case kindString:
		c = strings.Compare(a.s, b.s)
	case kindFloat, sortScore:
		c = cmpFloat(a.f, b.f)
	default:
		c = cmpInt(a.i, b.i)
	}
	if bs.spec.desc {
		c = -c
	}
	return c
}

// value renders a key as the hit's sort value.
func (bs boundSort) value(k sortKey) any {
	if bs.kind == kindDate && bs.spec.format != "" && k.i != math.MaxInt64 && k.i != math.MinInt64 {
		t := time.UnixMilli(k.i).UTC()
		switch bs.spec.format {
		case "epoch_millis":
			return strconv.FormatInt(k.i, 10)
		case "epoch_second":
			return strconv.FormatInt(k.i/1000, 10)
		case "strict_date_optional_time_nanos":
			return t.Format("2006-01-02T15:04:05.000000000Z")
		default:
			return t.Format("2006-01-02T15:04:05.000Z")
		}
	}
	switch bs.kind {
	case kindString:
		if k.missing {
			return nil
		}
		return k.s
	case kindFloat, sortScore:
		if math.IsInf(k.f, 1) {
			return "Infinity"
		}
		if math.IsInf(k.f, -1) {
			return "-Infinity"
		}
		return k.f
	}
	return k.i
}

// afterKey converts a search_after value for this sort, as
// SearchAfterBuilder.convertValueFromSortField does.
func (bs boundSort) afterKey(v *jv) (sortKey, *apiError) {
	fail := func() (sortKey, *apiError) {
		return sortKey{}, errIllegalArgument("Failed to parse search_after value for field [%s].", bs.spec.field)
	}
	if v.kind == jNull {
		if bs.kind == kindString {
			return sortKey{missing: true}, nil
		}
		return bs.missingKey()
	}
	switch bs.kind {
	case kindString:
		return sortKey{s: v.text()}, nil
	case kindFloat, sortScore:
		s := v.text()
		switch s {
		case "Infinity":
			return sortKey{f: math.Inf(1)}, nil
		case "-Infinity":
			return sortKey{f: math.Inf(-1)}, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fail()
		}
		if bs.def != nil {
			f = roundFloat(bs.def.typ, f)
		}
		return sortKey{f: f}, nil
	case kindDate:
		if v.kind == jNumber {
			f, _ := strconv.ParseFloat(v.s, 64)
			return sortKey{i: int64(f)}, nil
		}
		ms, err := parseDate(v.text(), bs.def.format)
		if err != nil {
			if n, perr := strconv.ParseInt(v.text(), 10, 64); perr == nil {
				return sortKey{i: n}, nil
			}
			return sortKey{}, newError(http.StatusBadRequest, "parse_exception", "failed to parse date field [%s] with format [%s]", v.text(), bs.def.format)
		}
		return sortKey{i: ms}, nil
	default:
		if v.kind == jBool {
			if v.b {
				return sortKey{i: 1}, nil
			}
			return sortKey{}, nil
		}
		if v.kind == jNumber {
			if n, err := strconv.ParseInt(v.s, 10, 64); err == nil {
				return sortKey{i: n}, nil
			}
			f, _ := strconv.ParseFloat(v.s, 64)
			return sortKey{i: int64(f)}, nil
		}
		n, err := strconv.ParseInt(v.text(), 10, 64)
		if err != nil {
			return fail()
		}
		return sortKey{i: n}, nil
	}
}

// hit is one matching document during a search.
type hit struct {
	ix    *index
	shard int // position of the index in the search, OpenSearch's shard order
	doc   *docVersion
	score float64
	keys  []sortKey
}

// shardPlan is what one index (shard) contributes to a search.
type shardPlan struct {
	ix      *index
	match   matcher
	post    matcher
	sorts   []boundSort
	after   []sortKey
	matched int
}

// planShard binds the request to one index, raising what a shard would.
func (s *Server) planShard(ix *index, sr *searchRequest, now time.Time) (*shardPlan, *apiError) {
	b := &binder{ix: ix, now: now}
	p := &shardPlan{ix: ix}
	size, from := sr.size, sr.from
	if size < 0 {
		size = defaultSize
	}
	if from < 0 {
		from = 0
	}
	if mw := ix.maxResultWindow(); from+size > mw {
		return nil, errIllegalArgument("Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.", mw, from+size)
	}
	var err *apiError
	q := sr.query
	if q == nil {
		q = &matchAllQuery{boost: 1}
	}
	if p.match, err = q.bind(b); err != nil {
		return nil, err
	}
	if sr.postFilter != nil {
		if p.post, err = sr.postFilter.bind(b); err != nil {
			return nil, err
		}
	}
	for _, spec := range sr.sorts {
		bs, err := b.bindSort(spec)
		if err != nil {
			return nil, err
		}
		p.sorts = append(p.sorts, bs)
	}
	if len(sr.searchAfter) > 0 {
		if from > 0 {
			return nil, newError(http.StatusInternalServerError, "search_exception", "`from` parameter must be set to 0 when `search_after` is used.")
		}
		if len(p.sorts) == 0 {
			return nil, errIllegalArgument("Sort must contain at least one field.")
		}
		if len(p.sorts) != len(sr.searchAfter) {
			return nil, errIllegalArgument("search_after has %d value(s) but sort has %d.", len(sr.searchAfter), len(p.sorts))
		}
		for i, bs := range p.sorts {
			k, err := bs.afterKey(sr.searchAfter[i])
			if err != nil {
				return nil, err
			}
			p.after = append(p.after, k)
		}
	}
	return p, nil
}

// collect runs a planned shard over the index's searchable documents.
func (p *shardPlan) collect(shard int, out []*hit) ([]*hit, *apiError) {
	for _, e := range p.ix.docs {
		d := e.visible
		if d == nil {
			continue
		}
		ok, score := p.match(d)
		if !ok {
			continue
		}
		if p.post != nil {
			if ok, _ := p.post(d); !ok {
				continue
			}
		}
		p.matched++
		h := &hit{ix: p.ix, shard: shard, doc: d, score: score}
		for _, bs := range p.sorts {
			k, err := bs.key(p.ix, d, score)
			if err != nil {
				return out, err
			}
			h.keys = append(h.keys, k)
		}
		if p.after != nil && !p.isAfter(h.keys) {
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// isAfter reports whether keys sort strictly after the search_after values;
// a document equal to them on every sort value is not returned, which is
// why paging needs a unique tie-breaker.
func (p *shardPlan) isAfter(keys []sortKey) bool {
	for i, bs := range p.sorts {
		if c := bs.compare(keys[i], p.after[i]); c != 0 {
			return c > 0
		}
	}
	return false
}

type searchHit struct {
	Index       string          `json:"_index"`
	ID          string          `json:"_id"`
	Version     *int64          `json:"_version,omitempty"`
	SeqNo       *int64          `json:"_seq_no,omitempty"`
	PrimaryTerm *int64          `json:"_primary_term,omitempty"`
	Score       *float64        `json:"_score"`
	Source      json.RawMessage `json:"_source,omitempty"`
	Sort        []any           `json:"sort,omitempty"`
}

type shardsSummary struct {
	Total      int            `json:"total"`
	Successful int            `json:"successful"`
	Skipped    int            `json:"skipped"`
	Failed     int            `json:"failed"`
	Failures   []shardFailure `json:"failures,omitempty"`
}

type totalHits struct {
	Value    int    `json:"value"`
	Relation string `json:"relation"`
}

type searchResponse struct {
	Took     int64         `json:"took"`
	TimedOut bool          `json:"timed_out"`
	Shards   shardsSummary `json:"_shards"`
	Hits     struct {
		Total    any         `json:"total,omitempty"`
		MaxScore *float64    `json:"max_score"`
		Hits     []searchHit `json:"hits"`
	} `json:"hits"`
}

// runSearch executes a parsed search over resolved indices. Callers hold
// s.mu for reading.
func (s *Server) runSearch(indices []*index, sr *searchRequest) (*searchResponse, *apiError) {
	start := time.Now()
	now := s.now()
	resp := &searchResponse{}
	var hits []*hit
	var sorts []boundSort
	total := 0
	for shard, ix := range indices {
		resp.Shards.Total += ix.shards()
		p, err := s.planShard(ix, sr, now)
		if err == nil {
			hits, err = p.collect(shard, hits)
		}
		if err != nil {
			resp.Shards.Failed += ix.shards()
			resp.Shards.Failures = append(resp.Shards.Failures, shardFailure{Shard: 0, Index: ix.name, Node: s.nodeID, Reason: err})
			continue
		}
		resp.Shards.Successful += ix.shards()
		total += p.matched
		if sorts == nil {
			sorts = p.sorts
		}
	}
	if len(resp.Shards.Failures) > 0 && resp.Shards.Successful == 0 {
		return nil, errSearchPhase(resp.Shards.Failures)
	}
	byField := len(sr.sorts) > 0
	slices.SortStableFunc(hits, func(a, b *hit) int {
		if byField {
			for i, bs := range sorts {
				if c := bs.compare(a.keys[i], b.keys[i]); c != 0 {
					return c
				}
			}
		} else if c := cmpFloat(b.score, a.score); c != 0 {
			return c
		}
		if c := a.shard - b.shard; c != 0 {
			return c
		}
		return cmpInt(a.doc.seqNo, b.doc.seqNo)
	})
	showScores := !byField || sr.trackScores || (len(sr.sorts) > 0 && sr.sorts[0].field == "_score")
	if showScores && len(hits) > 0 {
		ms := hits[0].score
		for _, h := range hits {
			ms = max(ms, h.score)
		}
		resp.Hits.MaxScore = &ms
	}
	switch {
	case sr.trackTotal == trackTotalDisabled:
	case sr.totalAsInt:
		resp.Hits.Total = total
	case total > sr.trackTotal:
		resp.Hits.Total = &totalHits{Value: sr.trackTotal, Relation: "gte"}
	default:
		resp.Hits.Total = &totalHits{Value: total, Relation: "eq"}
	}
	size, from := sr.size, sr.from
	if size < 0 {
		size = defaultSize
	}
	from = max(from, 0)
	page := hits[min(from, len(hits)):min(from+size, len(hits))]
	resp.Hits.Hits = make([]searchHit, 0, len(page))
	term := int64(1)
	for _, h := range page {
		sh := searchHit{Index: h.ix.name, ID: h.doc.id, Source: sr.source.apply(h.doc.source)}
		if showScores {
			sc := h.score
			sh.Score = &sc
		}
		if sr.version {
			v := h.doc.version
			sh.Version = &v
		}
		if sr.seqNo {
			sq := h.doc.seqNo
			sh.SeqNo, sh.PrimaryTerm = &sq, &term
		}
		if byField {
			sh.Sort = make([]any, len(h.keys))
			for i, k := range h.keys {
				sh.Sort[i] = sorts[i].value(k)
			}
		}
		resp.Hits.Hits = append(resp.Hits.Hits, sh)
	}
	resp.Took = time.Since(start).Milliseconds()
	return resp, nil
}

// handleSearch serves GET|POST [/{index}]/_search.
func (s *Server) handleSearch(w http.ResponseWriter, rq *request) {
	body, err := rq.jsonBody()
	if err != nil {
		writeError(w, err)
		return
	}
	sr, err := parseSearch(body, rq.query)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
	if err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.runSearch(indices, sr)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleCount serves GET|POST [/{index}]/_count.
func (s *Server) handleCount(w http.ResponseWriter, rq *request) {
	body, err := rq.jsonBody()
	if err != nil {
		writeError(w, err)
		return
	}
	sr := &searchRequest{size: 0, trackTotal: trackTotalAccurate}
	if _, ok := rq.query["q"]; ok {
		writeError(w, errNotImplemented("opensearchtest: the q parameter (query string) is not modelled"))
		return
	}
	if body != nil {
		if body.kind != jObject {
			writeError(w, errParsingAt(body, "Expected [START_OBJECT] but found [%s]", body.token()))
			return
		}
		for _, m := range body.obj {
			if m.key != "query" {
				writeError(w, errParsing(m.line, m.col, "request does not support [%s]", m.key))
				return
			}
			if sr.query, err = parseQuery(m.val); err != nil {
				writeError(w, err)
				return
			}
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	indices, err := s.resolveIndices(rq.index, rq.query["ignore_unavailable"] == "true")
	if err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.runSearch(indices, sr)
	if err != nil {
		writeError(w, err)
		return
	}
	total, _ := resp.Hits.Total.(*totalHits)
	writeJSON(w, http.StatusOK, struct {
		Count  int           `json:"count"`
		Shards shardsSummary `json:"_shards"`
	}{total.Value, resp.Shards})
}
